"""The MCP server's infrastructure: it answers before it has a database, fails fast and
recovers by itself while Neo4j is away, keeps deletion plans in the graph for any server of
the same caller, and offers get/recent/status with annotations that say what each tool does.

Driven with the official SDK client, in process (``mcp.Client(server)``) and over stdio
against ``python -m graphmem.cli mcp`` subprocesses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from graphmem import Memory
from graphmem.client import store_of
from graphmem.db.ephemeral import EphemeralServer
from graphmem.errors import DatabaseUnavailableError
from tests.support.database import Neo4jUnderTest, unavailable
from tests.support.mcp_client import ok, refused, text_of
from tests.support.mcp_server import (
    ERROR_WITHIN_S,
    HUMAN,
    TRIGGER,
    serve_default,
    serve_stdio,
    timed,
)

# -- without a database ------------------------------------------------------------------


# -- with the session's database -----------------------------------------------------------


@pytest.mark.neo4j
def test_get_recent_and_status(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    memory.write({"id": "globex-1", "kind": "semantic", "content": "Globex pays by wire",
                  "scope": {"tenant": "globex"}, "created_at": "2026-01-01T00:00:00+00:00"})
    memory.write({"id": "acme-secret", "kind": "semantic", "content": "Acme's margin is 4%",
                  "sensitivity": "confidential", "authority": "human_instruction",
                  "scope": {"tenant": "acme"}, "created_at": "2026-01-01T00:00:00+00:00"})

    async def body(client: Client) -> None:
        ids = []
        for n in range(5):
            d = await ok(client, "remember", {**HUMAN, "content": f"Acme fact number {n}"})
            assert d["disposition"] == "PERSIST"
            ids.append(d["id"])
        await ok(client, "retract", {"id": ids[2], "reason": "wrong"})
        quarantined = await ok(client, "remember", {"content": "Acme may churn"})
        assert quarantined["disposition"] == "QUARANTINE"
        first = await ok(client, "recent", {"limit": 2})
        assert [m["id"] for m in first["memories"]] == [ids[4], ids[3]]
        assert first["next_offset"] == 2
        second = await ok(client, "recent", {"limit": 2, "offset": 2})
        assert [m["id"] for m in second["memories"]] == [ids[1], ids[0]]
        assert second["next_offset"] is None
        assert second["memories"][0]["content"] == "Acme fact number 1"
        got = await ok(client, "get", {"id": ids[2]})
        assert got["memory"]["content"] == "Acme fact number 2"
        assert got["status"] == "RETRACTED"
        await refused(client, "get", {"id": "globex-1"}, "AuthorizationError")
        await refused(client, "get", {"id": "acme-secret"}, "AuthorizationError")
        await refused(client, "get", {"id": "no-such"}, "RecordNotFoundError")
        await refused(client, "recent", {"scope": {"tenant": "globex"}},
                      "AuthorizationError")
        status = await ok(client, "status", {})
        assert status["reachable"] is True and status["scope"] == {"tenant": "acme"}
        assert status["counts"] == {"records": 6, "eligible": 4, "quarantined": 1,
                                    "retracted": 1}

    serve_default(neo4j_db.settings, body)


def _planned(memory: Memory) -> list[dict[str, Any]]:
    return store_of(memory).read("stats/deletion_requests", tenant=None)


@pytest.mark.neo4j
def test_a_plan_is_applied_by_another_server_process(neo4j_db: Neo4jUnderTest,
                                                     memory: Memory, tmp_path: Path) -> None:
    """Planned in one server, applied by digest from a `graphmem mcp` subprocess; the graph
    never holds the redaction term; another caller, an edited plan, missing terms and an
    expired plan are refused; a second apply changes nothing."""
    planned: dict[str, Any] = {}

    async def plan(client: Client) -> None:
        root = (await ok(client, "remember", {**HUMAN,
                                              "content": "Jane Roe lives at 1 Elm St"}))["id"]
        await ok(client, "remember", {**HUMAN, "content": "Ship to Jane Roe's address",
                                      "kind": "episodic", "derived_from": [root]})
        planned.update(await ok(client, "plan_deletion", {
            "roots": [root], "reason": "erasure request", "redact_terms": ["Jane Roe"]}))
        planned["root"] = root

    serve_default(neo4j_db.settings, plan, allow_deletion=True)
    digest = planned["digest"]
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (d:DeletionRequest) RETURN d {.*} AS d", database_=store_of(memory).database)
    [stored] = [r["d"] for r in rows]
    assert stored["state"] == "planned" and stored["digest"] == digest
    assert "jane roe" not in json.dumps(stored, default=str).lower()

    async def other_caller(client: Client) -> None:  # another principal: unknown plan
        await refused(client, "apply_deletion", {"digest": digest, "plan": planned["plan"]},
                      "DeletionError", "no stored plan")

    serve_default(neo4j_db.settings, other_caller, allow_deletion=True, clearance="confidential")
    applied: dict[str, Any] = {}

    async def apply(client: Client) -> None:
        await refused(client, "apply_deletion", {"digest": digest}, "redact_terms")
        await refused(client, "apply_deletion", {"digest": digest,
                                                 "redact_terms": ["John Doe"]},
                      "not the plan's")
        edited = json.loads(json.dumps(planned["plan"]))
        edited["reason"] = "something else"
        await refused(client, "apply_deletion", {"digest": digest, "plan": edited},
                      "edited")
        applied.update(await ok(client, "apply_deletion", {"digest": digest,
                                                           "redact_terms": ["jane roe"]}))
        again = await ok(client, "apply_deletion", {"digest": digest,
                                                    "redact_terms": ["Jane Roe"]})
        applied["again"] = again

    serve_stdio(neo4j_db.settings, apply, tmp_path, "--allow-deletion")
    assert applied["verification"]["passed"] is True
    assert applied["request"]["state"] == "applied"
    assert applied["again"]["entries"] == applied["entries"]
    assert applied["again"]["changed"] == applied["changed"]
    assert {r["state"]: r["n"] for r in _planned(memory)} == {"applied": 1}
    with pytest.raises(Exception, match="erased"):
        memory.get(planned["root"])


@pytest.mark.neo4j
def test_an_expired_plan_is_refused(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def body(client: Client) -> None:
        root = (await ok(client, "remember", {**HUMAN, "content": "Old address"}))["id"]
        p = await ok(client, "plan_deletion", {"roots": [root], "reason": "r"})
        await anyio.sleep(1.2)
        await refused(client, "apply_deletion", {"digest": p["digest"]}, "expired")
        assert memory.get(root).content == "Old address"

    serve_default(neo4j_db.settings, body, allow_deletion=True, plan_ttl_s=1.0)


# -- a database that goes away and comes back -------------------------------------------------


def test_database_restarted_under_a_live_session(tmp_path: Path) -> None:
    """A live stdio session: calls work, Neo4j stops, calls fail within 2 s with
    DatabaseUnavailableError, Neo4j comes back on the same port and store, calls work again
    without restarting the MCP server."""
    home = tmp_path / "neo4j"
    try:
        first = EphemeralServer(home=home, heap="512m", pagecache_mb=64).start()
    except DatabaseUnavailableError as exc:
        unavailable(f"no Neo4j launcher available: {exc}")
        raise
    settings, port = first.settings, first.port
    servers = [first]
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        kept = await ok(client, "remember", {**HUMAN, "content": "Acme renews in March"})
        servers[0].close()
        failures = []
        for name, args in [("recall", {"goal": "renewal", **TRIGGER}),
                           ("get", {"id": kept["id"]})]:
            result, took = await timed(client, name, args)
            failures.append((name, result.is_error, text_of(result), took))
        seen["failures"] = failures
        status = await ok(client, "status", {})
        seen["status_down"] = status["reachable"]
        servers.append(await anyio.to_thread.run_sync(lambda: EphemeralServer(
            home=home, port=port, heap="512m", pagecache_mb=64).start()))
        back = await ok(client, "recall", {"goal": "Acme renewal", "entities": ["Acme"],
                                           **TRIGGER})
        seen["back"] = [m["id"] for m in back["memories"]]
        seen["kept"] = kept["id"]

    try:
        serve_stdio(settings, body, tmp_path)
    finally:
        servers[-1].close()
    for name, is_error, text, took in seen["failures"]:
        assert is_error and "DatabaseUnavailableError" in text, (name, text)
        assert took < ERROR_WITHIN_S, (name, took)
    assert seen["status_down"] is False
    assert seen["back"] == [seen["kept"]]
