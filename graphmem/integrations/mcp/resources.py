"""The MCP resources ``graphmem://memory/{id}`` and ``graphmem://lineage/{id}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ResourceError

from graphmem.errors import GraphmemError
from graphmem.integrations.mcp.state import ServerState
from graphmem.integrations.mcp.tools import error_name

__all__ = ["lineage_resource", "memory_resource"]


# -- resources --------------------------------------------------------------------------


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except GraphmemError as exc:
        raise ResourceError(f"{error_name(exc)}: {exc}") from None


async def memory_resource(id: str, state: ServerState) -> str:
    """``graphmem://memory/{id}``: the memory as JSON (within the principal's reach only)."""
    with _resource_errors():
        return (await (await state.memory()).get(id)).model_dump_json(indent=2)


async def lineage_resource(id: str, state: ServerState) -> str:
    """``graphmem://lineage/{id}``: the memory's lineage (both ways) as node-link JSON."""
    from graphmem.lineage import export

    with _resource_errors():
        graph = await (await state.memory()).lineage(id, "both", None)
        return str(export(graph, "json"))
