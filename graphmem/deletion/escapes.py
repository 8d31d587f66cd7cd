"""JSON string escapes read as the characters they stand for, for the term matcher
(docs/deletion-terms.md#json-escapes). Pure: no database, no I/O.

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

__all__ = ["unescaped"]

_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
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
    for literal in _LITERAL.finditer(text):
        if "\\" not in literal.group():
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
