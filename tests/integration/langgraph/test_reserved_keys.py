"""Scope keys an adapter reserves (``langgraph``, ``langgraph.N``) are written only by that
adapter: the client, imports and MCP are refused with a ValidationError and write nothing;
the LangGraph store ignores any record it did not write (one stored before the keys were
reserved), and its reads never fail on one."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graphmem import Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.db.codec import coerce_record
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.integrations.langgraph.namespaces import namespace_scope
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import refused
from tests.support.mcp_client import serve as _serve

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
#: Scopes a non-adapter writer might give, each with a reserved key.
FOREIGN = [
    {"tenant": "acme", "langgraph": "namespace", "langgraph.0": "acme"},
    {"tenant": "acme", "langgraph": "x"},
    {"tenant": "acme", "langgraph.1": "b"},
    {"tenant": "acme", "project": "p", "langgraph.notes": "n"},
]


def rec(rid: str, scope: dict[str, str], **over: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"fact {rid}", "scope": scope,
            "created_at": T0.isoformat(), "authority": "human_instruction",
            "provenance": {"source": "user"}, **over}


# ------------------------------------------------------------------ the registry (no database)


# ------------------------------------------------------------------ through the client


@pytest.mark.parametrize("scope", FOREIGN)
def test_the_client_refuses_reserved_keys_and_writes_nothing(
        memory: Memory, scope: dict[str, str], tmp_path: Path) -> None:
    before = store_of(memory).counts()
    calls: list[Callable[[], object]] = [
             lambda: memory.write(rec("w", scope), now=T0),
             lambda: memory.put(rec("p", scope)),
             lambda: memory.put_many([rec("ok", {"tenant": "acme"}), rec("m", scope)]),
             lambda: list(memory.put_stream([[rec("s", scope)]]))]
    for call in calls:
        with pytest.raises(ValidationError, match="reserved"):
            call()
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(rec("ok", {"tenant": "acme"})) + "\n"
                    + json.dumps(rec("i", scope)) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"in\.jsonl:2"):
        memory.import_jsonl(path)
    assert store_of(memory).counts() == before
    # reading with such a query scope is allowed
    assert memory.candidates(principal=ACME, scope=scope, now=T0) == []


def test_mcp_remember_refuses_reserved_keys(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def body(client: Client) -> None:
        for additions in ({"langgraph": "namespace", "langgraph.0": "acme",
                           "langgraph.1": "prefs"}, {"langgraph.0": "acme"}):
            await refused(client, "remember", {
                "content": "a memory in the adapter's keys", "scope": additions,
                "authority": "human_instruction"}, "reserved")

    before = store_of(memory).counts()
    _serve(neo4j_db, body)
    assert store_of(memory).counts() == before


# ------------------------------------------------------------------ through the store


def test_the_langgraph_store_ignores_records_it_did_not_write(memory: Memory) -> None:
    """Records stored in a namespace's scope by another writer before the keys were reserved
    (stored here below the checks) are not items: get, search and the adapter's next put of
    the same key neither return them nor fail on them."""
    store = GraphmemStore(memory, principal=ACME, tenant="acme")
    store.put(("prefs",), "theme", {"text": "dark"})
    scope = namespace_scope(("prefs",), "acme")
    foreign = [coerce_record(rec("mcp-1", scope, content="dark theme note")),
               coerce_record(rec("mcp-2", scope, content="theme", metadata={"langgraph": 1})),
               coerce_record(rec("mcp-3", scope, content="theme",
                                 metadata={"langgraph": {"key": "theme"}}))]

    def bypass(tx: Any) -> None:
        store_of(memory).create_in_tx(tx, store_of(memory).prepare_in_tx(tx, foreign))

    store_of(memory).ensure_write_nodes(foreign)
    store_of(memory).transaction("foreign", bypass)
    assert {r.id for r in memory.candidates(principal=ACME, scope=scope, now=datetime.now(UTC))
            } >= {"mcp-1", "mcp-2", "mcp-3"}
    found = store.search(("prefs",))
    assert [(i.key, i.value) for i in found] == [("theme", {"text": "dark"})]
    assert [i.key for i in store.search(("prefs",), query="dark theme")] == ["theme"]
    assert [i.key for i in store.search(())] == ["theme"]
    item = store.get(("prefs",), "theme")
    assert item is not None and item.value == {"text": "dark"}
    store.put(("prefs",), "theme", {"text": "light"})
    item = store.get(("prefs",), "theme")
    assert item is not None and item.value == {"text": "light"}
    assert store.list_namespaces() == [("prefs",)]
