"""Trying to break the auto-commit group commit (commit 2bdecb8): writers sleeping on events
of their own and handed batches to send (graphmem.db.group_commit), write/new and its batches
as auto-commit statements retried by with_retry (StoreBase.write_once), and their datetimes
sent as ISO-8601 text. A real Neo4j throughout; a store method is patched only to inject a
failure."""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from types import FrameType
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db.group_commit import GroupCommit, group_for
from graphmem.db.store import Neo4jStore
from graphmem.errors import (
    ClientClosedError,
    GraphmemError,
    ValidationError,
)
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest
from tests.support.group_commit import Threads, held
from tests.support.lost_ack import LostAck
from tests.support.writers import ACME, SCOPE, T0, rec

US = timedelta(microseconds=1)
JOIN_S = 30.0


class Interrupted(BaseException):
    """A BaseException as KeyboardInterrupt is (pytest reserves that one for itself)."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted


def client_of(memory: Memory) -> Memory:
    """Another client through ``memory``'s driver (so its writes batch with memory's)."""
    store = store_of(memory)
    return Memory(Neo4jStore(store.driver, database=store.database), owns_driver=False)


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = JOIN_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def waiting(group: GroupCommit) -> int:
    with group.lock:
        return len(group.waiting)


def in_thread(work: Callable[[], Any]) -> threading.Thread:
    """``work`` in a daemon thread (a thread that hangs must not keep pytest from ending)."""
    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t


def write_within(memory: Memory, proposal: dict[str, Any], now: datetime = T0
                 ) -> WriteDisposition:
    """``memory.write`` in a thread of its own, which must end within JOIN_S: a write that
    hangs fails the test instead of hanging it."""
    out: list[WriteDisposition] = []
    t = in_thread(lambda: out.append(memory.write(proposal, now=now).disposition))
    t.join(JOIN_S)
    assert not t.is_alive(), f"writing {proposal['id']} hung"
    assert out, f"writing {proposal['id']} failed"
    return out[0]


@pytest.fixture()
def sigusr1() -> Iterator[None]:
    """SIGUSR1 raises Interrupted in the main thread (where pytest runs the test)."""
    previous = signal.signal(signal.SIGUSR1, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGUSR1, previous)


# -------------------------------------------------------------------- no lost wake-up


def test_a_follower_interrupted_while_it_waits_hands_no_batch_to_a_dead_thread(
        memory: Memory, sigusr1: None) -> None:
    """A writer whose thread is interrupted (a signal, KeyboardInterrupt) while it waits for
    the batch in flight: its write was still waiting, so it was the one handed the next
    batch when the batch in flight ended, by a thread no longer there to send it. Every
    write behind it waited forever, and so did every later write through the driver (the
    batch stayed in flight)."""
    memory.write(rec("seed"), now=T0)
    group = group_for(store_of(memory))
    behind = client_of(memory)
    outcome: list[Any] = []

    def second() -> None:
        try:
            outcome.append(behind.write(rec("behind"), now=T0).disposition)
        except BaseException as exc:
            outcome.append(exc)

    def interrupter() -> None:
        wait_for(lambda: waiting(group) == 1, "the main thread's write to wait")
        in_thread(second)
        wait_for(lambda: waiting(group) == 2, "the second write to wait")
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)

    with held(group, 1) as release:
        helper = in_thread(interrupter)
        with pytest.raises(Interrupted):
            memory.write(rec("interrupted"), now=T0)
        helper.join(JOIN_S)
        release()  # the pretended batch in flight ends: the next batch goes
        wait_for(lambda: bool(outcome), "the write behind the interrupted one", JOIN_S)
    assert outcome == [WriteDisposition.PERSIST]
    assert write_within(memory, rec("later")) is WriteDisposition.PERSIST
    with group.lock:
        assert group.in_flight == 0 and group.waiting == []
    # the interrupted write was never sent: nothing of it is stored
    assert memory.history("interrupted") == []
    assert {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)} == {
        "seed", "behind", "later"}


@pytest.mark.parametrize("exc", [Interrupted, KeyboardInterrupt, SystemExit])
def test_a_base_exception_in_the_leaders_batch_wakes_every_follower(
        memory: Memory, exc: type[BaseException]) -> None:
    """The leader's batch statement raises a BaseException (patched into its store's
    write_once): it leaves the leader, and every follower, woken, runs alone and persists;
    nothing of the leader's write is stored; the group is free for the next write."""
    memory.write(rec("seed"), now=T0)
    group = group_for(store_of(memory))
    leader = client_of(memory)
    followers = [client_of(memory) for _ in range(3)]

    def boom(name: str, **params: Any) -> list[dict[str, Any]]:
        raise exc

    store_of(leader).write_once = boom  # type: ignore[method-assign]
    results: list[Any] = []

    def lead() -> None:
        try:
            results.append(leader.write(rec("leader"), now=T0))
        except BaseException as e:  # what the test expects
            results.append(e)

    with held(group, 4) as release:
        lt = in_thread(lead)
        wait_for(lambda: waiting(group) == 1, "the leader to wait first")
        started = Threads(lambda i: followers[i].write(rec(f"f{i}"), now=T0).disposition, 3)
        release()
        decisions = started.join()
        lt.join(JOIN_S)
    assert not lt.is_alive()
    assert len(results) == 1 and type(results[0]) is exc
    assert decisions == [WriteDisposition.PERSIST] * 3
    with group.lock:
        assert group.in_flight == 0 and group.waiting == []
    assert memory.history("leader") == []
    assert write_within(memory, rec("later")) is WriteDisposition.PERSIST
    assert {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)} == {
        "seed", "f0", "f1", "f2", "later"}


