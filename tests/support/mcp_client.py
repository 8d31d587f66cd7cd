"""Helpers for tests that drive graphmem's MCP server through the official SDK's client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from graphmem import AsyncMemory, Memory
from graphmem.aio.calls import Threads
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.server import build_server
from graphmem.integrations.mcp.state import ServerState
from tests.support.database import Neo4jUnderTest

__all__ = ["leaf", "ok", "refused", "run", "serve", "text_of", "tool_context"]

Body = Callable[[Client], Awaitable[None]]


def leaf(exc: BaseException) -> BaseException:
    """The one exception inside the SDK's nested task-group exceptions."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def text_of(result: CallToolResult) -> str:
    """A tool result's text content, joined."""
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


async def ok(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await client.call_tool(name, args)
    assert not result.is_error, text_of(result)
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


async def refused(client: Client, name: str, args: dict[str, Any], *needles: str) -> str:
    """Call a tool that must fail with every needle in its message; the message."""
    result = await client.call_tool(name, args)
    text = text_of(result)
    assert result.is_error, text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def run(server: MCPServer, body: Body, *, timeout_s: float = 120) -> None:
    """Run ``body`` with an SDK client connected to ``server`` in process; a failing
    assertion in ``body`` comes out as itself, not wrapped in the SDK's task groups."""

    async def main() -> None:
        with anyio.fail_after(timeout_s):
            async with Client(server) as client:
                await body(client)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:
        raise leaf(group) from None


def serve(neo4j_db: Neo4jUnderTest, body: Body, **options: Any) -> None:
    """Run ``body`` against a fresh in-process server on the test session's Neo4j (its own
    AsyncMemory, opened by the first call); ``options`` go to :meth:`ServerConfig.build`, with
    tenant ``acme`` and agent ``test-agent`` unless given."""
    options = {"tenants": ("acme",), "agent": "test-agent", **options}
    config = ServerConfig.build(**options)
    run(build_server(config, connect=lambda: AsyncMemory.connect(
        neo4j_db.settings, start_if_needed=False, ensure_schema=False)), body)


def tool_context(config: ServerConfig, memory: Memory) -> Any:
    """A tool's context as the SDK passes it, whose server state holds ``memory`` (a blocking
    client, as the fuzz fixtures make) run on an async client's worker threads: each tool
    call then runs in ``asyncio.run`` of its own."""

    async def connect() -> AsyncMemory:
        return AsyncMemory(memory, threads=Threads(), view=True)

    return SimpleNamespace(request_context=SimpleNamespace(
        lifespan_context=ServerState(config=config, connect=connect)))
