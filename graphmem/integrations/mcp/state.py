"""What the MCP server holds for its life: its fixed configuration and an async client
(:class:`graphmem.AsyncMemory`) connected on first use, with a short database budget
(docs/spec/scale.md).

The server answers ``initialize`` and ``tools/list`` before it has a database: the client is
opened by the first call that needs it, on the server's event loop (the tools are coroutines
awaiting the client's). While Neo4j is unreachable every call fails within about
:attr:`ServerConfig.db_timeout_s` seconds with :class:`~graphmem.errors.DatabaseUnavailableError`,
and a later call connects again by itself: no restart. The driver and the client are not
imported to answer ``initialize`` and ``tools/list``: a :class:`Preloader` imports them on a
background thread once the tools have been listed (an agent's first call usually comes a model
turn later), and the first connection waits for that import on a worker thread, never on the
event loop. It tries the database's address first, so a refused database errs within the
budget however long the import takes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.mcpserver import Context

from graphmem.errors import DatabaseUnavailableError, GraphmemError

from .config import ServerConfig

if TYPE_CHECKING:
    from graphmem.aio import AsyncMemory
    from graphmem.db.settings import ConnectionSettings
    from graphmem.db.store import Neo4jStore

P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["BOLT_PORT", "CLIENT_MODULES", "CONNECT_FACTOR", "MIN_CONNECT_S", "RETRY_PAUSE_S",
           "Ctx", "Preloader", "ServerState", "open_memory", "require_listener",
           "server_state"]

CONNECT_FACTOR = 4.0
MIN_CONNECT_S = 3.0
"""Opening one connection may take ``max(CONNECT_FACTOR * budget, MIN_CONNECT_S)`` seconds."""


BOLT_PORT = 7687
RETRY_PAUSE_S = 0.05
"""Pause between two refused attempts of :func:`require_listener`."""

CLIENT_MODULES = ("graphmem.db.server", "graphmem.client", "graphmem.aio")
"""What :func:`open_memory` imports: the driver (and numpy), the client (the rankers, the
lineage graph) and its async form."""


class Preloader:
    """Imports modules on one background thread, started at most once, so that a later
    call finds them imported (a call importing one meanwhile waits for this import
    rather than making its own: Python's per-module import lock).

    Args:
        modules: dotted module names, imported in order.
    """

    def __init__(self, modules: tuple[str, ...] = CLIENT_MODULES) -> None:
        self.modules = modules
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start importing (a daemon thread); a second call does nothing."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="graphmem-preload",
                                                daemon=True)
                self._thread.start()

    def join(self) -> None:
        """Wait for a started import to end (so the interpreter never stops in its
        middle); returns at once if none was started."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        for name in self.modules:
            try:
                importlib.import_module(name)
            except Exception:  # the call that needs the module imports it and reports why
                return


async def open_memory(budget_s: float, settings: ConnectionSettings | None = None
                      ) -> AsyncMemory:
    """An async client, on the running event loop, whose failing database calls give up
    after about ``budget_s`` seconds.

    Failed attempts are retried for ``budget_s`` seconds (the defaults of
    :class:`~graphmem.ConnectionSettings` are for scripts that would rather wait than fail;
    an agent's tool call would rather fail fast): a stopped server refuses at once, so its
    error comes within about ``budget_s``. Opening one connection (handshake and
    authentication, slow on a loaded machine) may take
    ``max(CONNECT_FACTOR * budget_s, MIN_CONNECT_S)``, so a server that accepts connections
    but does not answer errs after that long. An idle
    pooled connection is checked before use, so the first call after Neo4j restarted does
    not fail on a connection to the old process. Settings:
    ``settings``; else ``NEO4J_*``; else the ``graphmem db start`` server; else the local
    server is started as :meth:`graphmem.AsyncMemory.connect` does (slow, once).

    With settings known, the database's address is tried (:func:`require_listener`) before
    the driver and the client are imported: a refused database errs within ``budget_s``
    even while a first call would still be importing them (CPU time, long on a loaded
    machine). The address is tried, and the client imported, on a worker thread: the event
    loop keeps serving meanwhile.

    Raises:
        DatabaseUnavailableError: no server answered within the budget.
        DatabaseAuthError: the server refused the credentials.
    """
    from graphmem.db.settings import ConnectionSettings

    if settings is None:
        settings = ConnectionSettings.from_env()
    if settings is None:
        settings = await anyio.to_thread.run_sync(_started_server)
    if settings is None:
        client = await _client_class()
        return await client.connect()
    opening = max(CONNECT_FACTOR * budget_s, MIN_CONNECT_S)
    quick = dataclasses.replace(settings, connection_timeout_s=opening,
                                acquisition_timeout_s=opening, retry_time_s=budget_s,
                                liveness_check_s=0.0)
    await anyio.to_thread.run_sync(lambda: require_listener(quick.uri, budget_s=budget_s,
                                                            timeout_s=opening))
    client = await _client_class()
    return await client.connect(quick, start_if_needed=False)


def _started_server() -> ConnectionSettings | None:
    """The ``graphmem db start`` server's settings, if it runs (imports the driver)."""
    from graphmem.db.server import status

    running = status()
    return running.settings if running is not None else None


async def _client_class() -> type[AsyncMemory]:
    """:class:`graphmem.AsyncMemory`, imported on a worker thread (or waited for there while
    the :class:`Preloader` imports it), so the event loop never carries the import."""
    module = await anyio.to_thread.run_sync(importlib.import_module, "graphmem.aio")
    client: type[AsyncMemory] = module.AsyncMemory
    return client


def require_listener(uri: str, *, budget_s: float, timeout_s: float) -> None:
    """Return once something at ``uri``'s host and port (7687 when it names none) accepts
    a TCP connection; attempts are retried for ``budget_s`` seconds, each may take
    ``timeout_s``. Says nothing of the Bolt handshake or the credentials (the driver checks
    those); a URI whose address cannot be read passes, for the driver to judge.

    Args:
        uri: a Bolt or routing URI (``bolt://host:port``, ``neo4j+s://host`` ...).
        budget_s: seconds to keep trying after a refused or failed attempt.
        timeout_s: seconds one attempt may take.

    Raises:
        DatabaseUnavailableError: no attempt connected within the budget.
    """
    try:
        parts = urlsplit(uri)
        host, port = parts.hostname, parts.port or BOLT_PORT
    except ValueError:  # a bad port: the driver's error says what is wrong
        return
    if not host:
        return
    deadline = time.monotonic() + budget_s
    while True:
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as exc:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DatabaseUnavailableError(
                    f"Neo4j is unreachable while connecting to {uri} "
                    f"({type(exc).__name__}: {exc.strerror or exc})") from exc
            time.sleep(min(RETRY_PAUSE_S, left))


@dataclass
class ServerState:
    """The server's state for its life (the SDK's lifespan context).

    Attributes:
        config: the fixed principal and scope.
        connect: opens the async client on the server's event loop (called again after a
            failed attempt); the server closes it when it stops.
    """

    config: ServerConfig
    connect: Callable[[], Awaitable[AsyncMemory]]
    _memory: AsyncMemory | None = None
    _root: AsyncMemory | None = None
    _connecting: asyncio.Lock = field(default_factory=asyncio.Lock)
    _attempts: int = 0
    _last_error: GraphmemError | None = None

    async def memory(self) -> AsyncMemory:
        """The connected client, bound to ``config.principal`` (:meth:`AsyncMemory.confined`),
        connecting now if no call has yet.

        A call that waited for another call's attempt takes that attempt's outcome rather
        than making its own (so a failure costs each call one budget at most).

        Raises:
            DatabaseUnavailableError, DatabaseAuthError: the connection failed.
        """
        memory = self._memory
        if memory is not None:
            return memory
        seen = self._attempts
        async with self._connecting:
            if self._memory is not None:
                return self._memory
            if self._attempts != seen and self._last_error is not None:
                raise self._last_error
            self._attempts += 1
            try:
                root = await self.connect()
                # the core confines every call to the server's principal and ceiling
                self._memory = root.confined(self.config.principal,
                                             max_authority=self.config.max_authority)
                self._root = root
            except GraphmemError as exc:
                self._last_error = exc
                raise
            self._last_error = None
            return self._memory

    async def store(self) -> Neo4jStore:
        """The connected client's store, for what sends nothing (its ``clock``, its
        ``limits``); its operations go through :meth:`on_store`."""
        from graphmem.aio.client import store_of

        return store_of(await self.memory())

    async def on_store(self, call: Callable[Concatenate[Neo4jStore, P], R], *args: P.args,
                       **kwargs: P.kwargs) -> R:
        """Await ``call(store, *args, **kwargs)`` on a worker thread of the client (the
        store's blocking operations, such as ``recent``), connecting first if needed.

        Raises:
            DatabaseUnavailableError, DatabaseAuthError: the connection failed. Whatever
            ``call`` raises.
        """
        from graphmem.aio.client import on_store

        return await on_store(await self.memory(), call, *args, **kwargs)

    @property
    def connected(self) -> bool:
        """Whether a client is open (says nothing about the database being up now)."""
        return self._memory is not None

    async def close(self) -> None:
        """Close the client, if one was opened."""
        async with self._connecting:
            root, self._root, self._memory = self._root, None, None
        if root is not None:  # the bound view's own close does nothing
            await root.close()


Ctx = Context[ServerState, Any]


def server_state(ctx: Ctx) -> ServerState:
    """The server's state, from a tool's context."""
    return ctx.request_context.lifespan_context
