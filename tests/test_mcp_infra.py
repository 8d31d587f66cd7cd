"""The MCP server's infrastructure: it answers before it has a database, fails fast and
recovers by itself while Neo4j is away, keeps deletion plans in the graph for any server of
the same caller, and offers get/recent/status with annotations that say what each tool does.

Driven with the official SDK client, in process (``mcp.Client(server)``) and over stdio
against ``python -m graphmem.cli mcp`` subprocesses.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from graphmem import Memory
from graphmem.client import store_of
from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import DatabaseUnavailableError
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.server import build_server
from graphmem.integrations.mcp.state import open_memory
from tests.conftest import Neo4jUnderTest, unavailable
from tests.mcp_client import leaf, ok, refused, run, text_of

COMMAND = [sys.executable, "-m", "graphmem.cli", "mcp", "--tenant", "acme",
           "--agent", "infra-test"]
HUMAN = {"authority": "human_instruction"}
TRIGGER = {"needs_prior_context": True}
ERROR_WITHIN_S = 2.0


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _env(settings: ConnectionSettings, **extra: str) -> dict[str, str]:
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
            "NEO4J_PASSWORD": settings.password, "NEO4J_DATABASE": settings.database,
            **extra}


async def timed(client: Client, name: str, args: dict[str, Any]
                ) -> tuple[CallToolResult, float]:
    started = time.monotonic()
    result = await client.call_tool(name, args)
    return result, time.monotonic() - started


def _run(main: Callable[[], Awaitable[None]]) -> None:
    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # the SDK's task groups wrap a failing assertion
        raise leaf(group) from None


def _serve(settings: ConnectionSettings, body: Callable[[Client], Awaitable[None]], *,
           allow_deletion: bool = False, clearance: str = "normal",
           plan_ttl_s: float = 3600.0) -> None:
    """Run ``body`` against an in-process server with the default (short) database budget."""
    config = ServerConfig.build(tenants=("acme",), clearance=clearance, agent="infra-test",
                                allow_deletion=allow_deletion, plan_ttl_s=plan_ttl_s)
    run(build_server(config, connect=partial(open_memory, config.db_timeout_s, settings)), body)


def _stdio(settings: ConnectionSettings, body: Callable[[Client], Awaitable[None]],
           tmp_path: Path, *args: str, timeout_s: float = 300) -> None:
    """Run ``body`` against ``graphmem mcp`` as a subprocess over stdio."""
    params = StdioServerParameters(command=COMMAND[0], args=[*COMMAND[1:], *args],
                                   env=_env(settings), cwd=str(Path.cwd()))

    async def main() -> None:
        with (tmp_path / "stderr.log").open("a") as errlog, anyio.fail_after(timeout_s):
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await body(client)

    _run(main)


# -- without a database ------------------------------------------------------------------


def test_tools_list_and_fast_typed_errors_without_neo4j() -> None:
    """Nothing listens: tools/list is answered, every call fails within 2 s with
    DatabaseUnavailableError (each call tries again), status says unreachable."""
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{_closed_port()}", password="x")

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        assert {"recall", "get", "recent", "status"} <= {t.name for t in listed.tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("recall", {"goal": "g", **TRIGGER}), ("get", {"id": "m-1"}), ("recent", {}),
            ("remember", {**HUMAN, "content": "c"})]
        for name, args in calls:
            result, took = await timed(client, name, args)
            assert result.is_error and "DatabaseUnavailableError" in text_of(result), name
            assert took < ERROR_WITHIN_S, (name, took)
        status, took = await timed(client, "status", {})
        assert not status.is_error and took < ERROR_WITHIN_S
        assert status.structured_content is not None
        assert status.structured_content["reachable"] is False
        assert "DatabaseUnavailableError" in status.structured_content["error"]

    _serve(down, body)


def test_stdio_server_answers_and_fails_fast_without_neo4j(tmp_path: Path) -> None:
    """The real command starts without a database (it used to exit 3 at start-up)."""
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{_closed_port()}", password="x")
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["tools"] = {t.name for t in (await client.list_tools()).tools}
        seen["version"] = client.server_info.version if client.server_info else None
        result, took = await timed(client, "recall", {"goal": "g", **TRIGGER})
        seen["error"], seen["took"] = text_of(result), took

    _stdio(down, body, tmp_path, timeout_s=60)
    assert {"recall", "get", "recent", "status"} <= seen["tools"]
    assert seen["version"] == metadata.version("graphmem")
    assert "DatabaseUnavailableError" in seen["error"]
    assert seen["took"] < ERROR_WITHIN_S


def test_annotations_say_what_each_tool_does() -> None:
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{_closed_port()}", password="x")
    hints: dict[str, tuple[bool | None, bool | None, bool | None]] = {}
    version: list[str | None] = []

    async def body(client: Client) -> None:
        for tool in (await client.list_tools()).tools:
            a = tool.annotations
            assert a is not None and a.open_world_hint is False, tool.name
            hints[tool.name] = (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
        version.append(client.server_info.version if client.server_info else None)

    _serve(down, body, allow_deletion=True)
    assert version == [metadata.version("graphmem")]
    read_only = {name for name, (ro, _, _) in hints.items() if ro}
    assert read_only == {"get", "recent", "status", "explain", "history", "lineage",
                         "verify_deletion"}  # recall logs its retrieval; plan_deletion
    destructive = {name for name, (_, d, _) in hints.items() if d}  # stores its plan
    assert destructive == {"retract", "supersede", "process_event", "apply_deletion"}
    assert all(not d for ro, d, _ in hints.values() if ro)


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

    _serve(neo4j_db.settings, body)


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

    _serve(neo4j_db.settings, plan, allow_deletion=True)
    digest = planned["digest"]
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (d:DeletionRequest) RETURN d {.*} AS d", database_=store_of(memory).database)
    [stored] = [r["d"] for r in rows]
    assert stored["state"] == "planned" and stored["digest"] == digest
    assert "jane roe" not in json.dumps(stored, default=str).lower()

    async def other_caller(client: Client) -> None:  # another principal: unknown plan
        await refused(client, "apply_deletion", {"digest": digest, "plan": planned["plan"]},
                      "DeletionError", "no stored plan")

    _serve(neo4j_db.settings, other_caller, allow_deletion=True, clearance="confidential")
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

    _stdio(neo4j_db.settings, apply, tmp_path, "--allow-deletion")
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

    _serve(neo4j_db.settings, body, allow_deletion=True, plan_ttl_s=1.0)


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
        _stdio(settings, body, tmp_path)
    finally:
        servers[-1].close()
    for name, is_error, text, took in seen["failures"]:
        assert is_error and "DatabaseUnavailableError" in text, (name, text)
        assert took < ERROR_WITHIN_S, (name, took)
    assert seen["status_down"] is False
    assert seen["back"] == [seen["kept"]]
