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
