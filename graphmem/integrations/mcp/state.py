"""What the MCP server holds for its life: its fixed configuration and a client connected
on first use, with a short database budget (SPEC section 10).

The server answers ``initialize`` and ``tools/list`` before it has a database: the
``Memory`` is opened by the first call that needs it. While Neo4j is unreachable every
call fails within about :attr:`ServerConfig.db_timeout_s` seconds with
:class:`~graphmem.errors.DatabaseUnavailableError`, and a later call connects again by
itself: no restart. The driver and the client are not imported to answer ``initialize``
and ``tools/list``: a :class:`Preloader` imports them on a background thread once the
tools have been listed (an agent's first call usually comes a model turn later), and the
first connection waits for that import or makes it.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context

from graphmem.errors import GraphmemError

from .config import ServerConfig

if TYPE_CHECKING:
    from graphmem.client import Memory
    from graphmem.db.settings import ConnectionSettings

__all__ = ["CLIENT_MODULES", "CONNECT_FACTOR", "MIN_CONNECT_S", "Ctx", "Preloader",
           "ServerState", "open_memory", "server_state"]

CONNECT_FACTOR = 4.0
MIN_CONNECT_S = 3.0
"""Opening one connection may take ``max(CONNECT_FACTOR * budget, MIN_CONNECT_S)`` seconds."""


CLIENT_MODULES = ("graphmem.db.drivers", "graphmem.db.server", "graphmem.client")
"""What :func:`open_memory` imports, in its order: the driver (and numpy), then the client
(the rankers, the lineage graph)."""


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


def open_memory(budget_s: float, settings: ConnectionSettings | None = None) -> Memory:
    """A client whose failing database calls give up after about ``budget_s`` seconds.

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
    server is started as :meth:`graphmem.Memory.connect` does (slow, once).

    Raises:
        DatabaseUnavailableError: no server answered within the budget.
        DatabaseAuthError: the server refused the credentials.
    """
    from graphmem.db.drivers import shared_driver
    from graphmem.db.server import status
    from graphmem.db.settings import ConnectionSettings

    if settings is None:
        settings = ConnectionSettings.from_env()
    if settings is None:
        running = status()
        settings = running.settings if running is not None else None
    if settings is None:
        from graphmem.client import Memory

        return Memory.connect()
    opening = max(CONNECT_FACTOR * budget_s, MIN_CONNECT_S)
    quick = dataclasses.replace(settings, connection_timeout_s=opening,
                                acquisition_timeout_s=opening, retry_time_s=budget_s,
                                liveness_check_s=0.0)
    # the driver alone first: an unreachable database errs without waiting for the
    # client's own imports (the rankers, the lineage graph), which a first call may
    # still be making; the client then shares this checked driver
    _, release = shared_driver(quick, deadline_s=budget_s)
    try:
        from graphmem.client import Memory

        return Memory.connect(quick, start_if_needed=False)
    finally:
        release()


@dataclass
class ServerState:
    """The server's state for its life (the SDK's lifespan context).

    Attributes:
        config: the fixed principal and scope.
        connect: opens the client (called again after a failed attempt).
    """

    config: ServerConfig
    connect: Callable[[], Memory]
    _memory: Memory | None = None
    _root: Memory | None = None
    _connecting: threading.Lock = field(default_factory=threading.Lock)
    _attempts: int = 0
    _last_error: GraphmemError | None = None

    @property
    def memory(self) -> Memory:
        """The connected client, bound to ``config.principal`` (:meth:`Memory.confined`),
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
        with self._connecting:
            if self._memory is not None:
                return self._memory
            if self._attempts != seen and self._last_error is not None:
                raise self._last_error
            self._attempts += 1
            try:
                root = self.connect()
                # the core confines every call to the server's principal and ceiling
                self._memory = root.confined(self.config.principal,
                                             max_authority=self.config.max_authority)
                self._root = root
            except GraphmemError as exc:
                self._last_error = exc
                raise
            self._last_error = None
            return self._memory

    @property
    def connected(self) -> bool:
        """Whether a client is open (says nothing about the database being up now)."""
        return self._memory is not None

    def close(self) -> None:
        """Close the client, if one was opened."""
        with self._connecting:
            root, self._root, self._memory = self._root, None, None
        if root is not None:  # the bound view's own close does nothing
            root.close()


Ctx = Context[ServerState, Any]


def server_state(ctx: Ctx) -> ServerState:
    """The server's state, from a tool's context."""
    return ctx.request_context.lifespan_context
