"""Property test: a read after writes, brought up to date from its cached answer by the delta
(``candidates_delta.cypher``: changed records found through the stamp indexes) and its ranking
and log prepared by the change, answers as a client that has never cached anything.

Two clients write into the reader's scopes (a project scope, the tenant-wide scope it also
sees, and a scope it does not see): policy writes, successors, retractions, expiries,
quarantines, imports and erasures, interleaved with the reader's retrievals."""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.db.migrations import migrate
from graphmem.db.store import Neo4jStore
from graphmem.errors import GraphmemError
from graphmem.models import Principal, Sensitivity
from graphmem.read.pipeline import Retrieval
from graphmem.read.steps import DecisionState
from tests.support.database import wipe

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
PROJECT = {"tenant": "a", "project": "p"}
SCOPES = (PROJECT, {"tenant": "a"}, {"tenant": "a", "project": "q"})  # the last unseen
WORDS = ("deploy", "build", "cache", "retry", "token", "queue", "refund", "alert")
GOALS = ("fix the deploy build", "rotate the token", "refund queue alert")


def note(rid: str, scope: dict[str, str], words: list[str], **over: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "episodic", "content": " ".join(words), "scope": scope,
            "created_at": (NOW - timedelta(hours=1)).isoformat(),
            "provenance": {"source": "test"}, "authority": "verified_outcome", **over}


def read(client: Memory, goal: str) -> tuple[Any, ...]:
    found: Retrieval = client.retrieve(
        DecisionState(memory_scope=dict(PROJECT), goal=goal, needs_prior_context=True),
        principal=READER, now=NOW)
    return (found.trace.candidate_ids, [(m.record.id, m.score) for m in found.memories],
            found.rendered)


words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5)
ops = st.one_of(
    st.tuples(st.just("write"), st.integers(0, 2), words),
    st.tuples(st.just("successor"), st.integers(0, 99), words,
              st.sampled_from([None, NOW + timedelta(hours=1)])),
    st.tuples(st.just("retract"), st.integers(0, 99)),
    st.tuples(st.just("expire"), st.integers(0, 99),
              st.sampled_from([NOW - timedelta(minutes=30), NOW + timedelta(hours=1)])),
    st.tuples(st.just("quarantine"), st.integers(0, 99), st.booleans()),
    st.tuples(st.just("import"), st.integers(0, 2), words),
    st.tuples(st.just("erase"), st.integers(0, 99)),
)


def apply(writer: Memory, alive: list[str], op: tuple[Any, ...], serial: int) -> None:
    """One operation by ``writer``; ``alive``: ids it may name (grows with what it writes)."""
    rid = f"n{serial}"
    target = alive[op[1] % len(alive)] if alive else None
    if op[0] == "write":
        writer.write(note(rid, SCOPES[op[1]], op[2]), now=NOW)
        alive.append(rid)
    elif op[0] == "import":
        writer.put_many([note(rid, SCOPES[op[1]], op[2])])
        alive.append(rid)
    elif target is None:
        return
    elif op[0] == "successor":
        with suppress(GraphmemError):  # e.g. its predecessor was erased meanwhile
            old = writer.get(target)
            writer.write(note(rid, old.scope, op[2], supersedes=[target],
                              valid_from=None if op[3] is None else op[3].isoformat()),
                         now=NOW)
            alive.append(rid)
    elif op[0] == "retract":
        with suppress(GraphmemError):
            writer.retract(target, by="test", reason="delta property")
    elif op[0] == "expire":
        with suppress(GraphmemError):  # refused: not after valid_from
            writer.expire(target, at=op[2], by="test", reason="delta property")
    elif op[0] == "quarantine":
        with suppress(GraphmemError):
            store_of(writer).set_quarantine(target, op[2], by="test", reason="delta property")
    else:
        alive.remove(target)
        with suppress(GraphmemError):
            writer.apply_deletion(writer.plan_deletion([target], requested_by="test",
                                                       reason="delta property"))


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.lists(st.tuples(st.integers(0, 2), words), min_size=1, max_size=12),
       steps=st.lists(st.tuples(st.booleans(), ops, st.sampled_from(GOALS)), min_size=1,
                      max_size=8))
def test_a_read_after_writes_equals_a_never_cached_one(
        memory: Memory, seed: list[tuple[int, list[str]]],
        steps: list[tuple[bool, tuple[Any, ...], str]]) -> None:
    """After each write by the reader itself or by another client, the reader's retrieval
    (its cached answer brought up to date by the delta, its indexes by the change) equals a
    fresh client's: the same candidates, the same memories with the same scores, the same
    rendered text; asked again (the answer reused), the same again."""
    wipe(memory)
    store = store_of(memory)
    other = Memory(Neo4jStore(store.driver, database=store.database))
    memory.put_many([note(f"s{i}", SCOPES[s], w) for i, (s, w) in enumerate(seed)])
    alive = [f"s{i}" for i in range(len(seed))]
    for goal in GOALS:
        read(memory, goal)  # answers cached before any write
    for serial, (own, op, goal) in enumerate(steps):
        apply(memory if own else other, alive, op, serial)
        fresh = read(Memory(Neo4jStore(store.driver, database=store.database)), goal)
        assert read(memory, goal) == fresh, (serial, own, op)
        assert read(memory, goal) == fresh, (serial, own, op)


