"""Confinement through the adapters: the MCP server started as ``graphmem mcp --tenant acme
--scope user=u-17 --allow-deletion`` (clearance normal), driven with the official MCP SDK
client, and ``GraphmemStore`` with a confined principal. Every tool and resource that names
a memory of another user, or one above the clearance, is refused, leaves it unchanged and
leaks no id or content (against the real Neo4j).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from langgraph.store.base import GetOp, PutOp
from mcp import Client
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError

from graphmem import (
    AuthorityCeilingError,
    AuthorizationError,
    Memory,
    Principal,
    Sensitivity,
    ValidationError,
)
from graphmem.client import store_of
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import Body, ok, refused, serve

pytestmark = pytest.mark.neo4j

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TEXT = "zebra-private-content"


def _rec(rid: str, scope: dict[str, str], sensitivity: str = "normal",
         **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"{TEXT} {rid}", "created_at": T0,
            "scope": {"tenant": "acme", **scope}, "authority": "human_instruction",
            "sensitivity": sensitivity, **extra}


def _serve(neo4j_db: Neo4jUnderTest, body: Body, **options: Any) -> None:
    serve(neo4j_db, body, scope={"user": "u-17"}, allow_deletion=True, agent="a1", **options)


VICTIMS = ("rec-u99", "rec-conf")
LEAKS = (*VICTIMS, TEXT, "u-99", "ret-u99")


def _calls(victim: str, retrieval: str) -> list[tuple[str, dict[str, Any]]]:
    note = {"content": "a fresh note", "authority": "human_instruction"}
    return [
        ("history", {"id": victim}),
        ("lineage", {"id": victim, "direction": "both"}),
        ("retract", {"id": victim, "reason": "r"}),
        ("supersede", {"old_ids": [victim], "reason": "r", "successor": note}),
        ("remember", {**note, "derived_from": [victim]}),
        ("remember", {**note, "evidence_ids": [victim]}),
        ("remember", {**note, "supersedes": [victim]}),
        ("record_use", {"retrieval_id": retrieval, "action_id": "x", "memory_ids": []}),
        ("plan_deletion", {"reason": "r", "roots": [victim]}),
    ]


def _state(memory: Memory) -> tuple[object, ...]:
    return store_of(memory).get_props(list(VICTIMS)), store_of(memory).counts()


def test_the_mcp_scenario_table(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    memory.put(_rec("own", {"user": "u-17"}))
    memory.put(_rec("rec-u99", {"user": "u-99"}))
    memory.put(_rec("rec-conf", {"user": "u-17"}, "confidential"))
    memory.put(_rec("shared", {}))
    u99 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-99"})
    retrieval = memory.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "x",
                                 "needs_prior_context": True}, principal=u99).trace.retrieval_id
    gone = memory.plan_deletion(roots=["rec-u99"], requested_by="ops", reason="r")
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        for victim in VICTIMS:
            for tool, args in _calls(victim, retrieval):
                before = _state(memory)
                text = await refused(client, tool, args, "Error")
                assert not any(leak in text for leak in LEAKS), (tool, text)
                assert _state(memory) == before, (tool, victim)
            explained = await ok(client, "explain", {"id": victim})
            assert explained["status"] == "UNAUTHORIZED" and not explained["successors"]
            for uri in (f"graphmem://memory/{victim}", f"graphmem://lineage/{victim}"):
                with pytest.raises((MCPError, ResourceError)) as info:
                    await client.read_resource(uri)
                assert TEXT not in str(info.value)
        text = await refused(client, "verify_deletion", {"request_id": gone.request_id})
        # the planted authority an agent cannot grant itself
        before = _state(memory)
        text = await refused(client, "remember", {"content": "the plan is gold",
                                                  "authority": "authoritative_source"},
                             "AuthorityCeilingError", "--max-authority")
        assert _state(memory) == before
        # subjects: another user's refused; {} is the server's own scope
        text = await refused(client, "plan_deletion", {"reason": "r",
                                                      "subject": {"user": "u-99"}})
        assert "u-99" not in text.replace("{'user': 'u-99'}", "")
        text = await refused(client, "plan_deletion", {"reason": "r", "subject": {}},
                             "wider reach")  # the confidential record of u-17 is in it
        assert "rec-conf" not in text
        shared = await client.read_resource("graphmem://memory/shared")
        seen["shared"] = shared.contents[0]
        text = await refused(client, "retract", {"id": "shared", "reason": "r"})
        seen["retract"] = text

    _serve(neo4j_db, body)
    assert "shared" in str(seen["shared"])  # a tenant-wide record is readable
    assert store_of(memory).state("shared").retracted_by is None  # but not retractable


def test_mcp_subject_deletion_within_the_servers_scope(neo4j_db: Neo4jUnderTest,
                                                       memory: Memory) -> None:
    memory.put(_rec("own", {"user": "u-17"}))
    memory.put(_rec("rec-u99", {"user": "u-99"}))

    async def body(client: Client) -> None:
        plan = await ok(client, "plan_deletion", {"reason": "r", "subject": {}})
        assert plan["plan"]["subject"] == {"tenant": "acme", "user": "u-17"}
        assert [e["id"] for e in plan["plan"]["entries"]] == ["own"]
        report = await ok(client, "apply_deletion", {"digest": plan["digest"]})
        assert [e["id"] for e in report["entries"]] == ["own"]
        recall = await ok(client, "recall", {"needs_prior_context": True, "goal": "x"})
        assert all(m["id"] != "rec-u99" for m in recall["memories"])

    _serve(neo4j_db, body)
    assert memory.get("rec-u99").id == "rec-u99"


def test_mcp_a_confidential_server_erases_its_users_confidential_record(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    memory.put(_rec("rec-conf", {"user": "u-17"}, "confidential"))

    async def body(client: Client) -> None:
        plan = await ok(client, "plan_deletion", {"reason": "r", "subject": {"user": "u-17"}})
        await ok(client, "apply_deletion", {"digest": plan["digest"]})

    _serve(neo4j_db, body, clearance="confidential")
    assert store_of(memory).get_props(["rec-conf"])["rec-conf"].get("erased")


# -- LangGraph ----------------------------------------------------------------------------


def _store(memory: Memory, user: str, clearance: str = "normal", **kw: Any) -> GraphmemStore:
    principal = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity(clearance),
                          scope={"user": user})
    return GraphmemStore(memory, principal=principal, **kw)


def test_graphmem_store_reaches_only_its_confinement(memory: Memory) -> None:
    mine, theirs = _store(memory, "u-17"), _store(memory, "u-99")
    cleared = _store(memory, "u-17", "confidential", sensitivity=Sensitivity.CONFIDENTIAL)
    ns = ("acme", "prefs")
    theirs.put(ns, "k", {"text": TEXT})
    cleared.put(ns, "hidden", {"text": TEXT})
    assert mine.get(ns, "k") is None and mine.get(ns, "hidden") is None
    assert mine.search(("acme",)) == [] and mine.list_namespaces() == []
    assert mine.batch([GetOp(ns, "k")]) == [None]
    before = store_of(memory).counts()
    mine.delete(ns, "k")
    writes: list[Callable[[], None]] = [lambda: mine.delete(ns, "hidden"),
                                        lambda: mine.put(ns, "hidden", {})]
    for write in writes:
        with pytest.raises(AuthorizationError) as info:  # above its clearance: unchanged
            write()
        assert TEXT not in str(info.value)
    assert store_of(memory).counts() == before
    item = theirs.get(ns, "k")
    assert item is not None and item.value == {"text": TEXT}
    assert cleared.get(ns, "hidden") is not None
    mine.put(ns, "k", {"text": "mine"})
    own = mine.get(ns, "k")
    assert own is not None and own.value == {"text": "mine"}
    kept = theirs.get(ns, "k")
    assert kept is not None and kept.value == {"text": TEXT}
    assert [i.key for i in mine.search(ns)] == ["k"] and mine.list_namespaces() == [ns]
    record = memory.get(mine.record_ids(ns, "k")[-1])
    assert record.scope["user"] == "u-17"
    by = [h["by"] for h in memory.history(record.id) if str(h["kind"]).startswith("write:")]
    assert "max_authority human_instruction" in by[0]


def test_a_stores_record_ids_count_only_its_own_keys_versions(memory: Memory) -> None:
    """An item's record ids number the versions of its key: another user's puts in the same
    tenant, between two of them, leave no trace (the ids once ended in the tenant's count of
    puts, so a confined user could count everyone's)."""
    mine, theirs = _store(memory, "u-17"), _store(memory, "u-99")
    ns = ("acme", "prefs")
    mine.put(ns, "k", {"v": 1})
    for i in range(5):
        theirs.put(ns, f"t{i}", {"v": i})
    theirs.batch([PutOp(ns, f"b{i}", {"v": i}) for i in range(3)])
    mine.put(ns, "k", {"v": 2})
    mine.delete(ns, "k")  # retracts its version: no new one
    theirs.put(ns, "t0", {"v": 9})
    mine.put(ns, "k", {"v": 3})
    ids = mine.record_ids(ns, "k")
    assert [int(i[-16:]) for i in ids] == [1, 2, 3] and len({i[:-16] for i in ids}) == 1
    assert [int(i[-16:]) for i in theirs.record_ids(ns, "t0")] == [1, 2]
    item = mine.get(ns, "k")
    assert item is not None and item.value == {"v": 3}
    assert [i.key for i in theirs.search(ns)] == ["t0", *(f"t{i}" for i in range(1, 5)),
                                                 "b0", "b1", "b2"]  # order of first puts


def test_graphmem_store_takes_the_authority_ceiling(memory: Memory) -> None:
    from graphmem import Authority

    with pytest.raises(AuthorityCeilingError, match="max_authority"):
        _store(memory, "u-17", authority=Authority.AUTHORITATIVE_SOURCE)
    store = _store(memory, "u-17", authority=Authority.AUTHORITATIVE_SOURCE,
                   max_authority=Authority.AUTHORITATIVE_SOURCE)
    store.put(("acme", "facts"), "k", {"text": "from the contract"})
    assert memory.get(store.record_ids(("acme", "facts"), "k")[-1]).authority is \
        Authority.AUTHORITATIVE_SOURCE


def test_graphmem_store_on_a_confined_client_reaches_no_further_than_the_client(
        memory: Memory) -> None:
    """The store's principal can only narrow the client it is given (as Memory.confined)."""
    ns = ("acme", "prefs")
    _store(memory, "u-99").put(ns, "k", {"text": TEXT})
    bound = memory.confined(Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"}))
    for wider in (Principal(tenants=frozenset({"acme"}), scope={"user": "u-99"}),
                  Principal(tenants=frozenset({"acme"}))):
        with pytest.raises(AuthorizationError) as info:
            GraphmemStore(bound, principal=wider)
        assert TEXT not in str(info.value)
    from graphmem import Authority

    u17 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})
    with pytest.raises(AuthorityCeilingError):  # nor raise the client's ceiling
        GraphmemStore(memory.confined(u17, max_authority=Authority.MODEL_INFERRED),
                      principal=u17)
    for bad in ("u-17", None, {"tenants": ["acme"]}):
        with pytest.raises(ValidationError):
            GraphmemStore(memory, principal=bad)  # type: ignore[arg-type]
    mine = GraphmemStore(bound, principal=Principal(tenants=frozenset({"acme"}),
                                                    scope={"user": "u-17", "app": "x"}))
    assert mine.get(ns, "k") is None and mine.search(("acme",)) == []


def test_graphmem_store_settings_given_as_strings_keep_the_clearance(memory: Memory) -> None:
    """A configuration gives strings: "confidential" is above a normal clearance, though it
    sorts before "normal" as text."""
    u17 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})
    before = store_of(memory).counts()
    with pytest.raises(ValidationError, match="above the principal's clearance"):
        GraphmemStore(memory, principal=u17, sensitivity="confidential")  # type: ignore[arg-type]
    bad: list[dict[str, Any]] = [{"sensitivity": "high"}, {"kind": "weird"},
                                 {"authority": "god"}, {"actor": 5}, {"text_fields": 5},
                                 {"text_fields": "text"}, {"ttl_config": 5},
                                 {"ranker": "nope"}]
    for kw in bad:
        with pytest.raises(ValidationError):
            GraphmemStore(memory, principal=u17, **kw)
    assert store_of(memory).counts() == before
    named = GraphmemStore(memory, principal=u17, sensitivity="normal",  # type: ignore[arg-type]
                          kind="episodic", ranker="bm25")  # type: ignore[arg-type]
    named.put(("acme", "n"), "k", {"text": "hello"})
    assert [i.key for i in named.search(("acme", "n"), query="hello")] == ["k"]