def test_a_batch_handed_to_a_closed_client_fails_only_its_own_write(memory: Memory) -> None:
    """The write handed the next batch belongs to a client closed while it waited: its
    store sends nothing (ClientClosedError), so the batch fails as a whole and each write
    runs alone: the closed client's fails typed and stores nothing, the others persist."""
    memory.write(rec("seed"), now=T0)
    group = group_for(store_of(memory))
    closing = client_of(memory)
    others = [client_of(memory) for _ in range(3)]
    results: list[Any] = []

    def first() -> None:
        try:
            results.append(closing.write(rec("closed"), now=T0))
        except BaseException as e:
            results.append(e)

    with held(group, 4) as release:
        ft = in_thread(first)
        wait_for(lambda: waiting(group) == 1, "the closing client's write to wait first")
        started = Threads(lambda i: others[i].write(rec(f"o{i}"), now=T0).disposition, 3)
        wait_for(lambda: waiting(group) == 4, "every write to wait")
        closing.close()
        release()
        decisions = started.join()
        ft.join(JOIN_S)
    assert not ft.is_alive()
    assert len(results) == 1 and isinstance(results[0], ClientClosedError)
    assert decisions == [WriteDisposition.PERSIST] * 3
    assert memory.history("closed") == []
    with group.lock:
        assert group.in_flight == 0 and group.waiting == []


# ------------------------------------------------------------------------- times as text

PLUS_0530 = timezone(timedelta(hours=5, minutes=30))
MINUS_1100 = timezone(timedelta(hours=-11))

#: (``now`` as given, the record's created_at/valid_from as given (ISO text), expires_at)
TIMES: dict[str, tuple[datetime, str, str]] = {
    "microseconds": (datetime(2026, 3, 4, 5, 6, 7, 890123, UTC),
                     "2026-03-04T05:06:07.890123+00:00", "2026-03-04T05:06:07.890124+00:00"),
    "offset +05:30": (datetime(2026, 3, 4, 10, 36, 7, 5, PLUS_0530),
                      "2026-03-04T10:36:07.000005+05:30", "2026-03-04T05:06:07.000006+00:00"),
    "offset -11:00 across midnight": (datetime(2026, 12, 31, 20, 0, 0, 999999, MINUS_1100),
                                      "2027-01-01T07:00:00.999999+00:00",
                                      "2026-12-31T20:00:01-11:00"),
    "year 1": (datetime(1, 1, 1, 0, 0, 0, 1, UTC), "0001-01-01T00:00:00.000001+00:00",
               "0001-01-01T00:00:00.000002+00:00"),
    "year 9999": (datetime(9999, 12, 31, 23, 59, 59, 999998, UTC),
                  "9999-12-31T23:59:59.999998+00:00", "9999-12-31T23:59:59.999999+00:00"),
}


