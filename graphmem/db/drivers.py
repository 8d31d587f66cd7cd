"""One driver per connection settings in a process, shared by the clients that use them.

Neo4j's advice is one driver per application: a driver is thread-safe, holds the connection
pool, and is costly to open. :meth:`graphmem.Memory.connect` takes its driver from here, so
clients with the same settings share one pool, one bookmark manager, and one group commit
(:mod:`graphmem.db.group_commit`: writes from many threads stored in one transaction). The
driver is closed when the last client that took it lets it go, or, for a script that never
closes its clients, when the interpreter exits.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from neo4j import Driver

from graphmem.db.resilience import connect_driver, with_retry
from graphmem.db.settings import ConnectionSettings

__all__ = ["schema_once", "schema_owner", "shared_driver"]


@dataclass(eq=False)
class _Shared:
    driver: Driver
    users: int = 1


_shared: dict[tuple[int, ConnectionSettings], _Shared] = {}
_lock = threading.Lock()


def shared_driver(settings: ConnectionSettings, *, deadline_s: float = 10.0
                  ) -> tuple[Driver, Callable[[], None]]:
    """The driver of ``settings`` in this process, its connectivity checked now, and the
    release of this use of it (idempotent; the last release closes the driver).

    Raises:
        DatabaseUnavailableError, DatabaseAuthError: as
        :func:`graphmem.db.resilience.connect_driver` (nothing is left taken).
    """
    key = (os.getpid(), settings)  # a forked child opens its own
    with _lock:
        entry = _shared.get(key)
        if entry is not None and getattr(entry.driver, "_closed", False):
            # closed by one of its users directly (store.driver.close()): never hand it out
            # again; its users still release it, the last one closing it again (harmless)
            del _shared[key]
            entry = None
        if entry is not None:
            entry.users += 1
    if entry is not None:
        release = _releaser(key, entry)
        try:
            with_retry(entry.driver.verify_connectivity, f"connecting to {settings.uri}",
                       deadline_s=deadline_s)
        except BaseException:
            release()
            raise
        return entry.driver, release
    driver = connect_driver(settings, deadline_s=deadline_s)
    spare: Driver | None = None
    with _lock:
        entry = _shared.get(key)
        if entry is None or getattr(entry.driver, "_closed", False):
            entry = _shared[key] = _Shared(driver)
        else:  # another thread connected first: use its driver
            entry.users += 1
            spare = driver
    if spare is not None:
        spare.close()
    return entry.driver, _releaser(key, entry)


def _releaser(key: tuple[int, ConnectionSettings], entry: _Shared) -> Callable[[], None]:
    released = threading.Event()

    def release() -> None:
        # in a child made with os.fork(), the driver's connections are its parent's: closing
        # them there would say goodbye on the parent's sockets
        if key[0] != os.getpid():
            return
        with _lock:
            if released.is_set():
                return
            released.set()
            entry.users -= 1
            last = entry.users == 0
            if last and _shared.get(key) is entry:
                del _shared[key]
        if last:
            entry.driver.close()

    return release


@dataclass(eq=False)
class _Schemas:
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: the databases whose schema was set up through this driver
    ready: set[str] = field(default_factory=set)


_schemas: weakref.WeakKeyDictionary[object, _Schemas] = weakref.WeakKeyDictionary()


class _Owner:
    """What the schema set-up is remembered by for clients that each open a driver of their
    own (:func:`schema_owner`), as the shared driver is for ``Memory``'s."""

    users = 0


_owners: dict[tuple[int, ConnectionSettings], _Owner] = {}


def schema_owner(settings: ConnectionSettings) -> tuple[object, Callable[[], None]]:
    """What :func:`schema_once` remembers the schema of ``settings``' databases by, for the
    clients that open a driver each (:class:`graphmem.AsyncMemory`: an async driver belongs
    to one event loop), and the release of this client's use of it (idempotent). While one
    such client of ``settings`` is open in this process, the next finds the schema set up, as
    a ``Memory`` finds it through the driver it shares; once the last is released, the next
    client sets it up again."""
    key = (os.getpid(), settings)
    with _lock:
        owner = _owners.setdefault(key, _Owner())
        owner.users += 1
    done = threading.Event()

    def release() -> None:
        with _lock:
            if done.is_set():
                return
            done.set()
            owner.users -= 1
            if owner.users == 0 and _owners.get(key) is owner:
                del _owners[key]

    return owner, release


def schema_once(driver: object, database: str, ensure: Callable[[], None]) -> None:
    """Run ``ensure`` (the schema set-up of ``database``: ``cypher/schema.cypher`` and the
    migrations' versions) the first time a client of ``driver`` (or of a
    :func:`schema_owner`) connects to ``database``; a later client of the shared driver
    (:func:`shared_driver`) finds it done.
    A client that connects while the first one sets up waits for it; if that failed, it runs
    ``ensure`` itself. A driver opened again (its last client closed) sets the schema up
    again.

    Raises:
        whatever ``ensure`` raises (nothing is then marked done).
    """
    with _lock:
        schemas = _schemas.setdefault(driver, _Schemas())
    with schemas.lock:
        if database in schemas.ready:
            return
        ensure()
        schemas.ready.add(database)


@atexit.register
def _close_at_exit() -> None:
    """Close the drivers this process still shares (clients never closed) at its exit."""
    with _lock:
        entries = [entry for (pid, _), entry in _shared.items() if pid == os.getpid()]
    for entry in entries:
        entry.driver.close()
