"""The MCP server tests' shared setup: the command, a server's environment, timed calls,
and servers in process or over stdio with the default (short) database budget."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
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
from tests.support.mcp_client import leaf, run

COMMAND = [sys.executable, "-m", "graphmem.cli", "mcp", "--tenant", "acme",
           "--agent", "infra-test"]
HUMAN = {"authority": "human_instruction"}
TRIGGER = {"needs_prior_context": True}
ERROR_WITHIN_S = 2.0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def server_env(settings: ConnectionSettings, **extra: str) -> dict[str, str]:
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
            "NEO4J_PASSWORD": settings.password, "NEO4J_DATABASE": settings.database,
            **extra}


async def timed(client: Client, name: str, args: dict[str, Any]
                ) -> tuple[CallToolResult, float]:
    started = time.monotonic()
    result = await client.call_tool(name, args)
    return result, time.monotonic() - started


def run_main(main: Callable[[], Awaitable[None]]) -> None:
    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # the SDK's task groups wrap a failing assertion
        raise leaf(group) from None


def serve_default(settings: ConnectionSettings, body: Callable[[Client], Awaitable[None]], *,
           allow_deletion: bool = False, clearance: str = "normal",
           plan_ttl_s: float = 3600.0) -> None:
    """Run ``body`` against an in-process server with the default (short) database budget."""
    config = ServerConfig.build(tenants=("acme",), clearance=clearance, agent="infra-test",
                                allow_deletion=allow_deletion, plan_ttl_s=plan_ttl_s)
    run(build_server(config, connect=partial(open_memory, config.db_timeout_s, settings)), body)


def serve_stdio(settings: ConnectionSettings, body: Callable[[Client], Awaitable[None]],
           tmp_path: Path, *args: str, timeout_s: float = 300) -> None:
    """Run ``body`` against ``graphmem mcp`` as a subprocess over stdio."""
    params = StdioServerParameters(command=COMMAND[0], args=[*COMMAND[1:], *args],
                                   env=server_env(settings), cwd=str(Path.cwd()))

    async def main() -> None:
        with (tmp_path / "stderr.log").open("a") as errlog, anyio.fail_after(timeout_s):
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await body(client)

    run_main(main)