def timed(rid: str, case: str) -> dict[str, Any]:
    _, created, expires = TIMES[case]
    return rec(rid, content=f"observation at {case}", created_at=created, valid_from=created,
               expires_at=expires)


def check_times(memory: Memory, rid: str, case: str) -> None:
    """What was stored for ``rid`` reads back as given, as instants, and compares as such."""
    now, created, expires = TIMES[case]
    given = datetime.fromisoformat(created)
    ends = datetime.fromisoformat(expires)
    decisions = memory.history(rid)
    assert [d["kind"] for d in decisions] == ["write:PERSIST"], decisions
    at = decisions[0]["at"]
    assert at == now and at.utcoffset() == timedelta(0), (at, now)
    record = memory.get(rid)
    assert (record.created_at, record.valid_from, record.expires_at) == (given, given, ends)
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (w:WriteDecision {record_id: $id}) RETURN valueType(w.at) AS t", id=rid,
        database_=store_of(memory).database)
    assert [row["t"] for row in rows] == ["ZONED DATETIME NOT NULL"]

    def eligible(at: datetime) -> bool:
        return rid in {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=at)}

    assert eligible(given) and eligible(ends - US)
    assert not eligible(given - US) and not eligible(ends)


@pytest.mark.parametrize("case", list(TIMES))
def test_times_of_one_write_read_back_as_given(memory: Memory, case: str) -> None:
    memory.write(rec("seed"), now=T0)
    assert memory.write(timed("t", case), now=TIMES[case][0]
                        ).disposition is WriteDisposition.PERSIST
    check_times(memory, "t", case)


def test_times_of_batched_writes_read_back_as_given(memory: Memory) -> None:
    """The same in one batch: every write's own ``now`` and times."""
    memory.write(rec("seed"), now=T0)
    group = group_for(store_of(memory))
    cases = list(TIMES)
    clients = [client_of(memory) for _ in cases]
    batches0 = group.batches
    with held(group, len(cases)) as release:
        started = Threads(lambda i: clients[i].write(
            timed(f"t{i}", cases[i]), now=TIMES[cases[i]][0]).disposition, len(cases))
        release()
        decisions = started.join()
    assert group.batches == batches0 + 1
    assert decisions == [WriteDisposition.PERSIST] * len(cases)
    for i, case in enumerate(cases):
        check_times(memory, f"t{i}", case)


@pytest.mark.parametrize("now", [datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))),
                                 datetime(9999, 12, 31, 23, 0, tzinfo=MINUS_1100)])
def test_a_now_outside_utc_years_is_a_validation_error(memory: Memory, now: datetime) -> None:
    with pytest.raises(ValidationError):
        memory.write(rec("out"), now=now)
    assert memory.history("out") == []


@pytest.mark.parametrize("batched", [False, True])
def test_duplicates_are_decided_at_now_to_the_microsecond(memory: Memory, batched: bool
                                                          ) -> None:
    """write_probe's duplicate check reads ``now`` converted back from text: a stored record
    expiring at E is an active duplicate at E - 1 us (DISCARD) and not at E (PERSIST), and
    one created at C is a duplicate from C - clock_skew on (its writer's clock may run
    ahead), not at C - clock_skew - 1 us; with ``now`` given at another offset."""
    created = datetime(2026, 5, 1, 12, 0, 0, 250000, UTC)
    ends = created + timedelta(milliseconds=500)
    offset = timezone(timedelta(hours=-3, minutes=-30))
    skew = memory.policy.clock_skew
    cases = {"before-created": (created - skew - US, WriteDisposition.PERSIST),
             "within-skew": (created - skew, WriteDisposition.DISCARD),
             "live": (ends - US, WriteDisposition.DISCARD),
             "expired": (ends, WriteDisposition.PERSIST)}
    # each into a scope of its own, with a stored record to be a duplicate of
    proposals: dict[str, dict[str, Any]] = {}
    for name in cases:
        scope = {**SCOPE, "part": name}
        memory.write(rec(f"old-{name}", content="the flaky test", scope=scope,
                         created_at=created.isoformat(), expires_at=ends.isoformat()),
                     now=created)
        proposals[name] = rec(name, content="The flaky test.", scope=scope,
                              created_at=(created - timedelta(days=1)).isoformat())
    names = list(cases)
    if batched:
        group = group_for(store_of(memory))
        clients = [client_of(memory) for _ in names]
        with held(group, len(names)) as release:
            started = Threads(lambda i: clients[i].write(
                proposals[names[i]], now=cases[names[i]][0].astimezone(offset)).disposition,
                len(names))
            release()
            got = dict(zip(names, started.join(), strict=True))
    else:
        got = {name: memory.write(proposals[name], now=cases[name][0].astimezone(offset)
                                  ).disposition for name in names}
    assert got == {name: want for name, (_, want) in cases.items()}