def test_reads_after_writes_of_both_clients_are_deltas_and_exact(memory: Memory) -> None:
    """The reads after writes, retractions, expiries and supersessions by the reader and by
    another client in a scope of many records are brought up to date by the delta (not
    computed in full), and each equals a fresh client's."""
    store = store_of(memory)
    other = Memory(Neo4jStore(store.driver, database=store.database))
    memory.put_many([note(f"s{i}", SCOPES[i % 2], [WORDS[i % 8], WORDS[i * 3 % 8], "log"])
                     for i in range(300)])
    alive = [f"s{i}" for i in range(300)]
    read(memory, GOALS[0])
    before = dict(store.answer_stats)
    steps = [("write", 0, ["deploy", "cache"]), ("retract", 7),
             ("expire", 11, NOW - timedelta(minutes=30)), ("quarantine", 13, True),
             ("successor", 17, ["token", "queue"], None), ("write", 1, ["refund"]),
             ("quarantine", 13, False), ("successor", 19, ["alert"], NOW + timedelta(hours=1))]
    for serial, op in enumerate(steps):
        apply(memory if serial % 2 else other, alive, op, 1000 + serial)
        fresh = read(Memory(Neo4jStore(store.driver, database=store.database)), GOALS[0])
        assert read(memory, GOALS[0]) == fresh, op
    assert store.answer_stats["delta"] - before.get("delta", 0) == len(steps)
    assert store.answer_stats["computed"] == before.get("computed", 0)


def test_the_stamp_epoch_migration_starts_every_version_again(memory: Memory) -> None:
    """A store written before the stamp indexes gets, once, a new epoch on every ScopeVersion
    and WriteSlot: an answer cached before is then computed again in full (a delta could miss
    a change stamped without its epoch), and equals a fresh one."""
    store = store_of(memory)
    memory.write(note("w0", PROJECT, ["deploy"]), now=NOW)
    memory.put_many([note("i0", SCOPES[1], ["build"])])
    read(memory, GOALS[0])

    def epochs() -> dict[str, str]:
        rows = store.driver.execute_query(
            "MATCH (n:ScopeVersion|WriteSlot) RETURN n.key AS key, n.epoch AS epoch",
            database_=store.database)[0]
        return {f"{row['key']}": row["epoch"] for row in rows}

    before = epochs()
    store.driver.execute_query("MATCH (m:GraphmemMigration {name: 'stamp_epochs'}) DELETE m",
                               database_=store.database)
    assert migrate(store) == 0  # no record changes
    after = epochs()
    assert after.keys() == before.keys() and len(before) > 32
    assert all(after[k] != before[k] for k in before)
    computed = store.answer_stats["computed"]
    fresh = read(Memory(Neo4jStore(store.driver, database=store.database)), GOALS[0])
    assert read(memory, GOALS[0]) == fresh
    assert store.answer_stats["computed"] == computed + 1
    migrate(store)
    assert epochs() == after  # recorded: it runs once


def test_a_change_an_older_client_stamped_without_its_epoch_is_not_missed(
        memory: Memory) -> None:
    """A client from before the stamp epochs bumps the same versions and stamps its records'
    rev and seq, but not their epochs: the seeks do not find them. The reader, missing a rev
    or a seq its versions moved by, computes its answer in full rather than keep a delta
    without that change (docs/operations.md, mixed client versions)."""
    store = store_of(memory)
    other = Memory(Neo4jStore(store.driver, database=store.database))
    memory.put_many([note(f"s{i}", PROJECT, ["deploy", WORDS[i]]) for i in range(6)])
    read(memory, GOALS[0])
    changes = (("old-write", "write", ["refund", "alert"]), ("old-import", "import", ["alert"]),
               ("new-write", "write", ["token", "alert", "retry"]))
    for rid, how, said in changes:  # none a duplicate the write policy would drop
        if how == "write":
            other.write(note(rid, PROJECT, said), now=NOW)
        else:
            other.put_many([note(rid, PROJECT, said)])
        if rid.startswith("old"):  # as the older client left it
            store.driver.execute_query("MATCH (r:Record {id: $id}) REMOVE r.sepoch, r.wepoch",
                                       id=rid, database_=store.database)
        stats = dict(store.answer_stats)
        fresh = read(Memory(Neo4jStore(store.driver, database=store.database)), GOALS[0])
        got = read(memory, GOALS[0])
        assert got == fresh and rid in got[0], rid
        if rid.startswith("old"):
            assert store.answer_stats["computed"] == stats.get("computed", 0) + 1, rid
        else:  # a change stamped with its epoch is a delta again
            assert store.answer_stats["delta"] == stats.get("delta", 0) + 1, rid
