"""The LangGraph ``BaseStore`` contract, written out as assertions, run with the same
assertions on LangGraph's ``InMemoryStore`` and on ``GraphmemStore`` over the real Neo4j.

Each test states what the contract says (put/get/delete, every filter operator, nested
filters, ``query``, paging, ``list_namespaces`` with its conditions, TTL, the order of a
batch's results, ``index=False``, the async twins); the expected values are written here,
not read from either store. Where graphmem departs from the reference on purpose, the test
says so through ``DIFFERENCES`` (tests/support/langgraph_contract.py, also listed in
docs/integrations/langgraph.md, "Deliberate differences"), never by a quiet branch. Semantic
search (``index=``) has its own half: test_conformance_vectors.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from graphmem import Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.langgraph_contract import DIFFERENCES, differs, keys

TENANTS = frozenset({"docs", "users", "a", "b", "x", "t"})


@pytest.fixture(params=["InMemoryStore", "GraphmemStore"])
def store(request: pytest.FixtureRequest) -> Iterator[BaseStore]:
    """The store under the contract: the reference, or graphmem over a fresh Neo4j store."""
    if request.param == "InMemoryStore":
        yield InMemoryStore()
        return
    memory: Memory = request.getfixturevalue("memory")
    yield GraphmemStore(memory, principal=Principal(tenants=TENANTS))


# -- put / get / delete ---------------------------------------------------------------

def test_put_get_delete(store: BaseStore) -> None:
    ns = ("users", "alice")
    assert store.get(ns, "k") is None
    store.put(ns, "k", {"text": "tea", "n": 1})
    item = store.get(ns, "k")
    assert isinstance(item, Item)
    assert (item.namespace, item.key, item.value) == (ns, "k", {"text": "tea", "n": 1})
    assert item.created_at.tzinfo is not None and item.updated_at >= item.created_at
    assert store.get(("users",), "k") is None  # a key lives in its exact namespace
    assert store.get(ns, "other") is None
    store.put(ns, "k", {"text": "coffee"})
    again = store.get(ns, "k")
    assert again is not None and again.value == {"text": "coffee"}
    assert again.updated_at >= item.updated_at
    if differs(store, "created_at_kept"):
        assert again.created_at == item.created_at
    store.delete(ns, "k")
    assert store.get(ns, "k") is None
    store.delete(ns, "k")  # deleting a missing key is a no-op
    store.delete(("users", "nobody"), "k")
    store.put(ns, "k", {"text": "back"})
    back = store.get(ns, "k")
    assert back is not None and back.value == {"text": "back"}


def test_put_rejects_bad_namespaces(store: BaseStore) -> None:
    for namespace in [(), ("a.b",), ("",), ("langgraph",)]:
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "k", {"v": 1})


def test_values_round_trip_exactly(store: BaseStore) -> None:
    value = {"z": 1, "a": [1, 2.5, None, {"b": "ü\n"}], "m": {"y": True, "x": "日本"}}
    store.put(("docs",), "k", value)
    item = store.get(("docs",), "k")
    assert item is not None and item.value == value and list(item.value) == ["z", "a", "m"]


# -- search: prefix, filters, query, paging ---------------------------------------------

ROWS: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
    (("docs", "c"), "i0", {"color": "red", "score": 5, "n": 1, "flag": True, "tags": ["a", "b"],
                           "meta": {"lang": "en", "depth": 2, "tags": ["x", "y"]}}),
    (("docs", "d"), "i1", {"color": "blue", "score": 4.5, "n": "2.5", "flag": False, "tags": ["a"],
                           "meta": {"lang": "de", "depth": 1}}),
    (("docs", "c"), "i2", {"color": "red", "score": 1, "n": 3, "flag": True, "tags": ["a", "b"],
                           "meta": {"lang": "en", "depth": 0}}),
    (("docs", "d"), "i3", {"color": "green", "score": 9.5, "flag": 1, "tags": ["b", "a"],
                           "meta": {"lang": "en", "depth": 5, "tags": ["x"]}, "n": "7"}),
    (("docs", "d", "e"), "i4", {"color": "red", "score": 0, "n": "0", "meta": "flat"}),
]
#: Results come namespace by namespace (in the order each was first written to), and in
#: each, key by key in the order each key was first put.
ORDER = ["i0", "i2", "i1", "i3", "i4"]

#: (filter, the keys it keeps, in ORDER)
FILTERS: list[tuple[dict[str, Any], list[str]]] = [
    ({"color": "red"}, ["i0", "i2", "i4"]),
    ({"color": {"$eq": "blue"}}, ["i1"]),
    ({"color": {"$ne": "red"}}, ["i1", "i3"]),
    ({"score": {"$gt": 4.99}}, ["i0", "i3"]),
    ({"score": {"$gte": 5}}, ["i0", "i3"]),
    ({"score": {"$lt": 5}}, ["i2", "i1", "i4"]),
    ({"score": {"$lte": 5, "$gt": 1}}, ["i0", "i1"]),
    ({"score": {"$gte": 3.0}, "color": "red"}, ["i0"]),
    ({"score": 5.0}, ["i0"]),  # numbers compare as numbers
    ({"n": {"$gt": 2.6}}, ["i2", "i3"]),  # ordering operators compare as floats: "7" is 7
    ({"meta": {"lang": "en"}}, ["i0", "i2", "i3"]),
    ({"meta": {"lang": "en", "tags": ["x", "y"]}}, ["i0"]),
    ({"meta": {"depth": {"$gt": 1}}}, ["i0", "i3"]),
    ({"meta": {"depth": {"$ne": 1}}}, ["i0", "i2", "i3"]),  # "flat" is not a dict
    ({"meta": {"$eq": {"lang": "de", "depth": 1}}}, ["i1"]),  # $eq compares whole values
    ({"tags": ["a", "b"]}, ["i0", "i2"]),  # lists compare element by element, in order
    ({"flag": True}, ["i0", "i2", "i3"]),  # 1 == True, as in Python
    ({"flag": False}, ["i1"]),
    ({"missing": {"$ne": 1}}, ORDER),
    ({"color": "nope"}, []),
    ({}, ORDER),
]


def _fill(store: BaseStore) -> None:
    for ns, key, value in ROWS:
        store.put(ns, key, value)


@pytest.mark.parametrize(("filter_", "expected"), FILTERS, ids=[str(f) for f, _ in FILTERS])
def test_search_filters(store: BaseStore, filter_: dict[str, Any], expected: list[str]) -> None:
    _fill(store)
    found = store.search(("docs",), filter=filter_, limit=50)
    assert keys(found) == expected
    assert all(isinstance(i, SearchItem) for i in found)
    assert keys(store.search(("docs", "d"), filter=filter_, limit=50)) == [
        k for k in expected if k in ("i1", "i3", "i4")]


def test_search_covers_the_prefix_and_deeper_namespaces_only(store: BaseStore) -> None:
    for ns in [("users",), ("users", "a"), ("users", "a", "n"), ("users", "ab"), ("b",)]:
        store.put(ns, "k", {"ns": list(ns)})
    assert [i.namespace for i in store.search(("users",))] == [
        ("users",), ("users", "a"), ("users", "a", "n"), ("users", "ab")]
    assert [i.namespace for i in store.search(("users", "a"))] == [
        ("users", "a"), ("users", "a", "n")]  # ("users", "a") never matches ("users", "ab")
    assert store.search(("users", "zz")) == []
    everything = [i.namespace for i in store.search(())]
    if differs(store, "tenants_sorted"):
        assert everything == [
            ("b",), ("users",), ("users", "a"), ("users", "a", "n"), ("users", "ab")]
    else:
        assert everything == [
            ("users",), ("users", "a"), ("users", "a", "n"), ("users", "ab"), ("b",)]


def test_search_order_keeps_an_overwritten_keys_place(store: BaseStore) -> None:
    ns = ("docs",)
    for key in ("k1", "k2", "k3"):
        store.put(ns, key, {"v": key})
    store.put(ns, "k1", {"v": "new"})  # an overwrite keeps its place
    assert keys(store.search(ns)) == ["k1", "k2", "k3"]
    store.delete(ns, "k2")
    store.put(ns, "k2", {"v": "again"})  # a re-put after a delete goes last
    assert keys(store.search(ns)) == ["k1", "k3", "k2"]


def test_search_paging(store: BaseStore) -> None:
    for i in range(7):
        store.put(("docs", f"n{i % 3}"), f"k{i}", {"i": i, "even": i % 2 == 0})
    whole = keys(store.search(("docs",), limit=100))
    assert whole == ["k0", "k3", "k6", "k1", "k4", "k2", "k5"]
    pages = [keys(store.search(("docs",), limit=3, offset=o)) for o in (0, 3, 6, 9)]
    assert pages == [whole[0:3], whole[3:6], whole[6:7], []]
    assert keys(store.search(("docs",), limit=1, offset=4)) == [whole[4]]
    assert store.search(("docs",), limit=0) == []
    assert len(store.search(("docs",))) == 7  # the default limit is 10
    assert keys(store.search(("docs",), filter={"even": True}, limit=2, offset=1)) == [
        "k6", "k4"]


def test_search_with_a_query(store: BaseStore) -> None:
    ns = ("docs",)
    store.put(ns, "tea", {"text": "green tea every morning"})
    store.put(ns, "bike", {"text": "a red bicycle for work"})
    store.put(ns, "cat", {"text": "a cat called Miso", "pet": True})
    found = store.search(ns, query="red bicycle", limit=2)
    assert len(found) == 2 and all(isinstance(i, SearchItem) for i in found)
    assert keys(store.search(ns, query="red bicycle", filter={"pet": True})) == ["cat"]
    if differs(store, "query_ranked_without_index"):
        assert found[0].key == "bike" and found[0].score is not None
    else:
        assert keys(found) == ["tea", "bike"] and found[0].score is None


# -- list_namespaces ------------------------------------------------------------------

NAMESPACES = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"),
              ("a", "c", "f"), ("b", "a", "f"), ("users", "123"), ("users", "456", "s"),
              ("x", "v1"), ("x", "y", "v1")]


def test_list_namespaces(store: BaseStore) -> None:
    for ns in reversed(NAMESPACES):
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == sorted(NAMESPACES)
    assert store.list_namespaces(prefix=("a", "b")) == [
        ("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [
        ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [
        ("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("*", "v1")) == [("x", "v1"), ("x", "y", "v1")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("b",), ("users",), ("x",)]
    assert store.list_namespaces(max_depth=2, limit=3, offset=2) == [
        ("b", "a"), ("users", "123"), ("users", "456")]
    assert store.list_namespaces(limit=2, offset=8) == [("x", "v1"), ("x", "y", "v1")]
    assert store.list_namespaces(prefix=("a", "b", "c", "d")) == []
    assert store.batch([ListNamespacesOp(match_conditions=(
        MatchCondition("prefix", ("a", "*")), MatchCondition("suffix", ("d", "*"))))]) == [[
            ("a", "b", "d", "e"), ("a", "b", "d", "i")]]


def test_an_emptied_namespace(store: BaseStore) -> None:
    store.put(("x", "gone"), "k", {"v": 1})
    store.put(("x", "kept"), "k", {"v": 1})
    store.delete(("x", "gone"), "k")
    listed = store.list_namespaces(prefix=("x",))
    if differs(store, "listed_when_live"):
        assert listed == [("x", "kept")]
    else:
        assert listed == [("x", "gone"), ("x", "kept")]


# -- TTL ------------------------------------------------------------------------------

class _Clock:
    """A settable clock for the store under test (graphmem reads its store's clock)."""

    def __init__(self, store: BaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = datetime(2031, 1, 1, tzinfo=UTC)
        if isinstance(store, GraphmemStore):
            monkeypatch.setattr(store_of(store.memory), "clock", lambda: self.now)

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


def test_ttl(store: BaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
    if not store.supports_ttl:  # the contract: a TTL on a store without TTLs is refused
        with pytest.raises(NotImplementedError):
            store.put(("t",), "k", {"v": 1}, ttl=5)
        return
    clock = _Clock(store, monkeypatch)
    store.put(("t",), "short", {"v": 1}, ttl=10)
    store.put(("t",), "forever", {"v": 2})
    clock.advance(9)
    assert store.get(("t",), "short", refresh_ttl=False) is not None
    clock.advance(1.5)
    assert differs(store, "expired_never_returned")
    assert store.get(("t",), "short") is None
    assert keys(store.search(("t",))) == ["forever"]
    store.delete(("t",), "forever")
    assert store.list_namespaces(prefix=("t",)) == []


def test_omit_expired_false_is_refused(memory: Memory) -> None:
    assert "omit_expired_false_refused" in DIFFERENCES
    principal = Principal(tenants=TENANTS)
    with pytest.raises(ValidationError):
        GraphmemStore(memory, principal=principal, ttl_config={"omit_expired": False})
    GraphmemStore(memory, principal=principal, ttl_config={"omit_expired": True})


# -- batch ----------------------------------------------------------------------------

def test_batch_results_come_in_op_order_reads_before_puts(store: BaseStore) -> None:
    store.put(("docs",), "old", {"v": 0})
    first = store.batch([
        PutOp(("docs",), "a", {"v": 1}),
        GetOp(("docs",), "a"),  # reads see the store as it was before the batch
        GetOp(("docs",), "old"),
        SearchOp(("docs",)),
        ListNamespacesOp(),
        PutOp(("docs", "sub"), "b", {"v": 2}),
        PutOp(("docs",), "a", {"v": 3}),  # the last put of a key wins
        PutOp(("docs",), "old", None),
        PutOp(("docs",), "c", {"v": 4}),
    ])
    assert first[0] is None and first[1] is None
    assert isinstance(first[2], Item) and first[2].value == {"v": 0}
    assert isinstance(first[3], list) and keys(first[3]) == ["old"]
    assert first[4] == [("docs",)] and first[5:] == [None, None, None, None]
    second = store.batch([GetOp(("docs",), "a"), GetOp(("docs",), "old"), SearchOp(("docs",)),
                          ListNamespacesOp(), GetOp(("docs", "sub"), "b")])
    assert isinstance(second[0], Item) and second[0].value == {"v": 3}
    assert second[1] is None
    assert isinstance(second[2], list) and keys(second[2]) == ["a", "c", "b"]
    assert second[3] == [("docs",), ("docs", "sub")]
    assert isinstance(second[4], Item) and second[4].value == {"v": 2}


def test_put_with_index_false_is_stored_and_found(store: BaseStore) -> None:
    store.put(("docs",), "plain", {"text": "not embedded"}, index=False)
    store.put(("docs",), "listed", {"text": "indexed", "other": "x"}, index=["text"])
    item = store.get(("docs",), "plain")
    assert item is not None and item.value == {"text": "not embedded"}
    assert keys(store.search(("docs",), filter={"text": "not embedded"})) == ["plain"]
    assert keys(store.search(("docs",))) == ["plain", "listed"]


# -- async ----------------------------------------------------------------------------

def test_async_twins(store: BaseStore) -> None:
    async def run() -> None:
        ns = ("users", "a")
        await store.aput(ns, "k", {"text": "hello"})
        await store.aput((*ns, "deep"), "k", {"text": "deeper"})
        await store.aput(ns, "k", {"text": "hello again"})
        item = await store.aget(ns, "k")
        assert item is not None and item.value == {"text": "hello again"}
        found = await store.asearch(("users",), filter={"text": "deeper"})
        assert [i.namespace for i in found] == [(*ns, "deep")]
        assert await store.alist_namespaces(prefix=("users",)) == [ns, (*ns, "deep")]
        await store.adelete(ns, "k")
        assert await store.aget(ns, "k") is None
        assert keys(await store.asearch(("users",))) == ["k"]
        results = await store.abatch([GetOp((*ns, "deep"), "k"), GetOp(ns, "k"),
                                      PutOp(ns, "n", {"v": 1}), SearchOp(ns)])
        assert isinstance(results[0], Item) and results[1:3] == [None, None]
        assert isinstance(results[3], list) and keys(results[3]) == ["k"]
        many = await asyncio.gather(*(store.aput(ns, f"c{i}", {"i": i}) for i in range(8)))
        assert many == [None] * 8
        assert sorted(keys(await store.asearch(ns, limit=20))) == sorted(
            ["k", "n", *(f"c{i}" for i in range(8))])  # k: in the deeper namespace

    asyncio.run(run())


def test_async_concurrent_calls_answer_in_op_order(store: BaseStore) -> None:
    ns, other = ("docs", "a"), ("docs", "b")

    async def run() -> list[Any]:
        await asyncio.gather(*(store.aput(ns, f"k{i}", {"i": i, "even": i % 2 == 0})
                               for i in range(12)))
        return await asyncio.gather(  # no read here covers what a put here writes
            store.aget(ns, "k3"), store.asearch(ns, filter={"even": True}, limit=3),
            store.alist_namespaces(prefix=("docs",)), store.aput(other, "n0", {"i": 100}),
            store.aget(ns, "missing"), store.asearch(ns, limit=2, offset=10),
            store.aget(ns, "k11"), store.asearch(ns, filter={"i": {"$gte": 9}}),
            store.adelete(ns, "k0"))

    got3, even, listed, put, missing, page, got11, high, deleted = asyncio.run(run())
    assert isinstance(got3, Item) and got3.value == {"i": 3, "even": False}
    assert keys(even) == ["k0", "k2", "k4"]
    assert listed == [ns]
    assert put is None and missing is None and deleted is None
    assert keys(page) == ["k10", "k11"]
    assert isinstance(got11, Item) and got11.key == "k11"
    assert keys(high) == ["k9", "k10", "k11"]
    assert store.list_namespaces(prefix=("docs",)) == [ns, other]
    assert store.get(ns, "k0") is None and keys(store.search(ns, limit=1)) == ["k1"]


def test_async_large_gather(store: BaseStore) -> None:
    n = 1000
    big, new = ("docs", "big"), ("docs", "new")

    async def run() -> tuple[list[Any], list[Any]]:
        await asyncio.gather(*(store.aput(big, f"k{i}", {"i": i, "m": i % 7})
                               for i in range(n)))
        coros: list[Any] = []
        for i in range(n):  # 3,000 operations
            coros += [store.aget(big, f"k{i}"),
                      store.asearch(big, filter={"m": i % 7}, limit=3, offset=i % 5),
                      store.aput(new, f"k{i}", {"i": -i})]
        results = await asyncio.gather(*coros)
        return results, await asyncio.gather(*(store.aget(new, f"k{i}") for i in range(n)))

    results, after = asyncio.run(run())
    assert len(results) == 3 * n
    for i in range(n):
        got, found, put = results[3 * i:3 * i + 3]
        assert isinstance(got, Item) and got.value == {"i": i, "m": i % 7}
        same_m = [f"k{k}" for k in range(n) if k % 7 == i % 7]
        assert keys(found) == same_m[i % 5:i % 5 + 3]
        assert put is None
    assert [a.value for a in after] == [{"i": -i} for i in range(n)]
    assert keys(store.search(new, limit=3, offset=n - 2)) == [f"k{n - 2}", f"k{n - 1}"]


def test_async_concurrent_puts_of_one_key(store: BaseStore) -> None:
    async def run() -> list[Any]:
        await asyncio.gather(*(store.aput(("docs",), "k", {"v": i}) for i in range(5)))
        return list(await asyncio.gather(store.aget(("docs",), "k"), store.asearch(("docs",))))

    got, found = asyncio.run(run())
    assert isinstance(got, Item) and got.value == {"v": 4}  # the last put issued wins
    assert [i.value for i in found] == [{"v": 4}]


def test_async_reads_of_a_turn_and_its_puts(store: BaseStore) -> None:
    ns = ("docs",)

    async def run() -> list[Any]:
        await store.aput(ns, "k", {"v": 0})
        turn = await asyncio.gather(store.aput(ns, "k", {"v": 1}), store.aget(ns, "k"),
                                    store.asearch(ns), store.aput(ns, "new", {"v": 2}),
                                    store.aget(ns, "new"))
        return [*turn, await store.aget(ns, "k"), await store.aget(ns, "new")]

    _, got, found, _, new, later, later_new = asyncio.run(run())
    if differs(store, "async_turn_reads_first"):
        assert isinstance(got, Item) and got.value == {"v": 0}
        assert [i.value for i in found] == [{"v": 0}] and new is None
    else:
        assert isinstance(got, Item) and got.value == {"v": 1}
        assert [i.value for i in found] == [{"v": 1}]
        assert isinstance(new, Item) and new.value == {"v": 2}
    assert isinstance(later, Item) and later.value == {"v": 1}  # awaited after: seen
    assert isinstance(later_new, Item) and later_new.value == {"v": 2}