# ------------------------------------------------------------------ the commit's ack lost


@pytest.fixture()
def dropper(neo4j_db: Neo4jUnderTest) -> Iterator[LostAck]:
    proxy = LostAck(neo4j_db.settings.uri)
    try:
        yield proxy
    finally:
        proxy.close()


def stored_once(memory: Memory, rid: str) -> bool:
    rows, _, _ = store_of(memory).driver.execute_query(
        "OPTIONAL MATCH (r:Record {id: $id}) RETURN count(r) AS n", id=rid,
        database_=store_of(memory).database)
    return bool(rows[0]["n"] == 1)


def test_a_lost_commit_ack_stores_once_and_is_never_reported_as_a_duplicate(
        memory: Memory, neo4j_db: Neo4jUnderTest, dropper: LostAck) -> None:
    """The connection drops after the server committed a new record, before the client
    heard it. The record is stored once, and the writer is told PERSIST or a typed error
    (resolution unknown): never DISCARD "identical record already stored", its own record
    taken for another's (a retry of the statement finds the record stored and turns it
    away; the full transaction then decided it a duplicate of itself, 5 of 5, until each
    write call stored a token of its own on its decision, by which it knows its record)."""
    settings = dataclasses.replace(neo4j_db.settings, uri=f"bolt://127.0.0.1:{dropper.port}")
    client = Memory.connect(settings, start_if_needed=False, ensure_schema=False)
    outcomes: dict[str, Any] = {}
    try:
        client.write(rec("warm"), now=T0)
        for i in range(5):
            rid = f"lost-{i}"
            dropper.arm(b"write/new")
            try:
                outcomes[rid] = client.write(rec(rid), now=T0).disposition.value
            except GraphmemError as exc:
                outcomes[rid] = type(exc).__name__
            assert dropper.pattern is None, "the statement was never seen"
    finally:
        client.close()
    assert dropper.dropped == 5
    assert all(stored_once(memory, rid) for rid in outcomes), outcomes
    assert "DISCARD" not in outcomes.values(), outcomes
    for rid, outcome in outcomes.items():
        kinds = [h["kind"] for h in memory.history(rid)]
        assert kinds == ["write:PERSIST"], (rid, outcome, kinds)


def test_a_batch_whose_commit_ack_is_lost_reports_no_write_a_duplicate(
        memory: Memory, neo4j_db: Neo4jUnderTest, dropper: LostAck) -> None:
    """The same for a batch: every write of it stored once, each told PERSIST or a typed
    error."""
    settings = dataclasses.replace(neo4j_db.settings, uri=f"bolt://127.0.0.1:{dropper.port}")
    clients = [Memory.connect(settings, start_if_needed=False, ensure_schema=False)
               for _ in range(4)]
    try:
        for i, c in enumerate(clients):
            c.write(rec(f"warm-{i}"), now=T0)
        group = group_for(store_of(clients[0]))
        batches0 = group.batches

        def write(i: int) -> str:
            try:
                return clients[i].write(rec(f"b{i}"), now=T0).disposition.value
            except GraphmemError as exc:
                return type(exc).__name__

        with held(group, 4) as release:
            started = Threads(write, 4)
            wait_for(lambda: waiting(group) == 4, "every write to wait")
            dropper.arm(b"write/new")
            release()
            out = started.join()
    finally:
        for c in clients:
            c.close()
    assert group.batches == batches0 + 1 and dropper.dropped == 1
    assert all(stored_once(memory, f"b{i}") for i in range(4)), out
    assert "DISCARD" not in out, out
    assert all([h["kind"] for h in memory.history(f"b{i}")] == ["write:PERSIST"]
               for i in range(4)), out


