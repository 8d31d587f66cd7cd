"""Items the LangGraph store wrote before it kept its search order, value facts and key chain
as record properties (its key's first sequence number and first put time then lived in the
item's metadata) are brought to the store's present shape by the migration the next
connection runs: search, filters, paging and list_namespaces return them as they return
freshly put items, and an overwrite continues their key's history."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from langgraph.store.base import SearchItem

from graphmem import Memory, Principal
from graphmem.client import store_of
from graphmem.db.migrations import LANGGRAPH_ITEMS_VERSION, migrate
from graphmem.db.reserved import LANGGRAPH
from graphmem.integrations.langgraph import GraphmemStore

#: The properties the present store writes on each item and the old store did not.
NEW_PROPS = ("lg_order", "lg_facts", "lg_num_paths", "lg_nums", "lg_chain_seq",
             "lg_created_at", "lg_ttl")


@pytest.fixture(autouse=True)
def _fresh_plans(memory: Memory) -> Iterator[None]:
    """Forget the query plans Neo4j cached while items had no search order: a plan of
    ``langgraph/search`` chosen then would read whole namespaces in the tests that follow
    (test_search_cost)."""
    yield
    _query(memory, "CALL db.clearQueryCaches()")


def _query(memory: Memory, cypher: str, **params: Any) -> list[dict[str, Any]]:
    rows, _, _ = store_of(memory).driver.execute_query(cypher, params,
                                                   database_=store_of(memory).database)
    return [dict(row) for row in rows]


def _lg_props(memory: Memory) -> dict[str, dict[str, Any]]:
    rows = _query(memory, "MATCH (r:Record) WHERE r.lg_order IS NOT NULL "
                          "RETURN r.id AS id, r {" + ", ".join(f".{p}" for p in NEW_PROPS)
                  + "} AS props")
    return {row["id"]: row["props"] for row in rows}


def _age(memory: Memory) -> None:
    """Give every LangGraph record the shape the old store wrote: no new properties, the
    version's and its key chain's numbers and first put time in the metadata (as
    ``{"namespace", "key", "value_json", "seq", "chain_seq", "created_at"}``), and no
    ``langgraph_key`` on its Scope; then forget that the migration ran."""
    rows = _query(memory, "MATCH (r:Record) WHERE r.lg_order IS NOT NULL "
                          "RETURN r.id AS id, r.metadata_json AS metadata_json, "
                          "r.lg_chain_seq AS chain_seq, r.lg_created_at AS created_at, "
                          "r.lg_order AS lg_order")
    for row in rows:
        metadata = json.loads(row["metadata_json"])
        meta = metadata[LANGGRAPH]
        metadata[LANGGRAPH] = {"namespace": meta["namespace"], "key": meta["key"],
                               "value_json": meta["value_json"], "seq": int(row["lg_order"][-16:]),
                               "chain_seq": row["chain_seq"], "created_at": row["created_at"]}
        _query(memory, "MATCH (r:Record {id: $id}) SET r.metadata_json = $metadata_json "
                       "REMOVE " + ", ".join(f"r.{p}" for p in NEW_PROPS),
               id=row["id"], metadata_json=json.dumps(metadata))
    _query(memory, "MATCH (s:Scope) REMOVE s.langgraph_key")
    _query(memory, "MATCH (m:GraphmemMigration {name: 'langgraph_items'}) DELETE m")


def _keys(items: list[SearchItem]) -> list[tuple[tuple[str, ...], str, dict[str, Any], str]]:
    return [(i.namespace, i.key, i.value, i.created_at.isoformat()) for i in items]


def _search(store: GraphmemStore, prefix: tuple[str, ...],
            **kwargs: Any) -> list[tuple[tuple[str, ...], str, dict[str, Any], str]]:
    # the old store never refreshed a TTL: its items expire their TTL after their creation
    return _keys(store.search(prefix, refresh_ttl=False, **kwargs))


def _views(store: GraphmemStore) -> dict[str, Any]:
    """What a user reads: searches (all, by prefix, filtered, ordered by numbers, paged)
    and the namespaces."""
    return {
        "all": _search(store, ("acme",), limit=100),
        "prefs": _search(store, ("acme", "prefs"), limit=100),
        "eq": _search(store, ("acme",), filter={"colour": "blue"}, limit=100),
        "nested": _search(store, ("acme",), filter={"meta": {"lang": "de"}}, limit=100),
        "gt": _search(store, ("acme",), filter={"n": {"$gt": 1.5}}, limit=100),
        "ne": _search(store, ("acme",), filter={"colour": {"$ne": "blue"}}, limit=100),
        "page1": _search(store, ("acme",), limit=2, offset=0),
        "page2": _search(store, ("acme",), limit=2, offset=2),
        "namespaces": store.list_namespaces(),
        "deep": store.list_namespaces(prefix=("acme", "prefs")),
    }


def _fill(store: GraphmemStore) -> None:
    store.put(("acme", "prefs"), "a", {"colour": "blue", "n": 1})
    store.put(("acme", "prefs", "ui"), "b", {"colour": "red", "n": 2, "meta": {"lang": "de"}})
    store.put(("acme", "notes"), "c", {"text": "kept", "n": "3.5"})
    store.put(("acme", "prefs"), "a", {"colour": "blue", "n": 1.0, "v": 2})  # overwritten
    store.put(("acme", "prefs"), "gone", {"colour": "blue"})
    store.delete(("acme", "prefs"), "gone")
    store.put(("acme", "ttl"), "t", {"colour": "green"}, ttl=30)


def test_items_of_the_old_store_are_found_after_the_migration(memory: Memory) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"acme"})))
    _fill(store)
    expected, props = _views(store), _lg_props(memory)
    assert expected["all"] and expected["eq"] and expected["nested"] and expected["gt"]
    _age(memory)
    assert _search(store, ("acme",)) == [] and store.list_namespaces() != []  # search misses
    assert store.get(("acme", "prefs"), "a", refresh_ttl=False) is not None  # get finds

    store_of(memory).ensure_schema()  # as the next connection does
    assert _lg_props(memory) == props  # the very properties the present store wrote
    assert _views(store) == expected
    recorded = _query(memory, "MATCH (m:GraphmemMigration {name: 'langgraph_items'}) "
                              "RETURN m.version AS version")
    assert recorded == [{"version": LANGGRAPH_ITEMS_VERSION}]

    # an overwrite continues the key's chain: its history, first put time and place
    first = store.get(("acme", "prefs"), "a")
    assert first is not None
    before = store.record_ids(("acme", "prefs"), "a")
    store.put(("acme", "prefs"), "a", {"colour": "blue", "n": 1, "v": 3})
    after = store.record_ids(("acme", "prefs"), "a")
    assert after[:-1] == before and len(after) == len(before) + 1
    again = store.get(("acme", "prefs"), "a")
    assert again is not None and again.created_at == first.created_at
    assert again.updated_at > first.updated_at
    assert [k[:2] for k in _keys(store.search(("acme",), limit=100))] == [
        k[:2] for k in expected["all"]]
    assert store.search(("acme",), filter={"v": 3})[0].key == "a"


def test_the_migration_runs_once_and_leaves_other_records_alone(memory: Memory) -> None:
    store_of(memory).ensure_schema()  # every migration recorded (the fixture's wipe forgot them)
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"acme"})))
    _fill(store)
    _age(memory)
    assert migrate(store_of(memory)) == 6  # every version of every key, deleted ones too
    props = _lg_props(memory)
    revs = _query(memory, "MATCH (r:Record) RETURN r.id AS id, r.rev AS rev ORDER BY id")
    assert migrate(store_of(memory)) == 0  # recorded: nothing runs again
    _query(memory, "MATCH (m:GraphmemMigration {name: 'langgraph_items'}) DELETE m")
    assert migrate(store_of(memory)) == 0  # and run again, it finds nothing left to change
    assert _lg_props(memory) == props
    assert _query(memory, "MATCH (r:Record) RETURN r.id AS id, r.rev AS rev "
                          "ORDER BY id") == revs


def test_a_store_without_langgraph_items_is_untouched(memory: Memory) -> None:
    store_of(memory).ensure_schema()  # every migration recorded (the fixture's wipe forgot them)
    memory.put({"id": "r-1", "kind": "semantic", "content": "Prefers dark mode",
                "created_at": datetime(2026, 1, 2, tzinfo=UTC),
                "scope": {"tenant": "acme"}, "provenance": {"source": "test"}})
    everything = ("MATCH (n) WHERE NOT n:GraphmemMigration "
                  "RETURN labels(n) AS labels, n {.*} AS n ORDER BY n.id, n.key")
    before = _query(memory, everything)
    assert before
    _query(memory, "MATCH (m:GraphmemMigration {name: 'langgraph_items'}) DELETE m")
    assert migrate(store_of(memory)) == 0
    assert _query(memory, everything) == before
    assert _query(memory, "MATCH (m:GraphmemMigration {name: 'langgraph_items'}) "
                          "RETURN m.version AS version") == [
        {"version": LANGGRAPH_ITEMS_VERSION}]
