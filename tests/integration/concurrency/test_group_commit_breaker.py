"""Trying to break group commit (graphmem.db.group_commit) and the shared drivers
(graphmem.db.drivers) with a real Neo4j: crashes mid-batch, connect/close races, bad input
inside a batch."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import retries
from graphmem.db.base import StoreBase
from graphmem.db.batches import _Entry
from graphmem.db.group_commit import Write, group_for
from graphmem.db.store import Neo4jStore
from graphmem.errors import (
    DatabaseUnavailableError,
    GraphmemError,
    RecordConflictError,
    ValidationError,
)
from graphmem.models import Principal
from graphmem.write.policy import WriteDisposition
from tests.support.crash import JOIN_S, CrashableServer, query, wait_until
from tests.support.database import Neo4jUnderTest
from tests.support.group_commit import Threads, held
from tests.support.writers import ACME, SCOPE
from tests.support.writers import rec as busy

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
    group = group_for(store_of(clients[0]))
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
    store = store_of(memory)
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
    bad: _Entry[Write, bool] = _Entry(
        (store_of(memory), {**params, "decision": {**params["decision"], "by": object()}}))
    group = group_for(store_of(memory))
    with group.lock:
        assert group.in_flight == 0
        group.waiting.append(bad)  # waits beside the next write, which leads the batch
    decision = memory.write(rec("good", "acme", "the leader's own write"), now=T0)
    assert decision.disposition is WriteDisposition.PERSIST
    assert bad.done and bad.result is None  # the follower runs alone (and fails alone)
    acme = Principal(tenants=frozenset({"acme"}))
    fresh = Neo4jStore(store_of(memory).driver, database=store_of(memory).database)
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
    """A client that closes its store's driver itself (tests/integration/read/test_paused_gc.py
    does, to simulate an outage) closed the driver every client of its settings shares, and
    every later ``Memory.connect`` with those settings in the process failed (StoreError: Driver
    closed) until each client using it was closed. Before drivers were shared, a new client
    opened a new driver."""
    first = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    store_of(first).driver.close()
    try:
        second = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
        try:
            assert store_of(second).driver is not store_of(first).driver
            assert store_of(second).driver.execute_query("RETURN 1 AS one")[0][0]["one"] == 1
            third = Memory.connect(neo4j_db.settings, start_if_needed=False,
                                   ensure_schema=False)
            assert store_of(third).driver is store_of(second).driver  # shared again
            first.close()  # releasing the closed one leaves the new one open
            third.close()
            assert store_of(second).driver.execute_query("RETURN 1 AS one")[0][0]["one"] == 1
        finally:
            second.close()
    finally:
        first.close()


def test_two_batches_in_flight_in_one_scope_keep_every_outcome_exact(
        memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two batches may be in flight at once per driver and database (MAX_IN_FLIGHT = 2, was
    1), on the server side by side, in one scope. Sixteen writers through one shared driver,
    in rounds started together: every writer proposes the same record (same id, same
    content), or the same content under its own id, or its own value for one asserted key,
    or its own content under one id. Each round ends exactly as it would one write at a
    time: one PERSIST and DISCARDs of the rest (the first two), a PERSIST each (the third),
    one PERSIST and a RecordConflictError each for the rest (the fourth); every record is
    stored once, with one stamp of its own and its Assertion link, and no transaction is
    retried; never more than two batch statements run at once. (Two side by side are
    seen by chance, not in every run: the next test makes them.)"""
    running = {"now": 0, "most": 0}
    count_lock = threading.Lock()
    original = StoreBase.write_once

    def spy(store: StoreBase, name: str, **params: Any) -> list[dict[str, Any]]:
        if name != "write/new_batch":
            return original(store, name, **params)
        with count_lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        try:
            return original(store, name, **params)
        finally:
            with count_lock:
                running["now"] -= 1

    monkeypatch.setattr(StoreBase, "write_once", spy)
    n, rounds, free = 16, 32, 20
    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False) for _ in range(n)]
    group = group_for(store_of(clients[0]))
    assert group.max_in_flight == 2
    retries0 = retries.retry_count()
    barriers = [threading.Barrier(n) for _ in range(rounds)]

    def proposal(i: int, w: int) -> dict[str, Any]:
        return [busy(f"same-{i}"),
                busy(f"dup-{i}-{w}", content=f"shared content {i}"),
                busy(f"owner-{i}-{w}", asserts="deploy.owner", asserted_value=f"team-{w}"),
                busy(f"clash-{i}", content=f"clash {i} by {w}")][i % 4]

    def work(w: int) -> list[Any]:
        # first free-running writes of distinct records: rounds started together below give
        # no second batch beside the first (the first two writers of a round go alone, the
        # rest wait, and form one batch behind them)
        for i in range(free):
            assert clients[w].write(busy(f"free-{w}-{i}"), now=T0
                                    ).disposition is WriteDisposition.PERSIST
        out: list[Any] = []
        for i in range(rounds):
            barriers[i].wait(60)
            try:
                out.append(clients[w].write(proposal(i, w), now=T0).disposition)
            except RecordConflictError as exc:
                out.append(type(exc))
        return out

    try:
        results = Threads(work, n).join()
        for i in range(rounds):
            got = sorted(str(r[i]) for r in results)
            persist, discard = str(WriteDisposition.PERSIST), str(WriteDisposition.DISCARD)
            want = [[persist] + [discard] * (n - 1), [persist] + [discard] * (n - 1),
                    [persist] * n, [persist] + [str(RecordConflictError)] * (n - 1)][i % 4]
            assert got == sorted(want), (i, got)
        rows, _, _ = store_of(memory).driver.execute_query(
            "MATCH (r:Record) RETURN r.id AS id, r.wslot AS s, r.wseq AS q, "
            "COUNT { (r)<-[:DECIDED]-(:WriteDecision) } AS d, "
            "EXISTS { (r)-[:ASSERTS]->() } = (r.asserts IS NOT NULL) AS linked",
            database_=store_of(memory).database)
        assert len(rows) == len({row["id"] for row in rows}) == rounds // 4 * (n + 3) + n * free
        assert len({(row["s"], row["q"]) for row in rows}) == len(rows)
        assert all(row["linked"] for row in rows)
        # the same record proposed n times: one decision per proposal, all on the one record
        assert all(row["d"] == (n if row["id"].startswith("same-") else 1) for row in rows)
        visible = {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}
        assert len(visible) == len(rows)
        assert retries.retry_count() == retries0
        assert 1 <= running["most"] <= 2, running  # never more than two batches at once
        assert group.in_flight == 0 and group.waiting == []
    finally:
        for c in clients:
            c.close()


