"""JSON text read with bounds (used by :mod:`graphmem.limits`, which holds the bounds): the
nesting depth and the length of number literals, checked without recursion, so neither a
RecursionError (100,000 nested brackets) nor a bare ValueError (a 5,000-digit number, over
Python's int digit limit) can escape. A value over a bound is a
:class:`~graphmem.errors.ValidationError` naming the top-level field it is under.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graphmem.errors import ValidationError

__all__ = ["loads_json", "number_chars", "scan_json"]


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
        ValidationError: not JSON, nested deeper than ``depth``, or a number longer than
            ``digits``; the message names the top-level field it is under.
    """
    def number(kind: type[int] | type[float]) -> Any:
        def parse(literal: str) -> int | float:
            if len(literal) > digits:
                raise _Refused
            return kind(literal)
        return parse

    try:
        value = json.loads(text, parse_int=number(int), parse_float=number(float))
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not JSON ({exc.msg})") from None
    except (RecursionError, _Refused, ValueError):
        scan_json(text, depth, digits)  # raises, naming the field
        raise ValidationError("not acceptable JSON") from None
    if _depth_over(value, depth):
        scan_json(text, depth, digits)
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
