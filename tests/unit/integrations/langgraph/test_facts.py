"""A search filter compiled to conditions on an item's facts decides exactly what the
Python filter (LangGraph's InMemoryStore semantics) decides, for any value and filter.

The conditions are evaluated here the way ``cypher/langgraph/search.cypher`` evaluates
them (the query itself runs in tests/integration/langgraph/test_conformance.py).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.integrations.langgraph import filters
from graphmem.integrations.langgraph.facts import compile_filter, value_facts
from tests.support.sizes import size

KEYS = st.sampled_from(["a", "b", "c"])
#: Integers past a float's precision (2**53 + 1) or range (10**400) too: equality stays exact,
#: ordering compares as floats (infinity past the range), as the Python filter does.
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                    st.sampled_from([2**53, 2**53 + 1, float(2**53), 10**400, -10**400]),
                    st.sampled_from([0.0, -0.0, 1.0, 2.5, float("nan"), float("inf")]),
                    st.sampled_from(["x", "y", "1", "2.5", "nan", " 3 ", ""]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)
OPERAND = st.one_of(SCALARS, st.lists(SCALARS, max_size=2))
OPERATORS = st.dictionaries(st.sampled_from(sorted(filters.OPERATORS)), OPERAND, min_size=1,
                            max_size=2)
CONDITIONS = st.recursive(st.one_of(OPERAND, OPERATORS),
                          lambda inner: st.dictionaries(KEYS, inner, max_size=2), max_leaves=4)


def holds(conditions: list[dict[str, Any]], facts: dict[str, Any]) -> bool:
    """The query's WHERE over the facts (search.cypher), in Python."""
    def one(c: dict[str, Any]) -> bool:
        if not all(d in facts["lg_facts"] for d in c["dicts"]):
            return False
        if c["op"] == "eq":
            return c["fact"] in facts["lg_facts"]
        if c["op"] == "ne":
            return c["fact"] not in facts["lg_facts"]
        if c["op"] == "false":
            return False
        compare = {"gt": float.__gt__, "gte": float.__ge__, "lt": float.__lt__,
                   "lte": float.__le__}[c["op"]]
        return any(p == c["path"] and compare(n, c["num"])
                   for p, n in zip(facts["lg_num_paths"], facts["lg_nums"], strict=True))
    return all(one(c) for c in conditions)


def reference(value: dict[str, Any], filter_: dict[str, Any]) -> bool | None:
    """The Python filter's answer; None where LangGraph's own would raise (float(None))."""
    try:
        return filters.matches(value, filter_)
    except (TypeError, ValueError):
        return None


#: Random values and filters compared; the full run searches wider (tests/support/sizes.py).
EXAMPLES = size(500, 3000)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=3), st.dictionaries(KEYS, CONDITIONS, max_size=2))
def test_compiled_filters_decide_as_the_python_filter(value: dict[str, Any],
                                                      filter_: dict[str, Any]) -> None:
    conditions = compile_filter(filter_)
    expected = reference(value, filter_)
    if conditions is not None and expected is not None:
        assert holds(conditions, value_facts(value)) is expected, (value, filter_, conditions)


def test_most_filters_are_decided_by_the_query() -> None:
    decided: list[dict[str, Any]] = [
        {"a": 1}, {"a": {"$ne": "x"}}, {"a": {"b": {"$gt": 2}}}, {"a": [1, "x"]},
        {"a": {"$gte": "2.5", "$lt": 9}}, {"a": {}}, {"a": True}]
    for filter_ in decided:
        assert compile_filter(filter_) is not None, filter_
    python: list[dict[str, Any]] = [{"a": None}, {"a": {"$eq": {"b": 1}}}, {"a": [{"b": 1}]},
                                    {"a": {"$ne": None}}, {"a": float("nan")}]
    for filter_ in python:
        assert compile_filter(filter_) is None, filter_


def test_facts_hold_digests_not_text() -> None:
    facts = value_facts({"secret": "the launch code is 0000", "n": {"m": 3}})
    assert not any("launch" in f or "secret" in f for f in facts["lg_facts"])
    assert facts["lg_nums"] == [3.0] and len(facts["lg_num_paths"]) == 1


def test_integers_past_a_float_compare_without_overflow() -> None:
    """A value or operand no float holds is a fact of its own for equality and orders as
    the infinity of its sign (was an OverflowError out of a put)."""
    assert value_facts({"a": 10**400})["lg_nums"] == [float("inf")]
    assert value_facts({"a": 2**53 + 1})["lg_facts"] != value_facts({"a": 2**53})["lg_facts"]
    assert value_facts({"a": 2**53})["lg_facts"] == value_facts({"a": float(2**53)})["lg_facts"]
    conditions = compile_filter({"a": {"$gt": -10**400}})
    assert conditions is not None and holds(conditions, value_facts({"a": 1}))
    assert filters.matches({"a": 10**400}, {"a": {"$gt": 5}})
