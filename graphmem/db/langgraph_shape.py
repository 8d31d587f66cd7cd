"""What the LangGraph store (:mod:`graphmem.integrations.langgraph`) keeps on each item
beside its value, here in :mod:`graphmem.db` so the store and the migration of items written
before (:mod:`graphmem.db.migrations`) compute it with one definition: the item's search
order (:func:`order_key`), and its value as facts a Cypher filter can test, with a
``SearchOp.filter`` compiled to conditions on them (``cypher/langgraph/search.cypher``),
with the semantics of :mod:`graphmem.integrations.langgraph.filters` (LangGraph's
``InMemoryStore``).

Each stored item carries, beside its value:

- ``lg_facts``: digests of ``[path, value]`` for every key path of the value (the value at
  a path compared as Python compares it: ``1 == 1.0 == True``, lists element by element),
  and of ``["dict", path]`` for every path that holds a dict (a nested condition holds only
  under dicts). Digests, not text: the facts never hold the value's words.
- ``lg_num_paths``/``lg_nums``: each path whose value ``float()`` accepts (numbers, booleans,
  numeric strings), with that float: the ordering operators compare as floats.

A condition the facts cannot decide exactly (a comparison with None or NaN, ``$eq`` of a
whole dict, a list holding dicts) makes :func:`compile_filter` return None: the caller then
filters in Python (:func:`graphmem.integrations.langgraph.filters.matches`), never approximately.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from contextlib import suppress
from typing import Any

__all__ = ["as_number", "compile_filter", "order_key", "value_facts"]

#: Digest characters kept (128 bits).
_DIGEST_CHARS = 32
_ORDERING = {"$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte"}
#: Digest characters of a namespace's order key; digits of a zero-padded sequence number.
_ID_HASH_CHARS = 40
_SEQ_DIGITS = 16


def order_key(scope_key: str, chain_seq: int | None = None, seq: int | None = None) -> str:
    """The search order of an item (``r.lg_order``, range-indexed: ``langgraph/search``):
    a digest of its namespace Scope's key (the Scope's ``langgraph_key``, what every item of
    the namespace starts with), then the key's first sequence number and the version's, both
    zero-padded. Without the numbers: the Scope's ``langgraph_key``. A digest, not the
    labels: no index holds a namespace's text."""
    digest = hashlib.sha256(scope_key.encode("utf-8")).hexdigest()[:_ID_HASH_CHARS] + ":"
    if chain_seq is None or seq is None:
        return digest
    return f"{digest}{chain_seq:0{_SEQ_DIGITS}d}:{seq:0{_SEQ_DIGITS}d}"


def _digest(payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)  # NaN never gets here
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]


def _exact(value: int) -> bool:
    """Whether a float equals the integer ``value`` exactly."""
    try:
        return float(value) == value
    except OverflowError:
        return False


def as_number(value: Any) -> float:
    """``float(value)``, with an integer past a float's range as the infinity of its sign
    (the ordering operators then still order it against every finite number).

    Raises:
        TypeError, ValueError: not a number (as ``float`` raises).
    """
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


class _Undecidable(Exception):
    """A value or condition the facts cannot compare exactly."""


def _normal(value: Any) -> Any:
    """``value`` in the form equal values share (numbers and booleans as floats).

    Raises:
        _Undecidable: NaN (never equal to itself) or a dict (compared whole only by ``$eq``).
    """
    if isinstance(value, int) and not isinstance(value, bool) and not _exact(value):
        # no float equals it: a form no float and no other value has (user dicts never get
        # here), so equality stays exact for integers past a float's precision or range
        return {"int": str(value)}
    if isinstance(value, bool | int | float):
        number = float(value)
        if math.isnan(number):
            raise _Undecidable
        return number + 0.0  # -0.0 == 0.0
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    if isinstance(value, Mapping):
        raise _Undecidable
    return value


def _eq_fact(path: list[str], value: Any) -> str:
    return _digest([path, _normal(value)])


def _dict_fact(path: list[str]) -> str:
    return _digest(["dict", path])


def _walk(value: Mapping[str, Any], path: list[str]) -> Iterator[tuple[list[str], Any]]:
    for key, inner in value.items():
        here = [*path, str(key)]
        yield here, inner
        if isinstance(inner, Mapping):
            yield from _walk(inner, here)


def value_facts(value: Mapping[str, Any]) -> dict[str, Any]:
    """The properties a stored item's value is filtered by: ``lg_facts`` (digests),
    ``lg_num_paths`` (path digests) and ``lg_nums`` (floats), see the module docstring."""
    facts: list[str] = []
    num_paths: list[str] = []
    nums: list[float] = []
    for path, inner in _walk(value, []):
        if isinstance(inner, Mapping):
            facts.append(_dict_fact(path))
            continue
        with suppress(_Undecidable):  # NaN, or a list holding dicts: never equal by facts
            facts.append(_eq_fact(path, inner))
        try:
            number = as_number(inner)
        except (TypeError, ValueError):
            continue
        num_paths.append(_digest(path))
        nums.append(number)
    return {"lg_facts": sorted(set(facts)), "lg_num_paths": num_paths, "lg_nums": nums}


def compile_filter(filter_: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
    """A checked filter (:func:`graphmem.integrations.langgraph.filters.check_filter`) as
    conditions for ``langgraph/search``: ``[{op, fact, path, num, dicts}]`` (``op``: eq,
    ne, gt, gte, lt, lte, or false: never holds); every condition must hold. None: the
    filter is one the facts cannot decide exactly (filter in Python)."""
    conditions: list[dict[str, Any]] = []
    try:
        for key, condition in (filter_ or {}).items():
            _compile(condition, [str(key)], [], conditions)
    except _Undecidable:
        return None
    return conditions


def _compile(condition: Any, path: list[str], dicts: list[str],
             out: list[dict[str, Any]]) -> None:
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            for op, operand in condition.items():
                out.append(_operator(op, operand, path, dicts))
            return
        # a nested condition: the value at `path` must be a dict, then each inner one holds
        out.append(_cond("eq", _dict_fact(path), path, dicts))
        inner_dicts = [*dicts, _dict_fact(path)]
        for key, inner in condition.items():
            _compile(inner, [*path, str(key)], inner_dicts, out)
        return
    if isinstance(condition, list | tuple) and _holds_dicts(condition):
        raise _Undecidable  # element-wise nested conditions: filtered in Python
    out.append(_operator("$eq", condition, path, dicts))


def _holds_dicts(values: Any) -> bool:
    return any(isinstance(v, Mapping) or (isinstance(v, list | tuple) and _holds_dicts(v))
               for v in values)


def _operator(op: str, operand: Any, path: list[str], dicts: list[str]) -> dict[str, Any]:
    if op in ("$eq", "$ne"):
        if operand is None or isinstance(operand, Mapping):
            raise _Undecidable  # a missing value equals None; dicts compare whole
        if isinstance(operand, list | tuple) and _holds_dicts(operand):
            raise _Undecidable
        return _cond("eq" if op == "$eq" else "ne", _eq_fact(path, operand), path, dicts)
    try:
        number = as_number(operand)
    except (TypeError, ValueError):
        return _cond("false", None, path, dicts)
    if math.isnan(number):
        return _cond("false", None, path, dicts)
    return {**_cond(_ORDERING[op], None, path, dicts), "num": number}


def _cond(op: str, fact: str | None, path: list[str], dicts: list[str]) -> dict[str, Any]:
    return {"op": op, "fact": fact, "path": _digest(path), "num": None, "dicts": list(dicts)}
