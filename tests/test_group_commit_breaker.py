"""Trying to break group commit (graphmem.db.group_commit) and the shared drivers
(graphmem.db.drivers) with a real Neo4j: crashes mid-batch, connect/close races, bad input
inside a batch."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.db.group_commit import _Write, group_for
from graphmem.db.store import Neo4jStore
from graphmem.errors import DatabaseUnavailableError, GraphmemError, ValidationError
from graphmem.models import Principal
from graphmem.write.policy import WriteDisposition
from tests.conftest import Neo4jUnderTest
from tests.test_crash import JOIN_S, CrashableServer, query, wait_until

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(rid: str, tenant: str, content: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid, "kind": "episodic", "content": content, "created_at": T0.isoformat(),
        "scope": {"tenant": tenant, "project": "p"}, "provenance": {"source": "test"},
        "authority": "verified_outcome",
    }
    base.update(over)
    return base


def test_batched_writes_killed_mid_burst_lose_no_acknowledged_write(
        crash_server: CrashableServer) -> None:
    """Many clients of one settings (one shared driver, so their writes batch) write until
    the server is killed: every acknowledged write is stored once with one decision, every
    other write is whole or absent, every failure is typed, no writer hangs; after a
    restart the same clients write again."""
    tenant = "gc-crash"
    settings = crash_server.settings
    n = 8
    clients = [Memory.connect(settings, start_if_needed=False) for _ in range(n)]
    group = group_for(clients[0].store)
    batches0 = group.batches
    acked: dict[str, str] = {}
    attempted: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(w: int) -> None:
        i = 0
        while not stop.is_set():
            rid = f"gc-{w}-{i:05d}"
            # every third write repeats another writer's content: duplicates inside batches
            content = (f"shared observation {i}" if i % 3 == 0
                       else f"writer {w} observation {i}")
            with lock:
                attempted.append(rid)
            try:
                decision = clients[w].write(rec(rid, tenant, content), now=T0)
            except GraphmemError as exc:
                with lock:
                    failures.append(exc)
                return
            except BaseException as exc:  # an untyped error: the test fails on it below
                with lock:
                    failures.append(exc)
                return
            with lock:
                acked[rid] = decision.disposition.value
            i += 1

    workers = [threading.Thread(target=writer, args=(w,)) for w in range(n)]
    for t in workers:
        t.start()
    try:
        wait_until(lambda: len(acked) >= 400, 600, "400 acknowledged writes")
        crash_server.kill()
        stop.set()
        for t in workers:
            t.join(JOIN_S)
        assert not any(t.is_alive() for t in workers), "a write hung after the server died"
        assert group.batches > batches0, "no batch formed: the test tested nothing"
        assert failures, "no writer noticed the crash"
        assert all(isinstance(f, DatabaseUnavailableError) for f in failures), failures
        crash_server.restart()
        rows = query(crash_server.settings, """
            UNWIND $ids AS id
            OPTIONAL MATCH (r:Record {id: id})
            OPTIONAL MATCH (r)-[:IN_SCOPE]->(s:Scope)
            OPTIONAL MATCH (w:WriteDecision {record_id: id})
            RETURN id, r IS NOT NULL AS record, count(DISTINCT s) AS scopes,
                   count(DISTINCT w) AS decisions, collect(DISTINCT w.disposition) AS disp
            """, ids=attempted)
        by_id = {row["id"]: row for row in rows}
        for rid, disposition in acked.items():
            row = by_id[rid]
            assert row["decisions"] == 1 and row["disp"] == [disposition], row
            assert row["record"] == (disposition != "DISCARD"), row
        for rid in set(attempted) - set(acked):
            row = by_id[rid]
            whole = row["record"] and row["scopes"] == 1 and row["decisions"] == 1
            discarded = (not row["record"] and row["decisions"] == 1
                         and row["disp"] == ["DISCARD"])  # committed, not acknowledged
            nothing = not row["record"] and row["decisions"] == 0
            assert whole or discarded or nothing, row
        dup = query(crash_server.settings, """
            MATCH (r:Record {tenant: $tenant}) WHERE r.content STARTS WITH 'shared'
            WITH r.content AS c, count(*) AS k WHERE k > 1 RETURN c, k""", tenant=tenant)
        assert dup == []
        # the same clients (the same shared driver) write again after the restart
        for w, c in enumerate(clients):
            assert c.write(rec(f"after-{w}", tenant, f"after the restart {w}"), now=T0
                           ).disposition.value == "PERSIST"
    finally:
        stop.set()
        for c in clients:
            c.close()



class _Captured(Exception):
    pass


def captured_params(memory: Memory, proposal: dict[str, Any]) -> dict[str, Any]:
    """The write/new parameters ``memory.write(proposal)`` sends, captured; nothing stored."""
    store = memory.store
    seen: list[dict[str, Any]] = []

    def capture(name: str, **params: Any) -> list[dict[str, Any]]:
        assert name == "write/new"
        seen.append(params["write"])
        raise _Captured

    store.write_once = capture  # type: ignore[method-assign]
    try:
        with pytest.raises(_Captured):
            memory.write(proposal, now=T0)
    finally:
        del store.write_once
    assert len(seen) == 1
    return seen[0]


def test_a_bad_follower_never_fails_the_leaders_write(memory: Memory) -> None:
    """A write whose parameters the driver cannot pack (here ``by``, which nothing checks, is
    not a string) fails the batch it is in before anything is sent. Before, the leader of
    the batch, a different thread with a good write, got the raw ValueError: one bad proposal
    failed another's write with an untyped error. Now a batch that fails for any reason makes
    each of its writes run alone."""
    memory.write(rec("seed", "acme", "the scope's nodes exist"), now=T0)
    params = captured_params(memory, rec("bad", "acme", "a follower's write"))
    bad = _Write({**params, "decision": {**params["decision"], "by": object()}})
    group = group_for(memory.store)
    with group.lock:
        assert group.in_flight == 0
        group.waiting.append(bad)  # waits beside the next write, which leads the batch
    decision = memory.write(rec("good", "acme", "the leader's own write"), now=T0)
    assert decision.disposition is WriteDisposition.PERSIST
    assert bad.done and bad.stored is None  # the follower runs alone (and fails alone)
    acme = Principal(tenants=frozenset({"acme"}))
    fresh = Neo4jStore(memory.store.driver, database=memory.store.database)
    ids = {c.record.id for c in fresh.candidates(acme, {"tenant": "acme", "project": "p"}, T0)}
    assert ids == {"seed", "good"}


@pytest.mark.parametrize("by", [object(), 12, None])
def test_a_write_by_no_string_is_a_validation_error(memory: Memory, by: Any) -> None:
    """``by`` is stored on the decision; one the driver cannot pack escaped as a bare
    ValueError (and, before the fix above, from the leader of the batch it was in)."""
    with pytest.raises(ValidationError):
        memory.write(rec("by", "acme", "written by no one"), by=by, now=T0)
    assert memory.history("by") == []


def test_a_shared_driver_closed_by_one_client_is_not_handed_to_the_next(
        neo4j_db: Neo4jUnderTest) -> None:
    """A client that closes its store's driver itself (tests/test_paused_gc_read.py does, to
    simulate an outage) closed the driver every client of its settings shares, and every
    later ``Memory.connect`` with those settings in the process failed (StoreError: Driver
    closed) until each client using it was closed. Before drivers were shared, a new client
    opened a new driver."""
    first = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    first.store.driver.close()
    try:
        second = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
        try:
            assert second.store.driver is not first.store.driver
            assert second.store.driver.execute_query("RETURN 1 AS one")[0][0]["one"] == 1
            third = Memory.connect(neo4j_db.settings, start_if_needed=False,
                                   ensure_schema=False)
            assert third.store.driver is second.store.driver  # shared again
            first.close()  # releasing the closed one leaves the new one open
            third.close()
            assert second.store.driver.execute_query("RETURN 1 AS one")[0][0]["one"] == 1
        finally:
            second.close()
    finally:
        first.close()
