"""Build graphmem's MCP server from a :class:`~.config.ServerConfig`.

:func:`build_server` returns an ``mcp.server.mcpserver.MCPServer`` (the official SDK,
major version 2) with the tools of :mod:`.tools`, their annotations and one-line
descriptions written for a model, and the resources ``graphmem://memory/{id}`` and
``graphmem://lineage/{id}``. The server answers ``initialize`` and ``tools/list`` without
a database: its one :class:`graphmem.AsyncMemory` is opened by the first call that needs it
(:class:`~.state.ServerState`, with the configuration's short database budget), again after
a failed attempt, and closed when the server stops (the SDK's lifespan: once per stdio run,
once for the HTTP app). The first ``tools/list`` starts importing the client and the driver
in the background (:class:`~.state.Preloader`; the server waits for that import before it
stops). The deletion tools exist only when the configuration allows deletion.
``serverInfo.version`` is graphmem's installed version.

Over HTTP (:func:`http_security`) a request is answered only when its ``Host`` (and its
``Origin``, when a browser sends one) names this machine by a loopback name, the ``--host``
address or an ``--allowed-host`` name, wherever the server listens: a page of another site
whose name was rebound to this machine (DNS rebinding) reaches no tool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import Tool, ToolAnnotations

from . import privacy, reading, resources, tools
from .config import ServerConfig
from .http_auth import BearerToken, auth_settings
from .state import Preloader, ServerState, open_memory

if TYPE_CHECKING:
    from graphmem.aio import AsyncMemory

__all__ = ["DELETION_TOOLS", "LOOPBACK_HOSTS", "SERVER_NAME", "TOOLS", "ToolSpec", "build_server",
           "http_security"]

SERVER_NAME = "graphmem"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names of this machine an HTTP request's Host may always give."""
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
"""Listening addresses that name no one host (every interface)."""

INSTRUCTIONS = (
    "graphmem is governed memory for this agent. Call recall before a decision that prior "
    "information could change (set a trigger flag: new_error, strategy_failed, "
    "returning_entity, needs_prior_context or due_cue); conflicting memories come back "
    "together, never one silently chosen. Call remember for facts, outcomes and "
    "procedures worth keeping, retract or supersede what turned out wrong, and record_use "
    "after acting on recalled memories. Who you are and your tenant are fixed by the "
    "server; you cannot change them."
)


class ToolSpec(NamedTuple):
    """One tool: its function, its one-line description for a model, its annotations."""

    fn: Callable[..., Any]
    description: str
    annotations: ToolAnnotations


def _hints(*, read_only: bool = False, destructive: bool = False,
           idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=False)


# Annotations say what a tool does to the memory store: read_only only for a tool that
# writes nothing (recall logs its retrieval, plan_deletion stores its plan); destructive for
# one that makes memories or intentions stop being served (retract, supersede, a fired
# intention, a deletion); idempotent when a repeat with the same arguments changes nothing.
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(tools.remember, "Store a memory (fact, episode or procedure); the write "
             "policy decides whether it persists and says why.", _hints()),
    ToolSpec(tools.recall, "Recall the memories relevant to the current decision, "
             "within a character budget, with every conflict among them (the retrieval "
             "is logged).", _hints()),
    ToolSpec(reading.get, "Read one memory by id, with whether it is retrievable now.",
             _hints(read_only=True, idempotent=True)),
    ToolSpec(reading.recent, "List the newest memories you may recall now, newest first, "
             "a page at a time.", _hints(read_only=True, idempotent=True)),
    ToolSpec(reading.status, "Check whether the memory database answers and how many "
             "memories are within your reach.", _hints(read_only=True, idempotent=True)),
    ToolSpec(tools.explain, "Explain why a memory is or is not retrievable now (status, "
             "reason, successors).", _hints(read_only=True, idempotent=True)),
    ToolSpec(tools.history, "List a memory's transitions and write decisions, oldest "
             "first.", _hints(read_only=True, idempotent=True)),
    ToolSpec(tools.retract, "Retract a memory that turned out wrong; it is never "
             "recalled again (history is kept).", _hints(destructive=True, idempotent=True)),
    ToolSpec(tools.supersede, "Replace memories with a corrected successor; the old ones "
             "stop being recalled.", _hints(destructive=True)),
    ToolSpec(tools.lineage, "Show what a memory was derived from (or what was derived "
             "from it) as Mermaid and node-link JSON.", _hints(read_only=True,
                                                               idempotent=True)),
    ToolSpec(tools.intend, "Remember to do something later: an action that fires once "
             "when an event carries the cue.", _hints()),
    ToolSpec(tools.process_event, "Report an event; returns the deferred intentions it "
             "fires (each fires exactly once).", _hints(destructive=True, idempotent=True)),
    ToolSpec(tools.record_use, "Record which recalled memories an action used and whether "
             "they helped.", _hints()),
)