def test_a_second_batch_is_stored_while_the_first_is_in_flight(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Made to happen, not left to chance: a batch of four is held before it is sent; three
    other writers then come, the first alone (it takes the second place in flight), the
    other two wait behind it and go as the second batch, which is stored while the first is
    still held. With one batch in flight (as before) the three would wait behind the held
    batch, and the test would fail after 30 s. Every write is stored, once."""
    memory.write(busy("seed"), now=T0)  # the scope's nodes
    group = group_for(store_of(memory))
    assert group.max_in_flight == 2
    second = threading.Event()
    first_held = threading.Event()
    calls: list[str] = []
    original = StoreBase.write_once

    def spy(store: StoreBase, name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "write/new_batch":
            calls.append(f"batch of {len(params['writes'])}")
            if not first_held.is_set():
                first_held.set()
                assert second.wait(30), "no second batch went while the first was in flight"
            else:
                second.set()
        elif name == "write/new" and first_held.is_set() and not second.is_set():
            calls.append("alone")
            deadline = time.monotonic() + 30
            while len(group.waiting) < 2:  # the other two wait behind this one
                assert time.monotonic() < deadline, "the writers never queued"
                time.sleep(0.01)
        return original(store, name, **params)

    monkeypatch.setattr(StoreBase, "write_once", spy)
    writers = [Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
               for _ in range(7)]
    with held(group, 4) as release:
        first = Threads(lambda i: writers[i].write(busy(f"first-{i}"), now=T0), 4)
        release()
    assert first_held.wait(30)
    later = Threads(lambda i: writers[4 + i].write(busy(f"later-{i}"), now=T0), 3)
    decisions = [*later.join(), *first.join()]
    assert calls == ["batch of 4", "alone", "batch of 2"]
    assert all(d.disposition is WriteDisposition.PERSIST for d in decisions)
    assert group.in_flight == 0 and group.waiting == []
    ids = {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}
    assert ids == {"seed", *(f"first-{i}" for i in range(4)), *(f"later-{i}" for i in range(3))}
