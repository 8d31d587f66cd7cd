"""Several clients connecting at once to a new database all succeed.

Real processes against a real launcher server: each round empties the schema (a new
database as far as ``ensure_schema`` can tell), then four processes released by one barrier
each run ``Memory.connect()``. Before the fix three of four died in ``ensure_schema`` with a
raw ``TransientError`` (DeadlockDetected).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import (
    GraphDatabase,
    NotificationDisabledClassification,
    NotificationMinimumSeverity,
)
from neo4j.warnings import Neo4jWarning

from graphmem.client import Memory, store_of
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.db.store import Neo4jStore
from graphmem.errors import DatabaseUnavailableError, StoreError
from tests.support.database import KeptDriver, Neo4jUnderTest, unavailable

CLIENTS = 4
ROUNDS = 3


@pytest.fixture(scope="module")
def fresh_server() -> Iterator[EphemeralServer]:
    """A launcher server of this module's own, so emptying its schema touches nobody else."""
    try:
        server = EphemeralServer(pagecache_mb=64, heap="768m").start()
    except DatabaseUnavailableError as exc:
        unavailable(f"no launcher server: {exc}")
        raise
    try:
        yield server
    finally:
        server.close()


def _drop_schema(settings: ConnectionSettings) -> int:
    """Drop every constraint and index of the (data-free) database; how many there were."""
    with open_driver(settings) as driver:
        constraints, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name")
        for row in constraints:
            driver.execute_query(f"DROP CONSTRAINT `{row['name']}`")
        indexes, _, _ = driver.execute_query(
            "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"
        )
        for row in indexes:
            driver.execute_query(f"DROP INDEX `{row['name']}`")
        left, _, _ = driver.execute_query(
            "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN count(*) AS n"
        )
        assert left[0]["n"] == 0
    return len(constraints) + len(indexes)


def _connect(settings: ConnectionSettings, barrier: multiprocessing.synchronize.Barrier,
             results: Any) -> None:
    from graphmem.client import Memory

    barrier.wait(timeout=600)
    try:
        Memory.connect(settings, start_if_needed=False).close()
    except Exception as exc:
        cause = exc.__cause__
        results.put(f"{type(exc).__module__}.{type(exc).__name__} "
                    f"(cause {type(cause).__name__ if cause else None}): {exc}")
    else:
        results.put("ok")


def test_concurrent_first_connections_all_succeed(fresh_server: EphemeralServer) -> None:
    ctx = multiprocessing.get_context("spawn")
    for round_ in range(ROUNDS):
        dropped = _drop_schema(fresh_server.settings)
        assert round_ == 0 or dropped >= 12  # the previous round's schema existed
        barrier = ctx.Barrier(CLIENTS)
        results = ctx.Queue()
        procs = [ctx.Process(target=_connect, args=(fresh_server.settings, barrier, results))
                 for _ in range(CLIENTS)]
        for proc in procs:
            proc.start()
        try:
            outcomes = [results.get(timeout=600) for _ in procs]
        finally:
            for proc in procs:
                proc.join(timeout=60)
                if proc.is_alive():
                    proc.kill()
                    proc.join()
        assert outcomes == ["ok"] * CLIENTS, f"round {round_}: {outcomes}"
    with open_driver(fresh_server.settings) as driver:
        names, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN name")
    assert {"record_id", "scope_key", "intention_id"} <= {r["name"] for r in names}


# ----------------------------------------------------------------- retry and translation


def test_statement_errors_leave_the_store_typed(memory: Any) -> None:
    """A statement Neo4j refuses surfaces as StoreError with its code, the driver's error
    chained (the Cypher catalogue is fixed, so provoke it through a bad parameter: a LIMIT
    that is not a number, on the fixture's own empty store)."""
    with pytest.raises(StoreError) as info:
        store_of(memory).write("wipe_batch", limit="not-a-number")
    assert info.value.code and info.value.code.startswith("Neo.ClientError")
    assert info.value.__cause__ is not None


def test_connecting_to_a_set_up_database_warns_nothing_under_dev_mode(
        neo4j_db: Neo4jUnderTest) -> None:
    """Under ``python -X dev`` the driver turns every notification into a Neo4jWarning
    (``warn_notification_severity`` INFORMATION, set here as dev mode sets it). Each schema
    statement that finds its rule already there is "no effect" (a SCHEMA notification): 18
    multi-line warnings for every client that connected to a database set up before."""
    s = neo4j_db.settings
    driver = GraphDatabase.driver(  # as open_driver opens it, in dev mode
        s.uri, auth=(s.user, s.password),
        notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
        warn_notification_severity=NotificationMinimumSeverity.INFORMATION)
    try:
        store = Neo4jStore(driver, database=s.database)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            store.ensure_schema()  # the suite set this database up already
            store.ensure_schema()
        assert [w for w in caught if issubclass(w.category, Neo4jWarning)] == []
        # the driver does warn when asked, so the check above could fail
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            driver.execute_query(  # a cartesian product: an informational notification
                "MATCH (a:Record), (b:Record) RETURN count(*) AS n", database_=s.database)
        assert any(issubclass(w.category, Neo4jWarning) for w in caught)
    finally:
        driver.close()


def test_the_schema_is_set_up_once_per_shared_driver(
        neo4j_db: Neo4jUnderTest, kept_driver: KeptDriver,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients of the same settings share a driver: the first sets the schema up, the others,
    connecting at once from eight threads or later, find it done; a set-up that failed is run
    again by the next client; a driver opened again sets it up again."""
    kept_driver.release()  # the first client below opens the shared driver
    runs: list[str] = []
    fail = threading.Event()
    original = Neo4jStore.ensure_schema

    def counted(self: Neo4jStore) -> None:
        runs.append(self.database)
        if fail.is_set():
            raise StoreError("refused, as a test")
        time.sleep(0.2)  # long enough for the other threads to arrive meanwhile
        original(self)

    monkeypatch.setattr(Neo4jStore, "ensure_schema", counted)
    keep = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    try:  # ``keep`` holds the shared driver open throughout
        fail.set()
        with pytest.raises(StoreError):
            Memory.connect(neo4j_db.settings, start_if_needed=False)
        fail.clear()
        clients: list[Memory] = []
        threads = [threading.Thread(target=lambda: clients.append(Memory.connect(
            neo4j_db.settings, start_if_needed=False))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        clients.append(Memory.connect(neo4j_db.settings, start_if_needed=False))
        assert len(clients) == 9 and len({id(store_of(c).driver) for c in [keep, *clients]}) == 1
        assert len(runs) == 2, runs  # the failed one, then one for the nine
        for c in clients:
            c.close()
    finally:
        keep.close()
    again = Memory.connect(neo4j_db.settings, start_if_needed=False)  # a new driver
    again.close()
    assert len(runs) == 3
