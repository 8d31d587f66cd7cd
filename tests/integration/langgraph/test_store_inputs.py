"""GraphmemStore refuses a put value or a search page it cannot keep or answer with a
``ValidationError`` naming what is wrong, and writes nothing: values whose keys collide once
written as JSON (``{1: "a", "1": "b"}``: a raw TypeError while the store sorted them, or one of
the two lost), that hold a lone surrogate (a raw
UnicodeEncodeError) or are nested deeper than JSON input may be (a raw RecursionError); a
``limit`` or ``offset`` past Neo4j's 64-bit integers or below 0 (a raw OverflowError)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import PutOp, SearchOp

from graphmem import Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.fields import MAX_INT64
from graphmem.integrations.langgraph import GraphmemStore

NS = ("users", "u1")


@pytest.fixture()
def store(memory: Memory) -> GraphmemStore:
    return GraphmemStore(memory, principal=Principal(tenants=frozenset({"acme"})))


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    inner = value
    for _ in range(levels - 1):
        inner["a"] = {}
        inner = inner["a"]
    return value


BAD_VALUES: dict[str, dict[Any, Any]] = {
    "keys colliding as JSON": {1: "a", "1": "b"},
    "nested key collision": {"x": {True: 1, "true": 2}},
    "lone surrogate": {"text": "caf\udce9"},
    "lone surrogate in a key": {"caf\udce9": "x"},
    "nested 5,000 levels": nested(5000),
    "nested past json_depth": nested(65),
}


@pytest.mark.parametrize("name", list(BAD_VALUES))
def test_a_value_it_cannot_keep_is_a_validation_error(store: GraphmemStore, name: str
                                                      ) -> None:
    with pytest.raises(ValidationError, match="put value"):
        store.put(NS, "k", BAD_VALUES[name])
    assert store.get(NS, "k") is None


def test_a_value_is_kept_as_it_reads_back(store: GraphmemStore) -> None:
    """Integer keys become the strings JSON makes of them, as a JSON store (PostgresStore)
    keeps them: what search filters and text fields see is what get returns."""
    mixed: dict[Any, Any] = {1: "one", "n": {2: "two"}, "b": 3}  # keys of mixed types: a
    store.put(NS, "k", mixed)  # raw TypeError while the store sorted them
    item = store.get(NS, "k")
    assert item is not None and item.value == {"1": "one", "n": {"2": "two"}, "b": 3}
    assert [i.key for i in store.search(("users",), filter={"1": "one"})] == ["k"]
    store.put(NS, "deep", nested(store_of(store.memory).limits.json_depth))
    assert store.get(NS, "deep") is not None


@pytest.mark.parametrize("page", [{"limit": 2**70}, {"offset": 2**63}, {"limit": -1},
                                  {"offset": -3}, {"limit": 1.5}, {"limit": True},
                                  {"limit": MAX_INT64 + 1}])
def test_a_search_page_out_of_range_is_a_validation_error(store: GraphmemStore,
                                                          page: dict[str, Any]) -> None:
    store.put(NS, "k", {"v": 1})
    with pytest.raises(ValidationError, match=r"limit|offset"):
        store.batch([SearchOp(("users",), **{"limit": 10, "offset": 0, **page})])
    with pytest.raises(ValidationError, match=r"limit|offset"):
        store.batch([SearchOp(("users",), query="v", **{"limit": 10, "offset": 0, **page})])


def test_the_largest_page_is_answered(store: GraphmemStore) -> None:
    store.put(NS, "k", {"v": 1})
    assert [i.key for i in store.search(("users",), limit=MAX_INT64)] == ["k"]
    assert store.search(("users",), offset=MAX_INT64 - 10, limit=10) == []


BAD_FILTERS: dict[str, dict[Any, Any]] = {
    "lone surrogate": {"v": "caf\udce9"},
    "lone surrogate in an operator's operand": {"v": {"$ne": "caf\udce9"}},
    "lone surrogate in a key": {"caf\udce9": 1},
    "bytes": {"v": b"x"},
    "a set": {"v": {1, 2}},
    "an object": {"v": object()},
    "nested 5,000 levels": {"v": nested(5000)},
    "nested past json_depth": {"v": nested(65)},
    "a 5,000-digit number": {"v": 10**4999},
}


@pytest.mark.parametrize("name", list(BAD_FILTERS))
def test_a_filter_it_cannot_compare_is_a_validation_error(store: GraphmemStore, name: str
                                                          ) -> None:
    """Each was a raw UnicodeEncodeError, TypeError or RecursionError from the filter's
    digest, after the batch's checks had passed (its puts then were never applied)."""
    store.put(NS, "k", {"v": 1})
    with pytest.raises(ValidationError, match="search filter"):
        store.search(("users",), filter=BAD_FILTERS[name])
    with pytest.raises(ValidationError, match="search filter"):
        store.batch([PutOp(NS, "k2", {"v": 2}),
                     SearchOp(("users",), filter=BAD_FILTERS[name], limit=10, offset=0)])
    assert store.get(NS, "k2") is None  # nothing of the refused batch is written


@pytest.mark.parametrize("query", [1, 1.5, b"v", ["v"], {"v": 1}, ("v",), True])
def test_a_query_that_is_not_text_is_a_validation_error(store: GraphmemStore, query: Any
                                                        ) -> None:
    """Each was a raw AttributeError or TypeError from the ranker's tokenizer."""
    store.put(NS, "k", {"v": 1})
    with pytest.raises(ValidationError, match="search query"):
        store.search(("users",), query=query)
    with pytest.raises(ValidationError, match="search query"):
        store.batch([PutOp(NS, "k2", {"v": 2}),
                     SearchOp(("users",), query=query, limit=10, offset=0)])
    assert store.get(NS, "k2") is None
