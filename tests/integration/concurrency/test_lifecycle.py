"""Lifecycle transitions racing writes in one scope: no driver retries, no lost version bump. Before
the lock-then-read bumps (graphmem.db.slots), concurrent deletion requests in one scope deadlocked
on its ScopeVersion (15-21 retries a run here): a transaction that bumped it in its erase statement
bumped it again in its mark statement while another deletion waited for the lock. Retract, expire,
promote, supersede and LangGraph puts alone did not retry, before or after."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db.codec import scope_key
from graphmem.deletion import Disposition
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.models import Principal, Status
from tests.support.database import Neo4jUnderTest, race

T0 = datetime(2026, 1, 1, tzinfo=UTC)
LATER = T0 + timedelta(days=10)
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme"}  # also the LangGraph store's tenant-wide lock scope
WORKERS, ROUNDS = 6, 4
#: ScopeVersion bumps per round: retract, expire, promote, erase (deletion/erase_records),
#: mark the derived child (deletion/mark), recompute; and write slot stamps per round (a
#: policy write stamps its record with its slot's seq, records/write.cypher): the write, and
#: supersede's successor
BUMPS, SLOT_STAMPS = 6, 2


def rec(rid: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid, "kind": "semantic", "content": f"fact {rid} about the rollout",
        "created_at": T0.isoformat(), "scope": SCOPE,
        "provenance": {"source": "test"}, "authority": "verified_outcome",
    }
    base.update(over)
    return base


def scope_version(memory: Memory) -> dict[str, Any]:
    rows = store_of(memory).driver.execute_query(
        "MATCH (sv:ScopeVersion {key: $key}) RETURN sv.rev AS rev, sv.epoch AS epoch",
        key=scope_key(SCOPE), database_=store_of(memory).database)[0]
    assert len(rows) == 1
    return dict(rows[0])


def stamps(memory: Memory) -> list[int]:
    rows = store_of(memory).driver.execute_query(
        "MATCH (:Scope {key: $key})<-[:IN_SCOPE]-(r:Record) RETURN r.stamp AS stamp",
        key=scope_key(SCOPE), database_=store_of(memory).database)[0]
    return [row["stamp"] for row in rows]


def slot_stamps(memory: Memory) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """The (wslot, wseq) stamps of the scope's records, and each write slot's seq by index."""
    key = scope_key(SCOPE)
    rows = store_of(memory).driver.execute_query(
        "MATCH (:Scope {key: $key})<-[:IN_SCOPE]-(r:Record) WHERE r.wseq IS NOT NULL "
        "RETURN r.wslot AS slot, r.wseq AS seq", key=key, database_=store_of(memory).database)[0]
    slots = store_of(memory).driver.execute_query(
        "MATCH (l:WriteSlot) WHERE l.key STARTS WITH $prefix RETURN l.key AS key, l.seq AS seq",
        prefix=key + "#", database_=store_of(memory).database)[0]
    return ([(row["slot"], row["seq"]) for row in rows],
            {int(row["key"].rsplit("#", 1)[1]): row["seq"] or 0 for row in slots})


def test_lifecycle_transitions_and_writes_in_one_scope_never_retry(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Each worker (its own client) writes, retracts, expires, supersedes, promotes, erases
    (a deletion request, its derived child marked RECOMPUTE, then recomputed) and puts and
    deletes LangGraph keys in the one scope at once; every change lands exactly once."""
    seeded = ("retract", "expire", "supersede", "erase", "keep")
    memory.put_many([rec(f"{op}-{w}-{i}") for op in seeded
                     for w in range(WORKERS) for i in range(ROUNDS)])
    memory.put_many([rec(f"child-{w}-{i}", derived_from=[f"erase-{w}-{i}",
                                                                 f"keep-{w}-{i}"])
                     for w in range(WORKERS) for i in range(ROUNDS)])
    store_of(memory).put_many([rec(f"promote-{w}-{i}") for w in range(WORKERS)
                           for i in range(ROUNDS)], quarantined=True)
    start = scope_version(memory)
    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
               for _ in range(WORKERS)]
    barrier = threading.Barrier(WORKERS)
    errors: list[BaseException] = []

    def work(w: int) -> None:
        mem = clients[w]
        kv = GraphmemStore(mem, principal=ACME, tenant="acme", actor=f"worker-{w}")
        barrier.wait()
        try:
            for i in range(ROUNDS):
                mem.write(rec(f"new-{w}-{i}"), by=f"worker-{w}", now=T0)
                mem.retract(f"retract-{w}-{i}", by=f"worker-{w}", reason="wrong", at=T0)
                mem.expire(f"expire-{w}-{i}", at=T0 + timedelta(days=1), by=f"worker-{w}",
                           reason="ended")
                mem.supersede([f"supersede-{w}-{i}"],
                              rec(f"succ-{w}-{i}", content=f"newer fact {w}-{i}"),
                              by=f"worker-{w}", reason="update")
                mem.promote(f"promote-{w}-{i}", by=f"worker-{w}", reason="reviewed")
                plan = mem.plan_deletion([f"erase-{w}-{i}"], requested_by=f"worker-{w}",
                                         reason="asked to forget")
                assert plan.ids(Disposition.RECOMPUTE) == [f"child-{w}-{i}"]
                assert mem.apply_deletion(plan).verification.passed
                mem.recompute(f"child-{w}-{i}", f"fact child {w}-{i}, recomputed",
                              by=f"worker-{w}", reason="source erased", derived_from=[])
                kv.put(("notes", f"w{w}"), f"k{i}", {"text": f"note {w} {i}"})
                if i:
                    kv.delete(("notes", f"w{w}"), f"k{i - 1}")
        except BaseException as exc:  # surfaced below, with the thread's traceback
            errors.append(exc)

    assert race(work, clients) == 0
    assert not errors, errors

    def status(rid: str) -> Status:
        return memory.explain(rid, principal=ACME, scope=SCOPE, now=LATER).status

    expected = {"retract": Status.RETRACTED, "expire": Status.EXPIRED,
                "supersede": Status.SUPERSEDED, "promote": Status.ACTIVE,
                "new": Status.ACTIVE, "succ": Status.ACTIVE, "erase": Status.ERASED,
                "child": Status.ACTIVE, "keep": Status.ACTIVE}
    for prefix, want in expected.items():
        got = {status(f"{prefix}-{w}-{i}") for w in range(WORKERS) for i in range(ROUNDS)}
        assert got == {want}, prefix
    for w in range(WORKERS):
        rid = f"retract-{w}-0"
        assert [h["kind"] for h in memory.history(rid)][-1] == "retract"
    # one version bump per change, none lost: every change stamped its record with a rev of
    # its own (a child's mark stamp is overwritten by its recompute's)
    end = scope_version(memory)
    assert end["epoch"] == start["epoch"]
    assert end["rev"] == start["rev"] + WORKERS * ROUNDS * BUMPS
    moved = [s for s in stamps(memory) if s is not None and s > start["rev"]]
    assert len(moved) == len(set(moved)) == WORKERS * ROUNDS * (BUMPS - 1)
    # every policy write stamped its record with a seq of its slot of its own, none lost
    written, seqs = slot_stamps(memory)
    assert len(written) == len(set(written)) == WORKERS * ROUNDS * SLOT_STAMPS
    assert all(0 < seq <= seqs[slot] for slot, seq in written)
    kv = GraphmemStore(memory, principal=ACME, tenant="acme")
    for w in range(WORKERS):
        items = {k: kv.get(("notes", f"w{w}"), k) for k in (f"k{i}" for i in range(ROUNDS))}
        assert [k for k, item in items.items() if item is not None] == [f"k{ROUNDS - 1}"]


