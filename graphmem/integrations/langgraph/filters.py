"""``SearchOp.filter`` with the semantics of LangGraph's ``InMemoryStore``.

A filter maps top-level value keys to a condition: a plain value (equality, lists and
nested dicts compared element by element), or a dict of operators ``$eq``, ``$ne``,
``$gt``, ``$gte``, ``$lt``, ``$lte``. The ordering operators compare as floats, like
the reference. Where the reference would crash on a value that is missing or not a
number (``float(None)``), this filter does not match it, as PostgresStore does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphmem.db.langgraph_shape import as_number
from graphmem.errors import ValidationError
from graphmem.fields import MAX_INT64
from graphmem.limits import DEFAULT_LIMITS, InputLimits

__all__ = ["OPERATORS", "check_filter", "check_page", "check_query", "matches"]

OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


def check_filter(filter_: Mapping[str, Any] | None,
                 limits: InputLimits = DEFAULT_LIMITS) -> None:
    """Reject a filter the store cannot compare, before anything is read or written: its
    conditions are compared as JSON values (an item's value is JSON), so it must be one.

    Args:
        filter_: ``SearchOp.filter`` (None: no filter). limits: the bounds of JSON input
            (``json_depth``, ``number_chars``), as for a put value.

    Raises:
        ValidationError: the filter is not a dict, uses an unknown ``$`` operator, is nested
            deeper or holds a longer number than ``limits`` allow, holds a lone surrogate,
            or a value JSON has no form for (bytes, a set, an object).
    """
    if filter_ is None:
        return
    if not isinstance(filter_, Mapping):
        raise ValidationError("a search filter must be a dict")
    limits.check_json_value("a search filter", dict(filter_))
    try:
        json.dumps(dict(filter_), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("a search filter must be valid Unicode text (it holds a lone "
                              "surrogate)") from None
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"a search filter must hold JSON values: {exc}") from None
    for condition in filter_.values():
        _check_condition(condition)


def check_query(query: object) -> None:
    """Reject a search query that is not text (the ranker tokenizes it), before anything is
    read or written.

    Raises:
        ValidationError: ``query`` is neither a string nor None.
    """
    if query is not None and not isinstance(query, str):
        raise ValidationError(f"a search query must be a string or None, got "
                              f"{type(query).__name__}")


def check_page(limit: object, offset: object) -> None:
    """Reject a search page Neo4j cannot take, before anything is read.

    Args:
        limit: how many items, offset: how many to skip; each an int from 0 to
            :data:`~graphmem.fields.MAX_INT64` (together at most that: Neo4j adds them).

    Raises:
        ValidationError: either is not such an int (a larger one was a raw OverflowError
            from the driver; a float, a bool or a negative one a StoreError).
    """
    for name, value in (("limit", limit), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT64:
            got = (("a negative one" if value < 0 else "a larger one")
                   if isinstance(value, int) and not isinstance(value, bool)
                   else type(value).__name__)  # no repr: an int of 5,000 digits has none
            raise ValidationError(f"a search {name} must be an integer from 0 to {MAX_INT64}, "
                                  f"got {got}")
    assert isinstance(limit, int) and isinstance(offset, int)
    if limit + offset > MAX_INT64:
        raise ValidationError(f"a search limit plus its offset must be at most {MAX_INT64}")


def _check_condition(condition: Any) -> None:
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            unknown = sorted(str(k) for k in condition if k not in OPERATORS)
            if unknown:
                raise ValidationError(f"unsupported filter operators: {unknown}; "
                                      f"supported: {sorted(OPERATORS)}")
        else:
            for inner in condition.values():
                _check_condition(inner)
    elif isinstance(condition, list | tuple):
        for inner in condition:
            _check_condition(inner)


def matches(value: Mapping[str, Any], filter_: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes the filter (every condition holds)."""
    if not filter_:
        return True
    return all(_compare(value.get(key), condition) for key, condition in filter_.items())


def _compare(item_value: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            return all(_apply(item_value, op, operand) for op, operand in condition.items())
        if not isinstance(item_value, Mapping):
            return False
        return all(_compare(item_value.get(k), v) for k, v in condition.items())
    if isinstance(condition, list | tuple):
        return (isinstance(item_value, list | tuple) and len(item_value) == len(condition)
                and all(_compare(i, c) for i, c in zip(item_value, condition, strict=True)))
    return bool(item_value == condition)


def _apply(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    try:
        left, right = as_number(value), as_number(operand)
    except (TypeError, ValueError):
        return False
    if operator == "$gt":
        return left > right
    if operator == "$gte":
        return left >= right
    if operator == "$lt":
        return left < right
    if operator == "$lte":
        return left <= right
    raise ValidationError(f"unsupported filter operator {operator!r}")
