"""Opening the store a client uses (:meth:`graphmem.Memory.connect`,
:meth:`graphmem.aio.AsyncMemory.connect`): the settings given, else ``NEO4J_*``, else a lease on
the local server (:func:`graphmem.db.server.lease`; docs/operations.md#where-neo4j-comes-from),
the driver shared by the clients of those settings, and the schema once per driver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.db.codec import Clock, content_bound
from graphmem.db.drivers import schema_once, shared_driver
from graphmem.db.server import lease
from graphmem.db.settings import ConnectionSettings
from graphmem.db.store import Neo4jStore
from graphmem.limits import DEFAULT_LIMITS, InputLimits

__all__ = ["CONNECT_DEADLINE_S", "open_store"]

CONNECT_DEADLINE_S = 10.0
"""Longest the connectivity check of :func:`open_store` retries, in seconds (at most the
settings' ``retry_time_s``)."""


def open_store(settings: ConnectionSettings | None, *, start_if_needed: bool, clock: Clock,
               max_content_bytes: int, ensure_schema: bool,
               limits: InputLimits = DEFAULT_LIMITS,
               driver_for: Callable[..., tuple[Any, Callable[[], None]]] = shared_driver,
               ) -> tuple[Neo4jStore, Callable[[], None]]:
    """The store behind :meth:`graphmem.Memory.connect`, and the release of what it holds: its
    use of the driver shared by the clients of the same settings in this process
    (:func:`graphmem.db.drivers.shared_driver`) and its lease on the local server, if any.

    Settings: ``settings``; else ``NEO4J_*``; else :func:`lease` (the running local server,
    or one started now while a client uses it). On any failure both are released before the
    error propagates. ``driver_for``: the driver's source (AsyncMemory's differs).

    Raises:
        DatabaseUnavailableError, DatabaseAuthError, StoreError: as ``Memory.connect``.
        ValidationError: ``max_content_bytes`` is no positive int (checked before any
            server is looked for).
    """
    content_bound(max_content_bytes)
    lease_release: Callable[[], None] | None = None
    if settings is None:
        settings = ConnectionSettings.from_env()
    if settings is None:
        settings, lease_release = lease(start_if_needed)

    def release_lease() -> None:
        if lease_release is not None:
            lease_release()

    try:
        # the connectivity check gets no longer than a statement would (a short
        # ``retry_time_s``, as the MCP server sets, bounds the connection too)
        driver, release_driver = driver_for(
            settings, deadline_s=min(CONNECT_DEADLINE_S, settings.retry_time_s))
    except BaseException:
        release_lease()
        raise

    def release() -> None:
        try:
            release_driver()
        finally:
            release_lease()

    try:
        store = Neo4jStore(driver, database=settings.database, clock=clock,
                           max_content_bytes=max_content_bytes,
                           retry_time_s=settings.retry_time_s, limits=limits)
        if ensure_schema:  # once per shared driver and database
            schema_once(driver, settings.database, store.ensure_schema)
    except BaseException:
        release()
        raise
    return store, release