def test_a_second_bump_in_one_transaction_does_not_deadlock_a_waiter(memory: Memory) -> None:
    """The interleaving the test above hits by chance, step by step: transaction A bumps the
    scope (a retract), B waits for the ScopeVersion (another retract), A bumps it again in a
    later statement (an expiry). Before, Neo4j reported a deadlock and B was rolled back."""
    memory.put_many([rec("a"), rec("b")])
    start = scope_version(memory)["rev"]
    store = store_of(memory)
    sessions = [store.driver.session(database=store.database) for _ in range(2)]
    a, b = (s.begin_transaction() for s in sessions)
    params = {"by": "t", "reason": "r", "at": T0}
    failures: list[BaseException] = []

    def wait_then_retract() -> None:
        try:
            store.run(b, "records/retract", id="b", **params)
            b.commit()
        except BaseException as exc:  # reported below
            failures.append(exc)

    try:
        store.run(a, "records/retract", id="a", **params)
        waiter = threading.Thread(target=wait_then_retract)
        waiter.start()
        waiter.join(1.0)
        assert waiter.is_alive()  # B waits for A's ScopeVersion lock
        store.run(a, "records/expire", id="a", **{**params, "at": T0 + timedelta(days=1)})
        a.commit()
        waiter.join(30)
    finally:
        for s in sessions:
            s.close()
    assert not failures, failures
    assert scope_version(memory)["rev"] == start + 3
    assert store_of(memory).state("b").retracted_by == "t"
