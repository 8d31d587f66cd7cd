"""Field types and rules of records and intentions (docs/spec/records.md): aware UTC datetimes,
non-empty strings, ids (no whitespace, control or invisible characters; at most 256 characters), no
lone surrogates anywhere, canonical asserted values, the duplicate normalisation
(docs/spec/write-path.md) and the one case folding, scopes and metadata depth, and JSON text read
with its nesting depth and number length bounded (:func:`loads_json`; the bounds are
:class:`graphmem.limits.InputLimits`').
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Any

import regex
from pydantic import AfterValidator, BeforeValidator

from graphmem.errors import ValidationError

__all__ = ["MAX_ID_CHARS", "MAX_INT64", "MAX_METADATA_DEPTH", "MAX_NAME_BYTES", "MAX_SCOPE_BYTES",
           "AwareDatetime", "Identifier", "NonEmptyStr", "QueryScope", "canonical_value",
           "check_scope", "duplicate_text", "fold_case", "fold_letters", "id_problem",
           "loads_json", "metadata_depth", "number_chars", "parse_pairs", "reject_lone_surrogates",
           "scan_json", "scope_problem", "utc_now"]


def utc_now() -> datetime:
    """The current time as an aware UTC datetime (the default clock)."""
    return datetime.now(UTC)


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(
            "naive datetime: graphmem needs timezone-aware datetimes (use UTC, e.g. "
            "datetime(..., tzinfo=timezone.utc) or an ISO string ending in +00:00)"
        )
    try:
        return value.astimezone(UTC)
    except OverflowError:  # e.g. datetime.max at UTC-14:00
        raise ValueError("outside the range of UTC datetimes (years 1-9999)") from None


AwareDatetime = Annotated[datetime, AfterValidator(_aware_utc)]


def reject_lone_surrogates(name: str, value: Any) -> None:
    """Raise ValueError if ``value`` (a string, or one nested in dicts and sequences) holds a
    lone surrogate such as ``"\\ud800"``: JSON can spell one, but it has no UTF-8 form, and
    Neo4j stores UTF-8 (a bad import line is rejected, naming its line)."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{name} holds a lone surrogate (not valid Unicode text)"
                                 ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            reject_lone_surrogates(name, key)
            reject_lone_surrogates(name, item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            reject_lone_surrogates(name, item)


MAX_NOTE_BYTES = 16 * 1024
"""Default largest who (``by``) or why (``reason``) of a write, a transition or a deletion
request, in UTF-8 bytes (``InputLimits.note_bytes``): each is stored, and shown by
``history``."""


def _non_empty_str(value: str) -> str:
    if not value:
        raise ValueError("must be a non-empty string")
    return value


NonEmptyStr = Annotated[str, AfterValidator(_non_empty_str)]

#: The longest id accepted (docs/spec/records.md), in characters (code points).
MAX_INT64 = 2**63 - 1
"""The largest integer Neo4j stores and a Cypher parameter carries: the driver raises a bare
OverflowError for a larger one, so a count, depth, position or budget a caller gives is
checked against it first."""

MAX_ID_CHARS = 256
# Unicode categories never allowed in an id: space, line and paragraph separators, controls,
# format characters (zero-width space and joiners, BOM, bidi marks and embeddings, soft
# hyphen, ...), surrogates; and every Default_Ignorable_Code_Point, Unicode's own list of what
# renders as nothing: the Hangul fillers, the combining grapheme joiner, variation selectors,
# the Khmer inherent vowels, Mongolian free variation selectors, and the code points reserved
# for future invisible characters. "a" and "a" + U+FE0F would otherwise be two ids that look
# the same.
_ID_FORBIDDEN_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs"})
_INVISIBLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid id (docs/spec/records.md), or None when it is.

    An id is non-empty, at most :data:`MAX_ID_CHARS` characters, and holds no whitespace,
    control or invisible format character (Unicode categories Zs, Zl, Zp, Cc, Cf, Cs, and
    every Default_Ignorable_Code_Point: Hangul fillers, variation selectors, the combining
    grapheme joiner, ...). The message names the id (``repr``: invisible characters show as
    escapes) and the first bad character as ``U+XXXX (NAME)``.
    """
    if not value:
        return "an id must be a non-empty string"
    if len(value) <= MAX_ID_CHARS and value.isascii() and value.isprintable() and " " not in value:
        return None  # printable ASCII but the space: no forbidden category, nothing ignorable
    shown = repr(value) if len(value) <= 80 else repr(value[:77]) + "..."
    if len(value) > MAX_ID_CHARS:
        return f"id {shown} has {len(value)} characters; at most {MAX_ID_CHARS} are allowed"
    for i, ch in enumerate(value):
        category = unicodedata.category(ch)
        if category in _ID_FORBIDDEN_CATEGORIES or _INVISIBLE.match(ch):
            name = unicodedata.name(ch, f"a {category} character")
            return (f"id {shown} contains U+{ord(ch):04X} ({name}) at index {i}: ids may not "
                    "hold whitespace, control or invisible format characters")
    return None


def _check_id(value: str) -> str:
    problem = id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


#: A record, intention or deletion request id (docs/spec/records.md): see :func:`id_problem`.
Identifier = Annotated[str, AfterValidator(_check_id)]


def canonical_value(value: str) -> str:
    """Canonical form of an asserted value: NFC, trimmed, inner whitespace collapsed.

    Applied once at write time (docs/spec/records.md: never at read time), so that two
    records asserting the same value compare equal in Cypher and in Python.
    """
    return " ".join(unicodedata.normalize("NFC", value).split())


_DOTTED_I = str.maketrans({"\u0130": "i", "\u0131": "i"})
_IGNORABLE_RUN = regex.compile(r"\p{Default_Ignorable_Code_Point}+")


def fold_letters(text: str) -> str:
    """``text`` with compatibility forms and case folded, the one folding rule of graphmem
    (:func:`fold_case` builds on it; the deletion matcher folds each grapheme with it):
    Unicode compatibility normalisation (NFKC: full-width Latin, ligatures, the Kelvin
    sign...), full case folding (``str.casefold``: "Straße" and "STRASSE" both become
    "strasse", the Greek final sigma becomes sigma, Georgian Mtavruli becomes Mkhedruli,
    Cherokee small letters become capitals), and the Turkish and Azerbaijani I: dotted
    capital İ, its lower-case form "i" + U+0307 and dotless U+0131 all fold to a plain ``i``
    (casefold alone turns İ into "i" plus a combining dot, which no text typed with a plain
    i matches). Default-ignorable characters are kept (see :func:`fold_case`).

    Args:
        text: any Unicode text.

    Returns:
        The folded text, NFKC (it may be longer: "ß" becomes "ss").
    """
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text).translate(_DOTTED_I).casefold()
    folded = folded.replace("i\u0307", "i")  # İ lower-cased as "i" + dot, or typed so
    return unicodedata.normalize("NFKC", folded)


def fold_case(text: str) -> str:
    """``text`` in the form every case-insensitive comparison and index uses, in every
    script (the ranking index and its queries, duplicate detection through
    :func:`duplicate_text`): :func:`fold_letters`, with default-ignorable characters (soft
    hyphens, zero-width joiners, variation selectors) removed, as Unicode's NFKC_Casefold
    does, so "İSTANBUL", "istanbul", "Izmir" and "İzmir" compare as their letters do.

    Args:
        text: any Unicode text.

    Returns:
        The folded text, NFKC (it may be longer: "ß" becomes "ss").
    """
    folded = fold_letters(text)
    if folded.isascii() or _IGNORABLE_RUN.search(folded) is None:
        return folded
    return unicodedata.normalize("NFKC", _IGNORABLE_RUN.sub("", folded))


# A trailing run of sentence punctuation, with any whitespace between: the Unicode properties
# Sentence_Terminal (. ! ? and their CJK, fullwidth, Arabic, Devanagari, Ethiopic... forms)
# and Terminal_Punctuation (what ends a sentence or clause in scripts whose full stop is not a
# Sentence_Terminal: the Tibetan shad, the Greek question mark, which NFC turns into ";", the
# Thai angkhankhu, the Hebrew sof pasuq...; also , : ; and their forms), and ellipses (U+2026,
# U+22EF midline, U+FE19 vertical) and the Coptic full stop, the one full stop Unicode puts
# in neither property. Unicode properties, not a list, so no script is left out.
_TRAILING_TERMINALS = regex.compile(
    r"[\s\p{Sentence_Terminal}\p{Terminal_Punctuation}\u2026\u22ef\ufe19\u2cfe]+\Z")


def duplicate_text(content: str) -> str:
    """The normalised text duplicate detection compares (docs/spec/write-path.md), for every script.

    Case-folded with :func:`fold_case`, the folding every comparison uses (NFKC, full case
    folding, the Turkish dotted and dotless I, default-ignorables removed: "İSTANBUL" ==
    "istanbul", "Straße" == "STRASSE", "ΣΟΦΟΣ" == "σοφος", full-width Latin == Latin), runs
    of whitespace collapsed to one space, leading/trailing whitespace and a trailing run of
    sentence punctuation removed ("Prefers dark mode." == "prefers  dark mode",
    "好的。" == "好的", "བཀྲ་ཤིས།" == "བཀྲ་ཤིས", "Café" composed == decomposed). Text that is
    nothing but punctuation keeps it, so "?" and "!" stay different. The empty string means
    blank content.
    """
    collapsed = " ".join(fold_case(content).split())
    stripped = _TRAILING_TERMINALS.sub("", collapsed)
    return stripped or collapsed


MAX_SCOPE_BYTES = 4096
"""Largest scope, in UTF-8 bytes of its canonical key (:func:`scope_text`). Neo4j indexes
the key, and an index entry holds at most about 8 kB: a larger scope failed in the store (a
``StoreError`` instead of a ``ValidationError``)."""

MAX_NAME_BYTES = 1024
"""Largest ``thread``, ``asserts`` key, intention cue kind and cue value, in UTF-8 bytes: each
is indexed with its tenant (and, for a cue, with its kind), so together with the largest
scope an index entry stays under Neo4j's limit."""


@lru_cache(maxsize=4096)
def scope_text(items: tuple[tuple[str, str], ...]) -> str:
    """The canonical key of a scope given as sorted items (``graphmem.db.codec.scope_key``)."""
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


def utf8_size(value: str) -> int:
    """Bytes of ``value`` in UTF-8 (a lone surrogate counts, as 3; it is refused elsewhere)."""
    return len(value.encode("utf-8", "surrogatepass"))


def check_name_size(name: str, value: str | None) -> str | None:
    """``value`` unchanged; ValueError if it is over :data:`MAX_NAME_BYTES`."""
    if value is not None and utf8_size(value) > MAX_NAME_BYTES:
        raise ValueError(f"{name} is {utf8_size(value)} bytes in UTF-8; at most "
                         f"{MAX_NAME_BYTES} are allowed")
    return value


def scope_problem(scope: object, *, what: str = "the scope", tenant: bool = True,
                  max_bytes: int | None = MAX_SCOPE_BYTES, bound: str | None = None
                  ) -> str | None:
    """Why ``scope`` (any object) is not a scope (docs/spec/records.md#scope), or None: the one
    statement of the rule, for records, intentions, query scopes, deletion subjects, a
    principal's confinement and the MCP server's scopes. A scope maps non-empty string keys to
    non-empty string values of any script (control characters too) with a UTF-8 form, holds
    ``tenant`` when ``tenant`` is True, and is at most ``max_bytes`` (None: unbounded) UTF-8
    bytes as its key (:func:`scope_text`); messages start with ``what`` and name ``bound``, the
    setting holding ``max_bytes`` (``"InputLimits.scope_bytes"``)."""
    if not isinstance(scope, Mapping):
        return f"{what} must be a scope (a mapping of strings)"
    for key, value in scope.items():
        if not isinstance(key, str) or not key or not isinstance(value, str) or not value:
            return f"{what} keys and values must be non-empty strings"
        if not (key + value).isascii():
            try:
                (key + value).encode("utf-8")
            except UnicodeEncodeError:
                return f"{what} holds a lone surrogate (not valid Unicode text)"
    if tenant and "tenant" not in scope:
        return f"{what} must contain 'tenant'"
    size = utf8_size(scope_text(tuple(sorted(scope.items()))))
    if max_bytes is not None and size > max_bytes:
        return (f"{what} is {size} bytes as its key (its pairs as JSON); at most {max_bytes} "
                f"are allowed" + (f" ({bound})" if bound else ""))
    return None


def check_scope(scope: object, *, what: str = "the scope", tenant: bool = True,
                max_bytes: int | None = MAX_SCOPE_BYTES, bound: str | None = None,
                error: Callable[[str], Exception] = ValidationError) -> dict[str, str]:
    """``scope`` sorted by key, else ``error`` (ValueError in a pydantic validator)."""
    problem = scope_problem(scope, what=what, tenant=tenant, max_bytes=max_bytes, bound=bound)
    if problem is not None:
        raise error(problem)
    assert isinstance(scope, Mapping)
    return dict(sorted(scope.items()))


def _query_scope(value: object) -> dict[str, str]:
    return check_scope(value, what="the query scope", max_bytes=None, error=ValueError)


#: A query scope field: the scope rule judges it before pydantic coerces (bytes are no string).
QueryScope = Annotated[dict[str, str], BeforeValidator(_query_scope)]


MAX_METADATA_DEPTH = 64
"""Deepest nesting of lists and maps accepted in ``MemoryRecord.metadata`` (deeper
input used to escape as a raw ``RecursionError`` from the JSON encoder)."""


def metadata_depth(value: Any) -> int:
    """Nesting depth of lists and dicts in ``value`` (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, level)
            if level > MAX_METADATA_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


# -- JSON text read with bounds (graphmem.limits holds the bounds) --------------------

def number_chars(value: int | float) -> int:
    """About how many characters ``value`` takes as a JSON literal (an int's digits are
    estimated: Python refuses to print ints of more than 4,300 digits)."""
    if isinstance(value, float):
        return len(repr(value))
    # without str(): Python refuses to print ints of more than 4,300 digits
    return max(1, int(abs(value).bit_length() * 0.30103) + 1)


# Strings (skipped whole, escapes included), brackets and number literals of JSON text.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?[0-9][0-9.eE+\-]*')
_COLON = re.compile(r"\s*:")


def loads_json(text: str, depth: int, digits: int) -> Any:
    """``json.loads`` with the length of number literals bounded as they are parsed, and
    the nesting depth bounded.

    Args:
        text: JSON text (one JSON Lines line).
        depth: the deepest nesting of lists and objects allowed (``InputLimits.json_depth``).
        digits: the longest number literal allowed, in characters
            (``InputLimits.number_chars``).

    Raises:
        ValidationError: not JSON, nested deeper than ``depth``, a number longer than ``digits``
            (naming the top-level field it is under), or an object naming a key twice.
    """
    def number(kind: type[int] | type[float]) -> Any:
        def parse(literal: str) -> int | float:
            if len(literal) > digits:
                raise _Refused
            return kind(literal)
        return parse

    try:
        value = json.loads(text, parse_int=number(int), parse_float=number(float),
                           object_pairs_hook=_once_each)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not JSON ({exc.msg})") from None
    except (RecursionError, _Refused, ValueError):
        scan_json(text, depth, digits)  # raises, naming the field
        raise ValidationError("not acceptable JSON") from None
    if text.count("[") + text.count("{") > depth and _depth_over(value, depth):  # else too few
        scan_json(text, depth, digits)
    return value


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # a key twice: JSON leaves which value counts undefined (json.loads keeps the last)
    if len(value := dict(pairs)) < len(pairs):
        key = next(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        raise ValidationError(f"an object names the key {key[:80]!r} twice: give it once")
    return value


class _Refused(Exception):
    """A number literal over the bound (found again by :func:`scan_json`, which names its
    field)."""


def _depth_over(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return False


def scan_json(text: str, depth_limit: int, digits: int) -> None:
    """Check JSON text, without parsing it, for nesting deeper than ``depth_limit`` and
    number literals longer than ``digits`` (brackets and digits inside strings are text).

    Raises:
        ValidationError: the first such place, naming the top-level field it is under.
    """
    depth = 0
    field = None  # the key of the top-level object being read
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            depth += 1
            if depth > depth_limit:
                raise ValidationError(
                    f"{_where(field)} is nested more than {depth_limit} levels deep "
                    "(InputLimits.json_depth)")
        elif first in "]}":
            depth -= 1
        elif first == '"':
            if depth == 1 and _COLON.match(text, match.end()):
                try:
                    field = json.loads(token)
                except ValueError:
                    field = token[1:-1]
        elif len(token) > digits:
            raise ValidationError(
                f"{_where(field)} holds a number of {len(token)} characters; at most "
                f"{digits} are allowed (InputLimits.number_chars)")


def _where(field: str | None) -> str:
    return "the line" if field is None else f"field {field[:80]!r}"


def parse_pairs(pairs: Iterable[str] | None, option: str = "--scope") -> dict[str, str]:
    """``["KEY=VALUE", ...]`` (``--scope repo=api``, ``--subject user=u-17``) as a dict, each
    side stripped of surrounding whitespace: the one reader of scope pairs for the command
    line and the MCP server's options (docs/spec/records.md#scope).

    Raises:
        ValidationError: a pair without ``=``, an empty key or value, or a key given twice
            with different values; the message names ``option``.
    """
    out: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValidationError(f"{option} takes KEY=VALUE, got {pair!r}")
        if out.get(key, value) != value:
            raise ValidationError(f"{option} names {key!r} twice")
        out[key] = value
    return out
