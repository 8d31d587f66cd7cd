"""The MCP tools that read memories by id or by recency, and the server's status: what a
client that passes only tools to its model (not resources) needs (docs/spec/eligibility.md).

``get`` reads one memory the server's principal may see; ``recent`` pages through the newest
memories eligible for the principal and the server's scope (the candidates' eligibility);
``status`` says whether the database answers and how many records are in reach, and is
answered (``reachable: false``) while the database is down.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from graphmem.errors import DatabaseUnavailableError

from .schemas import GetOut, MemoryOut, RecentOut, StatusOut
from .state import Ctx, server_state
from .tools import MemoryId, ScopeAdditions, tool_errors

if TYPE_CHECKING:
    from datetime import datetime

    from graphmem.db.store import Neo4jStore
    from graphmem.models import MemoryRecord, Principal

__all__ = ["get", "package_version", "recent", "status"]

MAX_PAGE = 100
"""Most memories one ``recent`` page returns (one more is read, to know whether a next page
exists; graphmem.db.browse allows 200)."""



def package_version() -> str:
    """graphmem's installed version (``importlib.metadata``), or ``"unknown"``."""
    try:
        return metadata.version("graphmem")
    except metadata.PackageNotFoundError:
        return "unknown"


def _out(record: MemoryRecord) -> MemoryOut:
    return MemoryOut(
        id=record.id, kind=record.kind.value, content=record.content,
        scope=dict(record.scope), source=record.provenance.get("source", "unknown"),
        authority=record.authority.value, sensitivity=record.sensitivity.value,
        created_at=record.created_at, asserts=record.asserts,
        asserted_value=record.asserted_value, valid_from=record.valid_from,
        expires_at=record.expires_at)


def _recent(store: Neo4jStore, principal: Principal, scope: dict[str, str], now: datetime,
            *, limit: int, offset: int) -> list[MemoryRecord]:
    return store.recent(principal, scope, now, limit=limit, offset=offset)


def _reach_counts(store: Neo4jStore, principal: Principal, scope: dict[str, str],
                  now: datetime) -> dict[str, int]:
    return store.reach_counts(principal, scope, now)


async def get(ctx: Ctx, id: MemoryId, scope: ScopeAdditions = None) -> GetOut:
    """One memory by id, and whether it is retrievable now for this server.

    Raises:
        ToolError: unknown or erased id, or a memory outside the principal.
    """
    state = server_state(ctx)
    with tool_errors():
        resolved = state.config.resolve_scope(scope)
        memory = await state.memory()
        record = await memory.get(id)
        e = await memory.explain(id, principal=state.config.principal, scope=resolved)
        return GetOut(memory=_out(record), status=e.status.value, reason=e.detail)


async def recent(
    ctx: Ctx,
    limit: Annotated[int, Field(ge=1, le=MAX_PAGE, description="Most memories to return.")
                     ] = 20,
    offset: Annotated[int, Field(ge=0, description="How many of the newest to skip (the "
                                                   "next_offset of the previous page).")] = 0,
    scope: ScopeAdditions = None,
) -> RecentOut:
    """The newest memories eligible for this server now, newest first, one page.

    Raises:
        ToolError: a scope outside the principal, or a bad limit/offset.
    """
    state = server_state(ctx)
    with tool_errors():
        resolved = state.config.resolve_scope(scope)
        now = (await state.store()).clock()
        records = await state.on_store(_recent, state.config.principal, resolved, now,
                                       limit=limit + 1, offset=offset)
        page = records[:limit]
        return RecentOut(memories=[_out(r) for r in page], offset=offset, limit=limit,
                         next_offset=offset + limit if len(records) > limit else None)


async def status(ctx: Ctx, scope: ScopeAdditions = None) -> StatusOut:
    """Whether the database answers, and how many records are within this server's reach.

    Raises:
        ToolError: a scope outside the principal (an unreachable database is not an error
            here: ``reachable`` is false and ``error`` says why).
    """
    state = server_state(ctx)
    with tool_errors():
        resolved = state.config.resolve_scope(scope)
        try:
            now = (await state.store()).clock()
            counts = await state.on_store(_reach_counts, state.config.principal, resolved,
                                          now)
        except DatabaseUnavailableError as exc:
            return StatusOut(version=package_version(), reachable=False,
                             error=f"{type(exc).__name__}: {exc}", scope=resolved,
                             deletion_tools=state.config.allow_deletion)
        return StatusOut(version=package_version(), reachable=True, scope=resolved,
                         counts=counts, deletion_tools=state.config.allow_deletion)
