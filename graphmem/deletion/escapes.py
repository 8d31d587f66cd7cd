"""The other readings of a text the term matcher tries besides the text as written
(:func:`readings`): JSON string escapes read as the characters they stand for
(docs/deletion-terms.md#json-escapes), and control characters read as invisible ones
(docs/deletion-terms.md#control-characters). Pure: no database, no I/O.

A record's content may be JSON text: a LangGraph item's content is its value as JSON (a
newline in a value is ``\\n`` there), and an agent that stores ``json.dumps(obj)`` writes
every non-ASCII letter as ``\\uXXXX``. Read as written, ``Jane\\nRoe`` is the word ``nRoe``
after a backslash and ``\\u0418\\u0432\\u0430\\u043d`` no letters at all, so a request for
``Jane Roe`` or ``Иван`` passed over them. :func:`unescaped` gives the text with the escapes
inside its JSON string literals (``"..."``) decoded, and for each of its characters the span
of the original it comes from, so a match in it maps back to whole escapes. Backslashes
outside a string literal (a Windows path in prose, ``C:\\new``) are text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["Reading", "readings", "unescaped"]

Reading = tuple[str, list[int] | None, list[int] | None]
"""A text as the matcher reads it, and for each of its characters the start and the end of
the original span it comes from (None, None: the same positions)."""

_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
"""The control characters (Cc) Python's ``str.isspace`` does not count as whitespace."""
_INVISIBLE = "\u200b"  # a zero-width space: between a term's words a separator, inside one
# of its words skipped (docs/deletion-terms.md, "Separators")

_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_ESCAPE = re.compile(r'\\(?:u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|u([0-9a-f]{4})'
                     r'|(["\\/bfnrt]))', re.IGNORECASE)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
           "t": "\t"}


def _decoded(escape: re.Match[str]) -> str | None:
    """The character an escape stands for; None for a lone surrogate (kept as written)."""
    high, low, code, simple = escape.groups()
    if high is not None:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00)
    if simple is not None:
        return _SIMPLE[simple]
    char = chr(int(code, 16))
    return None if 0xD800 <= ord(char) <= 0xDFFF else char


def _literals(text: str) -> Iterator[re.Match[str]]:
    """The JSON string literals of ``text``, left to right, in linear time: where a literal
    opened at a quote does not close, no later quote opens one either (each is escaped in
    that scan, which reads the rest of the text from it in step), so the search ends
    there. (``finditer`` tried again from every such quote: a quote followed by 20,000
    escaped ones took seconds, 60 kB of ``"a\\`` half a minute.)"""
    at = text.find('"')
    while at >= 0:
        literal = _LITERAL.match(text, at)
        if literal is None:
            return
        yield literal
        at = text.find('"', literal.end())


def unescaped(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with the escapes of its JSON string literals decoded.

    Args:
        text: any text.

    Returns:
        ``(decoded, starts, ends)``: ``text[starts[k]:ends[k]]`` is what the ``k``-th
        character of ``decoded`` comes from (itself, or a whole escape); None when ``text``
        holds no escape to decode.
    """
    if "\\" not in text:
        return None
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = 0
    for literal in _literals(text):
        if text.find("\\", literal.start(), literal.end()) < 0:
            continue
        for escape in _ESCAPE.finditer(text, literal.start(), literal.end()):
            char = _decoded(escape)
            if char is None:
                continue
            chars.append(text[last:escape.start()])
            starts.extend(range(last, escape.start()))
            ends.extend(range(last + 1, escape.start() + 1))
            chars.append(char)
            starts.append(escape.start())
            ends.append(escape.end())
            last = escape.end()
    if last == 0:
        return None
    chars.append(text[last:])
    starts.extend(range(last, len(text)))
    ends.extend(range(last + 1, len(text) + 1))
    return "".join(chars), starts, ends


def readings(text: str) -> list[Reading]:
    """``text`` as written, then (when it holds any) with its control characters read as
    zero-width spaces (``Jane\\x00Roe``, a NUL-padded field, is ``Jane Roe``), then with
    the escapes of its JSON string literals decoded (:func:`unescaped`, controls read the
    same way).

    Args:
        text: any text.
    """
    found: list[Reading] = [(text, None, None)]
    if _CONTROLS.search(text):
        found.append((_CONTROLS.sub(_INVISIBLE, text), None, None))
    if (view := unescaped(text)) is not None:
        decoded, starts, ends = view
        found.append((_CONTROLS.sub(_INVISIBLE, decoded), starts, ends))
    return found
