"""What the MCP server holds for its life: its fixed configuration and a client connected
on first use, with a short database budget (docs/spec/scale.md).

The server answers ``initialize`` and ``tools/list`` before it has a database: the
``Memory`` is opened by the first call that needs it. While Neo4j is unreachable every
call fails within about :attr:`ServerConfig.db_timeout_s` seconds with
:class:`~graphmem.errors.DatabaseUnavailableError`, and a later call connects again by
itself: no restart. The driver and the client are not imported to answer ``initialize``
and ``tools/list``: a :class:`Preloader` imports them on a background thread once the
tools have been listed (an agent's first call usually comes a model turn later). The
first connection tries the database's address before it waits for that import (or makes
it), so a refused database errs within the budget however long the import takes.
"""

from __future__ import annotations

import dataclasses
import importlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcp.server.mcpserver import Context

from graphmem.errors import DatabaseUnavailableError, GraphmemError

from .config import ServerConfig

if TYPE_CHECKING:
    from graphmem.client import Memory
    from graphmem.db.settings import ConnectionSettings
    from graphmem.db.store import Neo4jStore

__all__ = ["BOLT_PORT", "CLIENT_MODULES", "CONNECT_FACTOR", "MIN_CONNECT_S", "RETRY_PAUSE_S",
           "Ctx", "Preloader", "ServerState", "open_memory", "require_listener",
           "server_state"]

CONNECT_FACTOR = 4.0
MIN_CONNECT_S = 3.0
"""Opening one connection may take ``max(CONNECT_FACTOR * budget, MIN_CONNECT_S)`` seconds."""


BOLT_PORT = 7687
RETRY_PAUSE_S = 0.05
"""Pause between two refused attempts of :func:`require_listener`."""

CLIENT_MODULES = ("graphmem.db.server", "graphmem.client")
"""What :func:`open_memory` imports: the driver (and numpy), the client (the rankers, the
lineage graph)."""


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

    With settings known, the database's address is tried (:func:`require_listener`) before
    the driver and the client are imported: a refused database errs within ``budget_s``
    even while a first call would still be importing them (CPU time, long on a loaded
    machine).

    Raises:
        DatabaseUnavailableError: no server answered within the budget.
        DatabaseAuthError: the server refused the credentials.
    """
    from graphmem.db.settings import ConnectionSettings

    if settings is None:
        settings = ConnectionSettings.from_env()
    if settings is None:
        from graphmem.db.server import status

        running = status()
        settings = running.settings if running is not None else None
    if settings is None:
        from graphmem.client import Memory

        return Memory.connect()
    opening = max(CONNECT_FACTOR * budget_s, MIN_CONNECT_S)
    quick = dataclasses.replace(settings, connection_timeout_s=opening,
                                acquisition_timeout_s=opening, retry_time_s=budget_s,
                                liveness_check_s=0.0)
    require_listener(quick.uri, budget_s=budget_s, timeout_s=opening)
    from graphmem.client import Memory

    return Memory.connect(quick, start_if_needed=False)


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
    def store(self) -> Neo4jStore:
        """The connected client's store (:meth:`memory`'s; ``graphmem.client`` is imported
        here, when a tool runs, not when the server starts)."""
        from graphmem.client import store_of

        return store_of(self.memory)

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
