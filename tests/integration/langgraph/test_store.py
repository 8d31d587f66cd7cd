"""GraphmemStore against LangGraph's InMemoryStore, the reference.

Every parity scenario runs on a fresh ``InMemoryStore`` and on ``GraphmemStore`` over
the real Neo4j (tenant from the first label, and a configured tenant), and the two must
give the same items, keys, namespaces and order. Then what graphmem does on purpose
beyond the reference: history on overwrite, tombstones on delete, authorization, TTL,
ranked search; and a compiled StateGraph using the store.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from graphmem import (
    AuthorizationError,
    Memory,
    MemoryKind,
    MemoryRecord,
    Principal,
    Status,
    ValidationError,
)
from graphmem.client import store_of
from graphmem.integrations.langgraph import GraphmemStore

ODD = ["50%_off", "it's \"quoted\"", "naïve-日本語", "trailing\n", "a b", "Ünïcødé"]
TENANTS = frozenset({"users", "userss", "docs", "a", "ab", "b", "admin", "x", "a.b", *ODD})


def norm(result: Any) -> Any:
    """A comparable form of a batch result: items without their timestamps."""
    if isinstance(result, Item):
        return ("item", result.namespace, result.key, result.value)
    if isinstance(result, list):
        return [norm(r) for r in result]
    return result


@pytest.fixture(params=["first_label", "fixed_tenant"])
def gstore(request: pytest.FixtureRequest, memory: Memory) -> GraphmemStore:
    if request.param == "fixed_tenant":
        return GraphmemStore(memory, principal=Principal(tenants=frozenset({"acme"})),
                             tenant="acme")
    return GraphmemStore(memory, principal=Principal(tenants=TENANTS))


Scenario = Callable[[BaseStore], Any]


def same(scenario: Scenario, store: GraphmemStore) -> Any:
    expected = norm(scenario(InMemoryStore()))
    actual = norm(scenario(store))
    assert actual == expected
    return actual


# -- parity scenarios -----------------------------------------------------------------

def test_get_put_delete(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        ns = ("users", "alice")
        out: list[Any] = [s.get(ns, "k1")]
        s.put(ns, "k1", {"text": "likes tea", "n": 1})
        s.put(ns, "k2", {"text": "likes jazz", "n": 2})
        out.append(s.get(ns, "k1"))
        s.put(ns, "k1", {"text": "likes coffee now", "n": 3})
        out += [s.get(ns, "k1"), s.search(ns)]  # an overwrite keeps the key's place
        s.delete(ns, "k1")
        out += [s.get(ns, "k1"), s.search(ns)]
        s.delete(ns, "k1")  # deleting a missing key is a no-op
        s.put(ns, "k1", {"text": "back again"})
        out += [s.get(ns, "k1"), s.search(ns)]  # a re-put after a delete goes last
        out.append(s.get(("users",), "k2"))  # a key lives in its exact namespace only
        return out

    out = same(scenario, gstore)
    assert out[-2][-1][2] == "k1" and out[-1] is None


def test_batch_order(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        s.put(("docs",), "old", {"v": 0})
        first = s.batch([
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
        second = s.batch([GetOp(("docs",), "a"), GetOp(("docs",), "old"), SearchOp(("docs",)),
                          ListNamespacesOp(), GetOp(("docs", "sub"), "b")])
        return [first, second]

    out = same(scenario, gstore)
    assert out[1][0][3] == {"v": 3} and out[1][1] is None


def test_prefix_search_across_depths(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        for ns in [("users",), ("users", "alice"), ("users", "alice", "notes"),
                   ("users", "alicex"), ("userss",), ("users", "bob"), ("a",), ("ab",)]:
            s.put(ns, "k", {"ns": "/".join(ns)})
            s.put(ns, "k2", {"ns": "/".join(ns), "second": True})
        return [s.search(p, limit=100) for p in [
            ("users",), ("users", "alice"), ("users", "alice", "notes"), ("users", "alicex"),
            ("userss",), ("users", "nobody"), ("a",), ("ab",), ("x",)]]

    out = same(scenario, gstore)
    assert [i[1] for i in out[1]] == [("users", "alice")] * 2 + [("users", "alice", "notes")] * 2
    assert {i[1] for i in out[6]} == {("a",)}  # ("a",) never matches ("ab",)


FILTERS: list[dict[str, Any]] = [
    {"color": "red"},
    {"color": {"$eq": "blue"}},
    {"color": {"$ne": "red"}},
    {"score": {"$gt": 4.99}},
    {"score": {"$gte": 5}},
    {"score": {"$lt": 5}},
    {"score": {"$lte": 5, "$gt": 1}},
    {"score": {"$gte": 3.0}, "color": "red"},
    {"meta": {"lang": "en"}},
    {"meta": {"lang": "en", "tags": ["x", "y"]}},
    {"meta": {"depth": {"$gt": 1}}},
    {"tags": ["a", "b"]},
    {"flag": True},
    {"missing": {"$ne": 1}},
    {"color": "nope"},
]


@pytest.mark.parametrize("filter_", FILTERS, ids=[str(f) for f in FILTERS])
def test_filters(gstore: GraphmemStore, filter_: dict[str, Any]) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        rows = [
            {"color": "red", "score": 5, "meta": {"lang": "en", "tags": ["x", "y"], "depth": 2},
             "tags": ["a", "b"], "flag": True},
            {"color": "blue", "score": 4.5, "meta": {"lang": "de", "depth": 1}, "tags": ["a"],
             "flag": False},
            {"color": "red", "score": 1, "meta": {"lang": "en", "depth": 0},
             "tags": ["a", "b"], "flag": True},
            {"color": "green", "score": 9.5, "meta": {"lang": "en", "tags": ["x"], "depth": 5},
             "tags": ["b", "a"], "flag": 1},
        ]
        for i, row in enumerate(rows):
            s.put(("docs", "d" if i % 2 else "c"), f"item{i}", row)
        return s.search(("docs",), filter=filter_, limit=50)

    same(scenario, gstore)


def test_pagination(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        for i in range(7):
            s.put(("docs", f"n{i % 3}"), f"k{i}", {"i": i, "even": i % 2 == 0})
        pages = [s.search(("docs",), limit=limit, offset=offset)
                 for limit, offset in [(3, 0), (3, 3), (3, 6), (3, 9), (10, 0), (1, 4), (0, 0)]]
        pages.append(s.search(("docs",), filter={"even": True}, limit=2, offset=1))
        return pages

    out = same(scenario, gstore)
    assert sum(len(p) for p in out[:4]) == 7


def test_list_namespaces(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"),
                   ("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f"), ("users", "123"),
                   ("users", "456", "settings"), ("admin", "users", "789"), ("x", "v1"),
                   ("x", "y", "v1")]:
            s.put(ns, "k", {"v": 1})
        return [
            s.list_namespaces(),
            s.list_namespaces(prefix=("a", "b")),
            s.list_namespaces(suffix=("f",)),
            s.list_namespaces(prefix=("a",), suffix=("f",)),
            s.list_namespaces(prefix=("a", "*", "f")),
            s.list_namespaces(prefix=("*", "b")),
            s.list_namespaces(suffix=("*", "v1")),
            s.list_namespaces(prefix=("a", "b"), max_depth=3),
            s.list_namespaces(max_depth=1),
            s.list_namespaces(max_depth=2, limit=3, offset=2),
            s.list_namespaces(limit=4, offset=4),
            s.list_namespaces(prefix=("users",)),
            s.list_namespaces(prefix=("a", "b", "c", "d")),
            s.batch([ListNamespacesOp(match_conditions=(
                MatchCondition("prefix", ("a", "*")), MatchCondition("suffix", ("d", "*"))))]),
        ]

    out = same(scenario, gstore)
    assert out[1] == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"),
                      ("a", "b", "f")]


def test_odd_labels_round_trip(gstore: GraphmemStore) -> None:
    dotted = [("a.b",), ("a", "b.c"), ("a.b", "c")]

    def scenario(s: BaseStore) -> list[Any]:
        for label in ODD:
            s.put((label, label), label, {"label": label})
        # dots: LangGraph's methods reject them; ops handed to batch keep them exactly
        s.batch([PutOp(ns, "k", {"ns": list(ns)}) for ns in dotted])
        out: list[Any] = [s.get((label, label), label) for label in ODD]
        out += [s.search((label,)) for label in ODD]
        out += s.batch([GetOp(ns, "k") for ns in dotted] + [SearchOp(("a",)), SearchOp(("a.b",))])
        out.append(s.list_namespaces(limit=100))
        out.append(s.batch([ListNamespacesOp(match_conditions=(
            MatchCondition("prefix", ("a.b",)),))]))
        with pytest.raises(InvalidNamespaceError):
            s.put(("a.b",), "k", {})
        return out

    out = same(scenario, gstore)
    assert out[0][1] == (ODD[0], ODD[0])


def test_async_twins(gstore: GraphmemStore) -> None:
    def scenario(s: BaseStore) -> list[Any]:
        async def run() -> list[Any]:
            await s.aput(("users", "alice"), "k", {"text": "hello"})
            await s.aput(("users", "alice", "deep"), "k", {"text": "deeper"})
            await s.aput(("users", "alice"), "k", {"text": "hello again"})
            out: list[Any] = [await s.aget(("users", "alice"), "k"),
                              await s.asearch(("users",), filter={"text": "deeper"}),
                              await s.alist_namespaces(prefix=("users",))]
            await s.adelete(("users", "alice"), "k")
            out += [await s.aget(("users", "alice"), "k"), await s.asearch(("users",)),
                    await s.abatch([GetOp(("users", "alice", "deep"), "k")])]
            return out
        return asyncio.run(run())

    out = same(scenario, gstore)
    assert out[0][3] == {"text": "hello again"}


# -- graphmem-only behaviour ----------------------------------------------------------

@pytest.fixture()
def store(memory: Memory) -> GraphmemStore:
    return GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice", "bob"})))


def test_overwrite_keeps_history_and_delete_is_a_tombstone(
        store: GraphmemStore, memory: Memory) -> None:
    ns = ("alice", "prefs")
    store.put(ns, "theme", {"theme": "dark"})
    first = store.get(ns, "theme")
    store.put(ns, "theme", {"theme": "light"})
    second = store.get(ns, "theme")
    assert first is not None and second is not None
    assert second.value == {"theme": "light"}
    assert second.created_at == first.created_at  # the key's creation
    assert second.updated_at >= first.updated_at
    assert second.updated_at.tzinfo is not None and second.updated_at.utcoffset() == timedelta(0)
    v1, v2 = store.record_ids(ns, "theme")
    scope = store.namespace_scope(ns)
    old = memory.explain(v1, principal=store.principal, scope=scope)
    assert old.status is Status.SUPERSEDED and old.successor_ids == (v2,)
    assert memory.get(v2).supersedes == (v1,)
    store.delete(ns, "theme")
    assert store.get(ns, "theme") is None and store.search(ns) == []
    assert memory.explain(v2, principal=store.principal, scope=scope).status is Status.RETRACTED
    assert store_of(memory).state(v2).retracted_by == "langgraph"
    kinds = [t["kind"] for t in memory.history(v1) if "kind" in t]
    assert "superseded" in kinds
    for rid in (v1, v2):
        assert len(rid) <= 256 and not any(c.isspace() for c in rid)
    store.put(ns, "theme", {"theme": "blue"})  # a new chain, not a revival
    third = store.get(ns, "theme")
    assert third is not None and third.created_at > first.created_at
    assert len(store.record_ids(ns, "theme")) == 3
    assert memory.get(store.record_ids(ns, "theme")[2]).supersedes == ()



def test_a_key_superseded_from_outside_is_written_again_as_a_new_chain(
        store: GraphmemStore, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """put decides whether the key still holds a live item by the rule get reads by: a
    record that supersedes the newest version (written outside LangGraph, tenant-wide: a
    scope within the item's namespace) ends it for put as for get, so the next put starts a
    new chain."""
    t0 = datetime(2031, 7, 1, tzinfo=UTC)
    ns = ("alice", "outside")
    monkeypatch.setattr(store_of(memory), "clock", lambda: t0)
    store.put(ns, "k", {"v": "first"})
    (v1,) = store.record_ids(ns, "k")
    memory.put(MemoryRecord(id="outside-fix", kind=MemoryKind.SEMANTIC, content="corrected",
                            created_at=t0 + timedelta(minutes=1),
                            scope={"tenant": "alice"}, supersedes=(v1,)))
    monkeypatch.setattr(store_of(memory), "clock", lambda: t0 + timedelta(minutes=2))
    assert store.get(ns, "k") is None
    store.put(ns, "k", {"v": "second"})
    item = store.get(ns, "k")
    assert item is not None and item.value == {"v": "second"}
    assert item.created_at == t0 + timedelta(minutes=2)  # not the ended chain's t0

def test_value_is_kept_verbatim(store: GraphmemStore, memory: Memory) -> None:
    value = {"z": 1, "a": [1, 2.5, None, {"b": "ü\n"}], "m": {"y": True, "x": "日本"}}
    store.put(("alice",), "k", value)
    item = store.get(("alice",), "k")
    assert item is not None and item.value == value
    assert list(item.value) == ["z", "a", "m"] and list(item.value["m"]) == ["y", "x"]
    record = memory.get(store.record_ids(("alice",), "k")[0])
    assert record.scope == store.namespace_scope(("alice",))
    assert "日本" in record.content


def test_text_fields_become_the_content(memory: Memory) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice"})),
                          text_fields=["memory", "tags[*]"])
    store.put(("alice",), "k", {"memory": "prefers short answers", "tags": ["style", "tone"],
                                "other": "not content"})
    record = memory.get(store.record_ids(("alice",), "k")[0])
    assert record.content == "prefers short answers\nstyle\ntone"


def test_other_tenants_are_an_authorization_error(store: GraphmemStore) -> None:
    store.put(("alice", "m"), "k", {"v": 1})
    for call in (lambda: store.put(("mallory", "m"), "k", {"v": 1}),
                 lambda: store.get(("mallory", "m"), "k"),
                 lambda: store.search(("mallory",)),
                 lambda: store.delete(("mallory", "m"), "k"),
                 lambda: store.list_namespaces(prefix=("mallory",))):
        with pytest.raises(AuthorizationError):
            call()
    with pytest.raises(AuthorizationError):  # one bad op: nothing of the batch is written
        store.batch([PutOp(("alice", "m"), "new", {"v": 2}), PutOp(("mallory",), "k", {})])
    assert store.get(("alice", "m"), "new") is None
    with pytest.raises(AuthorizationError):
        GraphmemStore(store.memory, principal=Principal(tenants=frozenset({"alice"})), tenant="bob")


def test_empty_prefix_covers_only_the_principals_tenants(memory: Memory) -> None:
    both = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice", "bob"})))
    both.put(("alice",), "k", {"v": "a"})
    both.put(("bob",), "k", {"v": "b"})
    only_bob = GraphmemStore(memory, principal=Principal(tenants=frozenset({"bob"})))
    assert [i.namespace for i in only_bob.search(())] == [("bob",)]
    assert only_bob.list_namespaces() == [("bob",)]
    assert [i.namespace for i in both.search(())] == [("alice",), ("bob",)]


def test_ttl_sets_expiry_and_expired_items_are_never_returned(
        store: GraphmemStore, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    assert store.supports_ttl
    t0 = datetime(2030, 1, 1, tzinfo=UTC)
    monkeypatch.setattr(store_of(memory), "clock", lambda: t0)
    store.put(("alice", "tmp"), "k", {"v": 1}, ttl=10)
    store.put(("alice", "tmp"), "forever", {"v": 2})
    record = memory.get(store.record_ids(("alice", "tmp"), "k")[0])
    assert record.expires_at == t0 + timedelta(minutes=10)
    monkeypatch.setattr(store_of(memory), "clock", lambda: t0 + timedelta(minutes=9))
    assert store.get(("alice", "tmp"), "k", refresh_ttl=False) is not None  # (a refreshing
    # read would start the TTL again: tests/integration/langgraph/test_defaults.py)
    monkeypatch.setattr(store_of(memory), "clock", lambda: t0 + timedelta(minutes=10))
    assert store.get(("alice", "tmp"), "k") is None  # no sweep needed
    assert [i.key for i in store.search(("alice",))] == ["forever"]
    store.delete(("alice", "tmp"), "forever")
    assert store.list_namespaces() == []


def test_search_with_a_query_is_ranked(store: GraphmemStore) -> None:
    ns = ("alice", "facts")
    store.put(ns, "tea", {"text": "Alice drinks green tea every morning"})
    store.put(ns, "bike", {"text": "Alice rides a red bicycle to work"})
    store.put(ns, "cat", {"text": "Alice has a cat called Miso"})
    found = store.search(("alice",), query="which bicycle does she ride", limit=2)
    assert found[0].key == "bike" and len(found) == 2
    assert found[0].score is not None and found[0].score > 0
    assert all(i.score is not None for i in found)
    assert [i.score for i in found] == sorted((i.score or 0.0 for i in found), reverse=True)
    assert store.search(("alice",), query="bicycle", filter={"text": {"$ne": "x"}},
                        offset=1, limit=5)[0].key != "bike"


def test_filter_errors_and_non_numbers(store: GraphmemStore) -> None:
    store.put(("alice",), "a", {"score": 3})
    store.put(("alice",), "b", {"score": "high"})
    store.put(("alice",), "c", {})
    assert [i.key for i in store.search(("alice",), filter={"score": {"$gt": 1}})] == ["a"]
    with pytest.raises(ValidationError):
        store.search(("alice",), filter={"score": {"$regex": "x"}})
    with pytest.raises(ValidationError):
        store.put(("alice",), "bad", {"when": datetime.now(UTC)})
    assert store.get(("alice",), "bad") is None


def test_search_agrees_with_graphmem_candidates(store: GraphmemStore, memory: Memory) -> None:
    ns = ("alice", "p")
    for i in range(4):
        store.put(ns, f"k{i}", {"i": i})
    store.put(ns, "k1", {"i": 10})
    store.delete(ns, "k2")
    found = {i.key for i in store.search(ns)}
    candidates = memory.candidates(principal=store.principal, scope=store.namespace_scope(ns))
    assert found == {r.metadata["langgraph"]["key"] for r in candidates} == {"k0", "k1", "k3"}


def test_importing_graphmem_does_not_import_langgraph() -> None:
    code = "import sys, graphmem; sys.exit('langgraph' in ' '.join(sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


class _State(TypedDict):
    user: str
    text: str
    found: list[str]


def test_a_compiled_state_graph_writes_and_then_finds_a_memory(memory: Memory) -> None:
    from langgraph.graph import END, START, StateGraph

    def remember(state: _State, *, store: BaseStore) -> dict[str, Any]:
        store.put((state["user"], "memories"), "m1", {"text": state["text"]})
        return {}

    def recall(state: _State, *, store: BaseStore) -> dict[str, Any]:
        hits = store.search((state["user"],), query="favourite colour")
        return {"found": [h.value["text"] for h in hits]}

    builder = StateGraph(_State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice", "bob"})))
    graph = builder.compile(store=store)

    out = graph.invoke({"user": "alice", "text": "My favourite colour is teal", "found": []})
    assert out["found"] == ["My favourite colour is teal"]
    other = graph.invoke({"user": "bob", "text": "I like trains", "found": []})
    assert other["found"] == ["I like trains"]
    assert [i.key for i in store.search(("bob",))] == ["m1"]
    assert all(i.value["text"] != "My favourite colour is teal" for i in store.search(("bob",)))
    # a principal of one tenant keeps every namespace in it: "alice" is only a label there,
    # and alice's memories stay out of its reach
    bob_only = GraphmemStore(memory, principal=Principal(tenants=frozenset({"bob"})))
    out = builder.compile(store=bob_only).invoke({"user": "alice", "text": "x", "found": []})
    assert out["found"] == ["x"]
    assert bob_only.namespace_scope(("alice", "memories"))["tenant"] == "bob"
    assert [i.value["text"] for i in store.search(("alice",))] == ["My favourite colour is teal"]



def test_concurrent_puts_of_one_key_leave_one_live_version(memory: Memory) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice"})))
    ns = ("alice", "race")

    def put(i: int) -> None:
        store.put(ns, "k", {"i": i})
        store.put(ns, f"own{i % 3}", {"i": i})

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(put, range(16)))
    found = store.search(ns, limit=100)
    assert sorted(i.key for i in found) == ["k", "own0", "own1", "own2"]
    ids = store.record_ids(ns, "k")
    assert len(ids) == 16
    chain = [memory.get(rid).supersedes for rid in ids]
    assert chain == [(), *[(rid,) for rid in ids[:-1]]]  # one unbroken line of versions


def test_reads_as_of_an_earlier_time_see_the_store_as_it_was(
        store: GraphmemStore, monkeypatch: pytest.MonkeyPatch) -> None:
    t0 = datetime(2031, 5, 1, tzinfo=UTC)
    ns = ("alice", "asof")
    monkeypatch.setattr(store_of(store.memory), "clock", lambda: t0)
    store.put(ns, "k", {"v": "first"})
    monkeypatch.setattr(store_of(store.memory), "clock", lambda: t0 + timedelta(hours=1))
    store.put(ns, "k", {"v": "second"})
    monkeypatch.setattr(store_of(store.memory), "clock", lambda: t0 + timedelta(minutes=30))
    item = store.get(ns, "k")  # the successor did not exist yet
    assert item is not None and item.value == {"v": "first"}
    assert [i.value for i in store.search(ns)] == [{"v": "first"}]
    monkeypatch.setattr(store_of(store.memory), "clock", lambda: t0 - timedelta(minutes=1))
    assert store.get(ns, "k") is None and store.list_namespaces() == []
