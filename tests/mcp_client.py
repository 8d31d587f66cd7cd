"""Helpers for tests that drive graphmem's MCP server through the official SDK's client."""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.types import CallToolResult, TextContent

__all__ = ["leaf", "ok", "refused", "text_of"]


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
