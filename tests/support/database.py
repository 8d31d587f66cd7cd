"""Helpers for tests that need Neo4j: where the server came from, wiping a store the suite owns,
failing or skipping when no server can be had, and racing clients."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import retries
from graphmem.db.settings import ConnectionSettings


@dataclass(frozen=True)
class Neo4jUnderTest:
    settings: ConnectionSettings
    origin: str  # "env", "testcontainers" or "launcher"


class KeptDriver:
    """A client of the session database's settings held open between tests, so that the
    driver the clients of those settings share (graphmem.db.drivers.shared_driver), and the
    schema it set up, outlive each test's client. Without it each test's client was the
    driver's last: the next opened a new driver and ran the schema set-up and the migration
    checks again (about 30 round trips). The store each test sees is the same: empty, with
    its constraints and indexes (the wipe deletes nodes only)."""

    def __init__(self, settings: ConnectionSettings) -> None:
        self.settings = settings
        self.client: Memory | None = None

    def hold(self) -> None:
        """Hold a client (again, when a test closed the shared driver itself)."""
        if self.client is not None and not getattr(store_of(self.client).driver, "_closed",
                                                   False):
            return
        self.release()
        self.client = Memory.connect(self.settings, start_if_needed=False)

    def release(self) -> None:
        """Close the held client: the next client of the settings may open a new driver (for a
        test of what a driver's first client does)."""
        client, self.client = self.client, None
        if client is not None:
            client.close()


def unavailable(message: str) -> None:
    """Fail under ``CI=true``, else skip: what a test does when a real part it needs is missing."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Neo4j is required under CI=true: {message}", pytrace=False)
    pytest.skip(f"no Neo4j available: {message}")


def wipe(memory: Memory) -> None:
    """Delete everything in a database the suite owns (see neo4j_db for why that is safe)."""
    while store_of(memory).write("wipe_batch", limit=20_000)[0]["deleted"]:
        pass


def require_toolchain() -> None:
    """The launcher's Java 17+ JDK and Maven are on PATH (else :func:`unavailable`)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        unavailable(f"{' and '.join(missing)} not on PATH (need a Java 17+ JDK and Maven)")


def race(work: Callable[[int], None], clients: Sequence[Memory]) -> int:
    """Run ``work(w)`` in one thread per client at once, close the clients, and return how
    many driver retries (deadlocks, transient errors) happened meanwhile."""
    before = retries.retry_count()
    threads = [threading.Thread(target=work, args=(w,)) for w in range(len(clients))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for c in clients:
            c.close()
    return retries.retry_count() - before
