"""The one term matcher of a deletion request (docs/spec/deletion.md): redaction, verification and
the residual scan all decide with it. Pure: no database, no I/O.

A text and a term are read the same way:

1. **Normalised** grapheme by grapheme (``\\X``, :mod:`~graphmem.deletion.fold`): Unicode
   compatibility forms (NFKC: full-width letters, ligatures, NBSP), full case folding (``ß``
   and ``SS`` are both ``ss``), dotted and dotless I (``\\u0130``, ``\\u0131``) folded to
   ``i``, and diacritics of Latin, Greek, Cyrillic, Hebrew and Arabic letters dropped
   (``Zoë`` is ``Zoe``, ``Παππά`` is ``ΠΑΠΠΑ``; ``й`` stays ``й``), typographic apostrophes
   read as ``'`` and Unicode hyphens as ``-`` (``O\u2019Brien`` is ``O'Brien``,
   ``Jean\u2010Luc`` is ``Jean-Luc``), and the Arabic tatweel read as absent. Every
   normalised character remembers the original span of its grapheme, so a match maps back to
   exactly the original characters it covers. A term remembers the *scheme* it is read with
   (:data:`~graphmem.deletion.fold.SCHEME`; digests stored before diacritics were folded are
   read with accents counting, those stored before apostrophes, hyphens and tatweel were
   folded with punctuation as written), and text is read with the scheme of each term.
2. **Cut into pieces.** Each normalised character is a word character of a script that
   separates words with spaces (``W``: Latin, Greek, Cyrillic, Arabic, digits ...), a word
   character of a script that does not (``C``: Han, Hiragana, Katakana, Hangul, Thai, Lao,
   Khmer, Myanmar, Tibetan ...: :data:`NO_SPACE_SCRIPTS`), an ignorable (``I``: the Default
   Ignorable code points: soft hyphen, zero-width space, joiners, word joiner, BOM, variation
   selectors), whitespace (``S``) or other (``O``: punctuation, symbols). A *piece* is a run of
   ``W`` characters, or one grapheme of ``C`` characters; between two pieces lies a *gap*:
   empty, ignorables only (*soft*), with whitespace (*hard*) or with other characters
   (*barrier*, whose ``O`` characters are kept, spaces and ignorables dropped).
3. **Matched piece by piece.** A term is the sequence of its pieces; its *skeleton* is the
   concatenation of its pieces and barrier characters (leading and trailing punctuation of a
   term is dropped), its *breaks* the skeleton positions of its hard gaps. A run of pieces
   of the text matches when its skeleton equals the term's; every break of the term lies on a
   gap of the text (whitespace, ignorables, or none between ``C`` pieces); every whitespace
   gap of the text inside the run is a break of the term (or lies between ``C`` pieces); and
   the run starts and ends on a word edge: the text's start or end, whitespace, other
   characters, or a ``C`` piece on either side. An ignorable alone is not a word edge, so
   "Jo\\u00adanna" is one word, and "Ann" matches neither it nor "Anna", "annual" or "Channel";
   between the words of a term any run of whitespace and ignorables is one separator.
   ``[REDACTED]`` markers never match, so redaction is idempotent.

Because a match is decided on the skeleton, the same matcher runs on keyed digests of the
skeletons (:class:`TermDigest`, :func:`digest_terms`): the verification proves a request's
terms are gone without keeping them in clear text (``docs/deletion-terms.md``).
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import regex

from graphmem.deletion.escapes import readings
from graphmem.deletion.fold import SCHEME, SCHEME_PLAIN, SCHEMES, Normalised, normalise

__all__ = ["NO_SPACE_SCRIPTS", "REDACTION", "SCHEME", "Match", "Normalised", "TermDigest",
           "TermMatcher", "TermSpec", "ascii_anchor", "digest_terms", "normalise", "term_spec"]

REDACTION = "[REDACTED]"
"""What a redacted span becomes."""

NO_SPACE_SCRIPTS: tuple[str, ...] = (
    "Han", "Hiragana", "Katakana", "Bopomofo", "Hangul", "Thai", "Lao", "Khmer", "Myanmar",
    "Tibetan", "Yi", "Javanese", "Balinese", "Tai_Le", "New_Tai_Lue", "Tai_Tham", "Tai_Viet")
"""Scripts whose words are not separated by spaces (Hangul too: particles attach to names),
where a term matches inside text (by Script_Extensions, so the prolonged sound mark ``ー``
counts as Japanese)."""

_NO_SPACE = regex.compile("[" + "".join(rf"\p{{scx={s}}}" for s in NO_SPACE_SCRIPTS) + "]")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")

_W, _C, _I, _S, _O = "W", "C", "I", "S", "O"
_NULL, _SOFT, _HARD, _BARRIER = 0, 1, 2, 3


@lru_cache(maxsize=65536)
def _class(char: str) -> str:
    if _IGNORABLE.match(char):
        return _I
    if char.isspace():
        return _S
    category = unicodedata.category(char)
    if category[0] in "LMN":
        return _C if _NO_SPACE.match(char) else _W
    if category in ("Zs", "Zl", "Zp"):
        return _S
    return _O


@dataclass(frozen=True)
class _Pieces:
    """A normalised text cut into pieces (see the module docstring)."""

    skeleton: str
    kinds: tuple[str, ...]          # per piece: W or C
    sk_start: tuple[int, ...]       # per piece: where it starts in the skeleton
    sk_end: tuple[int, ...]
    gaps: tuple[int, ...]           # per piece: the gap before it (_NULL for the first)
    spans: tuple[tuple[int, int], ...]  # per piece: original span
    blocked: tuple[bool, ...]       # per piece: inside a [REDACTED] marker


def _cut(text: str, scheme: int) -> _Pieces:
    norm = normalise(text, scheme)
    chars = norm.text
    markers: list[tuple[int, int]] = []
    at = text.find(REDACTION)
    while at >= 0:
        markers.append((at, at + len(REDACTION)))
        at = text.find(REDACTION, at + len(REDACTION))
    skeleton: list[str] = []
    size = 0
    kinds: list[str] = []
    sk_start: list[int] = []
    sk_end: list[int] = []
    gaps: list[int] = []
    spans: list[tuple[int, int]] = []
    blocked: list[bool] = []
    gap_kind, barrier = _NULL, ""
    k, n = 0, len(chars)
    while k < n:
        cls = _class(chars[k])
        if cls in (_W, _C):
            end = k + 1
            if cls == _W:
                while end < n and _class(chars[end]) == _W:
                    end += 1
            else:
                while (end < n and norm.graphemes[end] == norm.graphemes[k]
                       and _class(chars[end]) == _C):
                    end += 1
            if kinds:
                skeleton.append(barrier)
                size += len(barrier)
            gaps.append(gap_kind if kinds else _NULL)
            kinds.append(cls)
            sk_start.append(size)
            skeleton.append(chars[k:end])
            size += end - k
            sk_end.append(size)
            span = (norm.starts[k], norm.ends[end - 1])
            spans.append(span)
            blocked.append(any(s < span[1] and span[0] < e for s, e in markers))
            gap_kind, barrier = _NULL, ""
            k = end
            continue
        if cls == _O:
            gap_kind = _BARRIER
            barrier += chars[k]
        elif cls == _S and gap_kind != _BARRIER:
            gap_kind = _HARD
        elif cls == _I and gap_kind == _NULL:
            gap_kind = _SOFT
        k += 1
    return _Pieces("".join(skeleton), tuple(kinds), tuple(sk_start), tuple(sk_end),
                   tuple(gaps), tuple(spans), tuple(blocked))


@dataclass(frozen=True)
class TermSpec:
    """A term as the matcher compares it: its skeleton and breaks (see the module docstring).

    ``key`` is the skeleton itself (:func:`term_spec`) or its keyed digest
    (:class:`TermDigest`); ``length`` the skeleton's length in characters; ``scheme`` how
    the skeleton was read (:mod:`~graphmem.deletion.fold`), and so how text is read for it."""

    key: str
    length: int
    breaks: tuple[int, ...]
    scheme: int = SCHEME


def _check_scheme(scheme: int) -> int:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown term scheme {scheme!r}")
    return scheme


def term_spec(term: str, scheme: int = SCHEME) -> TermSpec:
    """The clear :class:`TermSpec` of ``term``, read with ``scheme`` (default: the current
    one, diacritics and typographic spellings folded; the older
    :data:`~graphmem.deletion.fold.SCHEMES` read a term as digests stored before were made).

    Raises:
        ValueError: the term holds no letter or digit (nothing to match); an unknown scheme.
    """
    pieces = _cut(term, _check_scheme(scheme))
    if not pieces.kinds:
        raise ValueError("a redaction term must hold a letter or digit")
    breaks = tuple(pieces.sk_start[k] for k in range(1, len(pieces.kinds))
                   if pieces.gaps[k] == _HARD)
    return TermSpec(pieces.skeleton, len(pieces.skeleton), breaks, scheme)


def ascii_anchor(spec: TermSpec) -> str | None:
    """The longest run of the term's skeleton between its breaks and punctuation, when the
    skeleton is ASCII: an ASCII text holding the term holds this run contiguously (any case),
    so a store may narrow candidates with it. None when the skeleton is not ASCII (no ASCII
    text can hold the term)."""
    if not spec.key.isascii():
        return None
    cuts = sorted({0, spec.length, *spec.breaks})
    runs: list[str] = []
    for a, b in pairwise(cuts):
        runs.extend(regex.findall(r"[a-z0-9]+", spec.key[a:b]))
    return max(runs, key=len) if runs else None


@dataclass(frozen=True)
class TermDigest:
    """A term kept without its text: the keyed digest (HMAC-SHA256, hex) of its skeleton, the
    skeleton's length, its breaks and the scheme the skeleton was read with. JSON-able with
    :meth:`as_dict`."""

    digest: str
    length: int
    breaks: tuple[int, ...]
    scheme: int = SCHEME

    def as_dict(self) -> dict[str, object]:
        """``{"digest", "length", "breaks", "scheme"}``."""
        return {"digest": self.digest, "length": self.length, "breaks": list(self.breaks),
                "scheme": self.scheme}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> TermDigest:
        """The inverse of :meth:`as_dict`. A digest stored without ``scheme`` was made before
        diacritics were folded: :data:`~graphmem.deletion.fold.SCHEME_PLAIN`.

        Raises:
            ValueError: malformed breaks, length or scheme.
            KeyError: no digest or length.
        """
        breaks = data.get("breaks") or []
        if not isinstance(breaks, list):
            raise ValueError("a term digest's breaks must be a list")
        scheme = _check_scheme(int(str(data.get("scheme", SCHEME_PLAIN))))
        return cls(str(data["digest"]), int(str(data["length"])), tuple(int(b) for b in breaks),
                   scheme)


def _hmac(key: bytes) -> Callable[[str], str]:
    def digest(skeleton: str) -> str:
        return hmac.new(key, skeleton.encode("utf-8"), hashlib.sha256).hexdigest()
    return digest


def digest_terms(terms: Iterable[str], key: bytes, scheme: int = SCHEME
                 ) -> tuple[TermDigest, ...]:
    """The :class:`TermDigest` of each term under ``key``, its skeleton read with ``scheme``
    (repeats folded into one).

    Raises:
        ValueError: a term holds no letter or digit; an unknown scheme.
    """
    sign = _hmac(key)
    out: dict[tuple[str, tuple[int, ...]], TermDigest] = {}
    for term in terms:
        spec = term_spec(term, scheme)
        d = TermDigest(sign(spec.key), spec.length, spec.breaks, scheme)
        out.setdefault((d.digest, d.breaks), d)
    return tuple(out.values())


@dataclass(frozen=True)
class Match:
    """One match: the original span ``[start, end)`` and the number of the term."""

    start: int
    end: int
    term: int


class TermMatcher:
    """Finds, and redacts, the terms of a request in any text (see the module docstring).

    Build it from clear terms (:meth:`from_terms`) or from digests and their key
    (:meth:`from_digests`): both decide the same matches.
    """

    def __init__(self, specs: Sequence[TermSpec], keyer: Callable[[str], str] | None = None
                 ) -> None:
        self.specs = tuple(specs)
        self.clear = keyer is None
        """Whether the specs' keys are the skeletons themselves (clear terms)."""
        self._keyer: Callable[[str], str] = keyer or (lambda skeleton: skeleton)
        self._by_key: dict[int, dict[str, list[int]]] = {}  # per scheme: key -> term numbers
        for number, spec in enumerate(self.specs):
            self._by_key.setdefault(spec.scheme, {}).setdefault(spec.key, []).append(number)
        self._lengths = {scheme: frozenset(self.specs[n].length for ns in keys.values()
                                           for n in ns)
                         for scheme, keys in self._by_key.items()}

    @classmethod
    def from_terms(cls, terms: Iterable[str], scheme: int = SCHEME) -> TermMatcher:
        """A matcher for clear terms, read with ``scheme`` (default: the current one).

        Raises:
            ValueError: a term holds no letter or digit; an unknown scheme.
        """
        specs: list[TermSpec] = []
        for term in terms:
            spec = term_spec(term, scheme)
            if spec not in specs:
                specs.append(spec)
        return cls(specs)

    @classmethod
    def from_digests(cls, digests: Iterable[TermDigest], key: bytes) -> TermMatcher:
        """A matcher for terms kept as digests under ``key`` (each read with its own
        scheme)."""
        return cls([TermSpec(d.digest, d.length, d.breaks, d.scheme) for d in digests],
                   _hmac(key))

    def __bool__(self) -> bool:
        return bool(self.specs)

    def anchors(self) -> list[str] | None:
        """The :func:`ascii_anchor` of every clear term that has one (an ASCII text can hold
        only those terms, and holds their anchor when it does); None for digests."""
        if not self.clear:
            return None
        return sorted({a for s in self.specs if (a := ascii_anchor(s)) is not None})

    def matches(self, text: str) -> list[Match]:
        """Every match in ``text`` (overlapping ones too), by start then longest first: in
        each of its :func:`~graphmem.deletion.escapes.readings` (as written, control
        characters read as invisible ones, JSON escapes decoded: ``Jane\\nRoe``), mapped
        back to the original (whole escapes); none that cuts into an escape of a JSON
        string (``"\\tom"`` holds a tab and ``om``: docs/deletion-terms.md#json-escapes)."""
        if not self.specs or not text:
            return []
        found: set[Match] = set()
        inner: set[int] = set()  # positions inside a decoded escape, past its backslash
        for view, starts, ends in readings(text):
            if starts is not None and ends is not None:
                inner.update(p for a, b in zip(starts, ends, strict=True) if b - a > 1
                             for p in range(a + 1, b))
            for scheme, by_key in self._by_key.items():
                found.update(m if starts is None or ends is None
                             else Match(starts[m.start], ends[m.end - 1], m.term)
                             for m in self._scheme_matches(_cut(view, scheme), by_key,
                                                           self._lengths[scheme]))
        if inner:  # a match as written that starts or ends inside an escape reads letters
            # the escape does not stand for: "\tom" is a tab and "om", not "tom"
            found = {m for m in found if m.start not in inner and m.end not in inner}
        return sorted(found, key=lambda m: (m.start, -m.end, m.term))

    def _scheme_matches(self, p: _Pieces, by_key: dict[str, list[int]],
                        lengths: frozenset[int]) -> list[Match]:
        """The matches of the terms of one scheme (``by_key``) in text ``p`` read with it."""
        n = len(p.kinds)
        longest = max(lengths)
        found: list[Match] = []
        for i in range(n):
            if p.blocked[i] or not self._edge(p, i, start=True):
                continue
            for j in range(i, n):
                if p.blocked[j]:
                    break
                length = p.sk_end[j] - p.sk_start[i]
                if length > longest:
                    break
                if length not in lengths or not self._edge(p, j, start=False):
                    continue
                numbers = by_key.get(self._keyer(p.skeleton[p.sk_start[i]:p.sk_end[j]]))
                for number in numbers or ():
                    if self._breaks_fit(p, i, j, self.specs[number]):
                        found.append(Match(p.spans[i][0], p.spans[j][1], number))
        return found

    @staticmethod
    def _edge(p: _Pieces, k: int, *, start: bool) -> bool:
        other = k - 1 if start else k + 1
        if other < 0 or other >= len(p.kinds):
            return True
        gap = p.gaps[k] if start else p.gaps[other]
        return gap in (_HARD, _BARRIER) or _C in (p.kinds[k], p.kinds[other])

    @staticmethod
    def _breaks_fit(p: _Pieces, i: int, j: int, spec: TermSpec) -> bool:
        joints: set[int] = set()
        base = p.sk_start[i]
        wanted = set(spec.breaks)
        for k in range(i + 1, j + 1):
            gap = p.gaps[k]
            if gap == _BARRIER:
                continue
            at = p.sk_start[k] - base
            joints.add(at)
            if gap == _HARD and at not in wanted and not (p.kinds[k - 1] == _C == p.kinds[k]):
                return False
        return wanted <= joints

    def holds(self, text: str) -> bool:
        """Whether ``text`` holds a term outside ``[REDACTED]`` markers."""
        return bool(self.matches(text))

    def found(self, text: str) -> tuple[int, ...]:
        """The numbers of the terms ``text`` holds, sorted."""
        return tuple(sorted({m.term for m in self.matches(text)}))

    def redact(self, text: str) -> str:
        """``text`` with every match replaced by ``[REDACTED]``, leftmost and longest first;
        every character outside the matched spans stays as it was. A match covers whole
        graphemes, and a grapheme may hold the start of the next word too (a combining Latin
        letter on a Han or Thai letter), so a replacement can make a word edge where there
        was none: the text is redacted again until nothing matches, and ``redact`` is
        idempotent. (A round after the first finds only what a replacement uncovered, so one
        or two more rounds end it; the bound is a guard, and what it left, verification
        reports.)"""
        for _ in range(len(text) + 1):
            done = self._redact_once(text)
            if done == text:
                break
            text = done
        return text

    def _redact_once(self, text: str) -> str:
        out: list[str] = []
        last = 0
        for m in self.matches(text):
            if m.start < last:
                continue
            out.append(text[last:m.start])
            out.append(REDACTION)
            last = m.end
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)