DELETION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(privacy.plan_deletion, "Plan a lineage-aware deletion of memories or a subject "
             "and return it with its digest for review; deletes nothing (the plan is kept "
             "for apply_deletion).", _hints()),
    ToolSpec(privacy.apply_deletion, "Apply a reviewed deletion plan by its digest; refuses "
             "a stale, edited or expired plan.", _hints(destructive=True, idempotent=True)),
    ToolSpec(privacy.verify_deletion, "Re-verify an applied deletion request and return its "
             "audit report.", _hints(read_only=True, idempotent=True)),
)


class _Server(MCPServer[ServerState]):
    """The SDK's server, which starts its :class:`~.state.Preloader` once it has listed
    the tools (the answer is built first)."""

    preloader: Preloader
    #: The running server's state, set by its lifespan. Resource templates read it here,
    #: not from a ``Context`` argument: some SDK releases validate template arguments with
    #: pydantic, and the copy of the ``Context`` that makes has no request attached.
    running: ServerState | None = None

    def state(self) -> ServerState:
        """The running server's state (raises ``ResourceError`` outside its lifespan)."""
        if self.running is None:
            raise ResourceError("the graphmem MCP server is not running")
        return self.running

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        self.preloader.start()
        return tools


def build_server(
    config: ServerConfig, connect: Callable[[], Awaitable[AsyncMemory]] | None = None, *,
    bearer_token: str | None = None,
) -> MCPServer[ServerState]:
    """graphmem's MCP server.

    Args:
        config: the fixed principal, default scope, agent name, deletion switch and
            database budget.
        connect: opens the server's one ``AsyncMemory`` on the server's event loop, on the
            first call that needs it, and again after a failed attempt (a coroutine
            function; default: :func:`~.state.open_memory` with ``config.db_timeout_s``:
            ``NEO4J_*`` or the ``graphmem db start`` server); the server closes it when it
            stops.
        bearer_token: the token every HTTP request must carry (``Authorization: Bearer``;
            :mod:`.http_auth`); None: none asked (stdio, or an app served in process).

    Returns:
        An ``MCPServer``: ``run()`` for stdio, ``run("streamable-http", host=..,
        port=..)`` for HTTP, or ``mcp.Client(server)`` in process.
    """
    opener = connect or partial(open_memory, config.db_timeout_s)
    preloader = Preloader()

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
        state = ServerState(config=config, connect=opener)
        server.running = state
        try:
            yield state
        finally:
            server.running = None
            await anyio.to_thread.run_sync(preloader.join)
            await state.close()

    server = _Server(
        SERVER_NAME, title="graphmem memory", instructions=INSTRUCTIONS,
        version=reading.package_version(), lifespan=lifespan, log_level="WARNING",
        token_verifier=None if bearer_token is None else BearerToken(bearer_token),
        auth=None if bearer_token is None else auth_settings())
    server.preloader = preloader
    for spec in (*TOOLS, *(DELETION_TOOLS if config.allow_deletion else ())):
        server.add_tool(spec.fn, description=spec.description, annotations=spec.annotations,
                        structured_output=True)

    async def memory(id: str) -> str:
        return await resources.memory_resource(id, server.state())

    async def lineage(id: str) -> str:
        return await resources.lineage_resource(id, server.state())

    server.resource("graphmem://memory/{id}", name="memory", mime_type="application/json",
                    description="A memory as JSON (this server's tenants only).")(memory)
    server.resource("graphmem://lineage/{id}", name="lineage", mime_type="application/json",
                    description="A memory's lineage, both directions, as node-link JSON.",
                    )(lineage)
    return server


def http_security(host: str, allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """The DNS-rebinding check of the HTTP transport, on whatever address it listens.

    The SDK turns its check on only for a loopback ``host``; on ``0.0.0.0`` or a LAN address
    it accepted any ``Host`` and ``Origin``, so a page of another site whose name was rebound
    to this machine could call every tool as the server's principal.

    Args:
        host: the listening address (``--host``); a wildcard (``0.0.0.0``, ``::``) adds no
            name. allowed_hosts: more names clients reach the server by (``--allowed-host``),
            without a port.

    Returns:
        Settings allowing a ``Host`` (any port or none) and an ``Origin`` (http or https) of
        the loopback names, ``host`` and ``allowed_hosts`` only (each as given and
        lowercased).
    """
    names = list(LOOPBACK_HOSTS)
    for name in (host, *allowed_hosts):
        name = name.strip()
        if name not in WILDCARD_HOSTS:
            name = f"[{name}]" if ":" in name and not name.startswith("[") else name
            # the SDK compares as written; a host name is not case-sensitive, and browsers
            # and httpx send it lowercased
            names.extend(dict.fromkeys((name, name.lower())))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in names for h in (n, f"{n}:*")],
        allowed_origins=[f"{scheme}://{h}" for n in names for scheme in ("http", "https")
                         for h in (n, f"{n}:*")])
