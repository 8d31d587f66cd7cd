"""The MCP server without a database: it lists its tools and answers every tool with a fast
typed error, in process and over stdio, while Neo4j is unreachable; its tool annotations say
what each tool does."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from graphmem.db.settings import ConnectionSettings
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.server import build_server
from graphmem.integrations.mcp.state import open_memory
from tests.support.mcp_client import leaf, run, text_of

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


# -- a database that goes away and comes back -------------------------------------------------


