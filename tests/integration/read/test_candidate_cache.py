"""Neo4jStore.candidates reuses an answer only while it is provably exact: writes by any
client, lifecycle transitions, deletion and the passage of time all show at once."""

from __future__ import annotations

import random
import threading
from contextlib import suppress
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.db.store import Neo4jStore
from graphmem.errors import GraphmemError, PolicyError
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest, wipe
from tests.support.oracle import Stored
from tests.support.record_sets import T0, TIMES, queries, record_sets

READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)


def answer(store: Neo4jStore, q: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    principal = Principal(tenants=frozenset(q["tenants"]) | {q["scope"]["tenant"]},
                          clearance=q["clearance"])
    return {c.record.id: c.conflict_ids
            for c in store.candidates(principal, q["scope"], q["now"])}


ops = st.one_of(
    st.tuples(st.just("retract"), st.integers(0, 20)),
    st.tuples(st.just("expire"), st.integers(0, 20), st.sampled_from(TIMES)),
    st.tuples(st.just("quarantine"), st.integers(0, 20), st.booleans()),
    st.tuples(st.just("successor"), st.integers(0, 20), st.sampled_from([None, *TIMES]),
              st.booleans(), st.sampled_from(TIMES)),
    st.tuples(st.just("delete"), st.integers(0, 20)),
    # policy writes (stamped with their write slot's seq, not the ScopeVersion's
    # rev): a successor, or a new observation (sometimes a duplicate, discarded)
    st.tuples(st.just("write"), st.integers(0, 20), st.sampled_from([None, *TIMES]),
              st.booleans(), st.sampled_from(TIMES)),
    st.tuples(st.just("observe"), st.integers(0, 20), st.integers(0, 2),
              st.sampled_from(TIMES)),
)


def apply(writer: Memory, ids: list[str], op: tuple[Any, ...], serial: int) -> None:
    target = ids[op[1] % len(ids)]
    if op[0] == "retract":
        writer.retract(target, by="test", reason="cache test")
    elif op[0] == "expire":
        with suppress(PolicyError):  # refused: not after valid_from (nothing written)
            writer.expire(target, at=op[2], by="test", reason="cache test")
    elif op[0] == "quarantine":
        store_of(writer).set_quarantine(target, op[2], by="test", reason="cache test")
    elif op[0] == "successor":
        old = writer.get(target)
        new = MemoryRecord(
            id=f"s{serial}", kind=MemoryKind.SEMANTIC, content=f"successor {serial}",
            created_at=op[4], scope=old.scope, valid_from=op[2], supersedes=(target,),
            asserts="k" if op[3] else None, asserted_value=f"v{serial}" if op[3] else None)
        writer.put(new)
        ids.append(new.id)
    elif op[0] == "write":
        old = writer.get(target)
        writer.write(MemoryRecord(
            id=f"w{serial}", kind=MemoryKind.SEMANTIC, content=f"written successor {serial}",
            created_at=op[4], scope=old.scope, valid_from=op[2], supersedes=(target,),
            authority=Authority.VERIFIED_OUTCOME, asserts="k" if op[3] else None,
            asserted_value=f"v{serial}" if op[3] else None), by="test", now=op[4])
        ids.append(f"w{serial}")
    elif op[0] == "observe":
        old = writer.get(target)
        decision = writer.write(MemoryRecord(
            id=f"o{serial}", kind=MemoryKind.EPISODIC, content=f"observation number {op[2]}",
            created_at=op[3], scope=old.scope, authority=Authority.VERIFIED_OUTCOME),
            by="test", now=op[3])
        if decision.disposition is WriteDisposition.PERSIST:
            ids.append(f"o{serial}")
    else:
        plan = writer.plan_deletion([target], requested_by="test", reason="cache test")
        writer.apply_deletion(plan)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(stored=record_sets(erasable=False),
       steps=st.lists(st.tuples(ops, st.lists(queries, min_size=1, max_size=3)),
                      min_size=1, max_size=5))
def test_reused_answers_equal_fresh_ones(memory: Memory, stored: list[Stored],
                                         steps: list[tuple[Any, list[dict[str, Any]]]]) -> None:
    """After every write, by another client or by the caching reader itself (odd steps), every
    query of the caching reader (asked twice, so the second may be reused) equals the answer
    of a store that has never cached. Cached answers are brought up to date from the delta
    (candidates_delta.cypher) when no epoch moved, so this also checks the delta path."""
    wipe(memory)
    writer = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    memory.put_many([s.record for s in stored])
    ids = [s.record.id for s in stored]
    erased: set[str] = set()
    for serial, (op, qs) in enumerate(steps):
        if ids[op[1] % len(ids)] in erased:
            continue
        if op[0] == "delete":
            erased.add(ids[op[1] % len(ids)])
        for q in qs:  # answers cached before the write
            answer(store_of(memory), q)
        apply(memory if serial % 2 else writer, ids, op, serial)
        for q in qs:
            store = store_of(memory)
            fresh = answer(Neo4jStore(store.driver, database=store.database), q)
            assert answer(store_of(memory), q) == fresh, (op, q)
            assert answer(store_of(memory), q) == fresh, (op, q)


def test_answers_are_reused_until_a_write_or_a_validity_boundary(memory: Memory) -> None:
    scope = {"tenant": "a", "project": "p"}
    later = T0 + timedelta(days=3)
    memory.put_many([
        MemoryRecord(id="now", kind=MemoryKind.SEMANTIC, content="valid now", created_at=T0,
                     scope=scope),
        MemoryRecord(id="later", kind=MemoryKind.SEMANTIC, content="valid later", created_at=T0,
                     scope=scope, valid_from=later),
        MemoryRecord(id="elsewhere", kind=MemoryKind.SEMANTIC, content="other project",
                     created_at=T0, scope={"tenant": "a", "project": "q"}),
    ])
    store, stats = store_of(memory), store_of(memory).answer_stats
    at = T0 + timedelta(days=1)

    def ids(now: Any = at) -> set[str]:
        return {c.record.id for c in store.candidates(READER, scope, now)}

    assert ids() == {"now"} and stats["computed"] == 1
    assert ids() == {"now"} and ids(later - timedelta(seconds=1)) == {"now"}
    assert stats["reused"] == 2 and stats["computed"] == 1
    assert ids(later) == {"now", "later"}  # the boundary ends the window
    assert stats["computed"] == 2
    # a write to a scope the query does not see changes nothing and keeps the answer
    memory.retract("elsewhere", by="test", reason="unrelated")
    assert ids(later) == {"now", "later"} and stats["computed"] == 2
    # a write by another client to a visible scope is seen at once
    other = Memory(Neo4jStore(store.driver, database=store.database))
    other.retract("now", by="test", reason="withdrawn")
    assert ids(later) == {"later"} and stats["computed"] == 2 and stats["delta"] == 1
    # a policy write is seen at once (its slot's version moved) ...
    written = other.write(MemoryRecord(
        id="obs", kind=MemoryKind.EPISODIC, content="an observation", created_at=T0,
        scope=scope, authority=Authority.VERIFIED_OUTCOME), by="test", now=at)
    assert written.disposition is WriteDisposition.PERSIST
    assert ids(later) == {"later", "obs"} and stats["delta"] == 2
    # ... and a proposal the policy discards (a duplicate) moves no version: still reused
    reused = stats["reused"]
    for client in (other, memory):
        again = client.write(MemoryRecord(
            id=f"obs-again-{id(client)}", kind=MemoryKind.EPISODIC, content="An observation.",
            created_at=T0, scope=scope, authority=Authority.VERIFIED_OUTCOME), by="test",
            now=at)
        assert again.disposition is WriteDisposition.DISCARD and again.duplicate_of == "obs"
        assert ids(later) == {"later", "obs"}
    assert stats["reused"] == reused + 2 and stats["delta"] == 2 and stats["computed"] == 2



def test_creation_times_are_validity_boundaries(memory: Memory) -> None:
    """A record created after ``now`` is NOT_YET_VALID (docs/spec/status.md#not-yet-valid), and a
    successor supersedes only once created: each created_at ends a reuse window, in both
    directions."""
    scope = {"tenant": "a"}
    born = T0 + timedelta(days=2)
    memory.put_many([
        MemoryRecord(id="old", kind=MemoryKind.SEMANTIC, content="old", created_at=T0, scope=scope),
        MemoryRecord(id="late", kind=MemoryKind.SEMANTIC, content="late", created_at=born,
                     scope=scope),
        MemoryRecord(id="new", kind=MemoryKind.SEMANTIC, content="new", scope=scope,
                     created_at=born + timedelta(days=1), supersedes=("old",)),
    ])
    store, stats = store_of(memory), store_of(memory).answer_stats

    def ids(now: Any) -> set[str]:
        return {c.record.id for c in store.candidates(READER, scope, now)}

    assert ids(T0 + timedelta(days=1)) == {"old"} and stats["computed"] == 1
    assert ids(born - timedelta(microseconds=1)) == {"old"} and stats["reused"] == 1
    assert ids(born) == {"old", "late"} and stats["computed"] == 2
    assert ids(born + timedelta(hours=23)) == {"old", "late"} and stats["reused"] == 2
    assert ids(born + timedelta(days=1)) == {"late", "new"} and stats["computed"] == 3
    assert ids(born - timedelta(microseconds=1)) == {"old"}  # back in time: recomputed
    assert stats["computed"] == 4 and stats["reused"] == 2

def test_every_kind_of_write_ends_reuse(memory: Memory) -> None:
    """One visible record per kind of write; each write by another client shows at once."""
    scope = {"tenant": "a"}
    at = T0 + timedelta(days=1)
    names = ["retract", "expire", "quarantine", "successor", "delete", "new"]
    memory.put_many([MemoryRecord(id=n, kind=MemoryKind.SEMANTIC, content=n, created_at=T0,
                                  scope=scope)
                     for n in names[:-1]])
    other = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    ops: dict[str, Any] = {
        "retract": lambda: other.retract("retract", by="t", reason="r"),
        "expire": lambda: other.expire("expire", at=T0, by="t", reason="r"),
        "quarantine": lambda: store_of(other).set_quarantine("quarantine", True, by="t",
                                                             reason="r"),
        "successor": lambda: other.put(MemoryRecord(
            id="succ", kind=MemoryKind.SEMANTIC, content="s", created_at=T0, scope=scope,
            supersedes=("successor",))),
        "delete": lambda: other.apply_deletion(
            other.plan_deletion(["delete"], requested_by="t", reason="r")),
        "new": lambda: other.put(MemoryRecord(id="new", kind=MemoryKind.SEMANTIC, content="n",
                                              created_at=T0, scope=scope)),
    }
    expected = set(names[:-1])
    for name in names:
        before = {c.record.id for c in store_of(memory).candidates(READER, scope, at)}
        assert before == expected
        ops[name]()
        expected = expected - {name} if name != "new" else expected | {"new"}
        expected |= {"succ"} if name == "successor" else set()
        found = store_of(memory).candidates(READER, scope, at)
        assert {c.record.id for c in found} == expected, name


def test_retrievals_share_one_stored_candidate_set(memory: Memory) -> None:
    """The attribution log stores a candidate set once; every retrieval reads it back whole,
    even when the set vanished after this client stored it (the ids are sent again)."""
    scope = {"tenant": "a"}
    records = [MemoryRecord(id=f"m{i}", kind=MemoryKind.SEMANTIC, content=f"refund policy {i}",
                            created_at=T0, scope=scope) for i in range(5)]
    memory.put_many(records)
    state = {"memory_scope": scope, "goal": "refund policy", "needs_prior_context": True}
    at = T0 + timedelta(days=1)
    first = memory.retrieve(state, principal=READER, now=at)
    second = memory.retrieve(state, principal=READER, now=at)
    assert store_of(memory).counts().get("CandidateSet") == 1
    for result in (first, second):
        logged = memory.get_retrieval(result.trace.retrieval_id)["retrieval"]
        assert sorted(logged["candidate_ids"]) == [f"m{i}" for i in range(5)]
        assert logged["candidate_count"] == 5
    wipe(memory)  # the client still believes the set is stored
    memory.put_many(records)
    third = memory.retrieve(state, principal=READER, now=at)
    logged = memory.get_retrieval(third.trace.retrieval_id)["retrieval"]
    assert sorted(logged["candidate_ids"]) == [f"m{i}" for i in range(5)]


@pytest.mark.parametrize("change", ["retract", "erase"])
def test_a_record_changed_between_the_decision_and_its_read_is_never_returned(
        memory: Memory, change: str) -> None:
    """candidates.cypher decides on ids and versions; the records the client lacks are read
    in a second query. A retraction that commits in between (the soak saw one) must not
    return the retracted record as a candidate: the answer is read again."""
    scope = {"tenant": "a"}
    memory.put_many([MemoryRecord(id=f"r{i}", kind=MemoryKind.SEMANTIC, content=f"note {i}",
                                  created_at=T0, scope=scope) for i in range(3)])
    other = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    read_props = store_of(memory).get_props
    calls: list[list[str]] = []

    def racing(ids: Any) -> dict[str, dict[str, Any]]:
        calls.append(list(ids))
        if len(calls) == 1:  # another client changes r1 right after the decision
            if change == "retract":
                other.retract("r1", by="other", reason="wrong")
            else:  # a deletion walk leaves a tombstone without content or fingerprint
                other.apply_deletion(other.plan_deletion(["r1"], requested_by="p",
                                                         reason="r"))
        return read_props(ids)

    store_of(memory).get_props = racing  # type: ignore[method-assign]
    at = T0 + timedelta(days=1)
    before = store_of(memory).answer_stats["computed"]
    found = store_of(memory).candidates(READER, scope, at)
    assert sorted(c.record.id for c in found) == ["r0", "r2"]
    assert not any(c.record.retracted for c in found)
    assert store_of(memory).answer_stats["computed"] == before + 2  # read again after the race


def test_a_delta_row_read_across_a_change_falls_back_to_a_full_read(memory: Memory) -> None:
    """Within candidates_delta.cypher a record's decision and its properties are read in one
    row; if they disagree on the version (a commit in between), the delta is not used."""
    scope = {"tenant": "a"}
    at = T0 + timedelta(days=1)
    memory.put(MemoryRecord(id="d0", kind=MemoryKind.SEMANTIC, content="note", created_at=T0,
                            scope=scope))
    store_of(memory).candidates(READER, scope, at)
    memory.put(MemoryRecord(id="d1", kind=MemoryKind.SEMANTIC, content="note 1", created_at=T0,
                            scope=scope))
    read_once = store_of(memory).read_once

    def skewed(name: str, **params: Any) -> list[dict[str, Any]]:
        rows = read_once(name, **params)
        if name == "candidates_delta":
            for d in rows[0]["decided"]:
                if d[4] is not None:  # properties of a later version than the decision
                    d[4] = {**d[4], "rev": int(d[3]) + 1, "retracted": True}
        return rows

    store_of(memory).read_once = skewed  # type: ignore[method-assign]
    before = store_of(memory).answer_stats["computed"]
    found = store_of(memory).candidates(READER, scope, at)
    assert sorted(c.record.id for c in found) == ["d0", "d1"]
    assert not any(c.record.retracted for c in found)
    assert store_of(memory).answer_stats["computed"] == before + 1


# Write slots: a policy write moves its write slot's (epoch, seq), not the scope's
# ScopeVersion. Scopes a reader at {a, p} or {a, p, u} sees, one it never sees.
SLOT_SCOPES = [{"tenant": "a"}, {"tenant": "a", "project": "p"},
               {"tenant": "a", "project": "p", "user": "u"}, {"tenant": "a", "project": "q"}]
SLOT_AT = T0 + timedelta(days=1)


def note(rid: str, scope: dict[str, str], **over: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"note {rid}", "created_at": T0.isoformat(),
            "scope": scope, "provenance": {"source": "test"}, "authority": "verified_outcome",
            **over}


def cypher(memory: Memory, text: str) -> list[Any]:
    return store_of(memory).driver.execute_query(text, database_=store_of(memory).database)[0]


def same_as_fresh(reader: Memory, step: Any) -> None:
    """Every query of the reader (asked twice: the second may be reused) at two times on
    either side of the validity boundaries the steps use equals a never-caching store's."""
    for at in (SLOT_AT, SLOT_AT + timedelta(days=2), SLOT_AT):
        for q in SLOT_SCOPES[:3]:
            fresh = answer(Neo4jStore(store_of(reader).driver, database=store_of(reader).database),
                           {"tenants": ["a"], "scope": q, "clearance": Sensitivity.RESTRICTED,
                            "now": at})
            for _ in range(2):
                assert answer(store_of(reader), {"tenants": ["a"], "scope": q, "now": at,
                                             "clearance": Sensitivity.RESTRICTED}) == fresh, (
                    step, q, at)


def slot_step(rng: random.Random, w: Memory, memory: Memory, alive: list[str], rid: str
              ) -> str:
    op = rng.choice(["write", "write", "succ", "retract", "expire", "delete", "batch",
                     "slots", "slot", "assert", "nodes"])
    scope = rng.choice(SLOT_SCOPES)
    if op == "write":  # sometimes a duplicate (DISCARD), not yet valid, or expiring
        created = T0 + timedelta(days=rng.choice([0, 0, 2]))
        expires = rng.choice([None, (T0 + timedelta(days=2, hours=12)).isoformat()])
        d = w.write(note(rid, scope, content=f"note {rng.randrange(6)}",
                         created_at=created.isoformat(), expires_at=expires), now=T0)
        if d.disposition is not WriteDisposition.DISCARD:
            alive.append(rid)
    elif op == "assert":
        w.write(note(rid, scope, asserts="owner", asserted_value=rid), now=T0)
        alive.append(rid)
    elif op == "succ":  # a successor in a narrower, wider or unseen scope
        with suppress(GraphmemError):
            w.write(note(rid, scope, supersedes=[rng.choice(alive)], valid_from=rng.choice(
                [None, (T0 + timedelta(hours=12)).isoformat()])), now=T0)
            alive.append(rid)
    elif op == "retract":
        w.retract(rng.choice(alive), by="t", reason="r")
    elif op == "expire":
        with suppress(PolicyError):
            w.expire(rng.choice(alive), at=T0 + timedelta(hours=rng.choice([1, 48])), by="t",
                     reason="r")
    elif op == "delete" and len(alive) > 1:
        target = alive.pop(rng.randrange(len(alive)))
        w.apply_deletion(w.plan_deletion([target], requested_by="t", reason="r"))
        erased = {r["id"] for r in cypher(memory, "MATCH (r:Record) WHERE r.erased "
                                                  "RETURN r.id AS id")}
        alive[:] = [a for a in alive if a not in erased]
    elif op == "batch":  # put_many: records without a write slot stamp
        batch = [note(f"{rid}-{i}", rng.choice(SLOT_SCOPES)) for i in range(3)]
        w.put_many(batch)
        alive.extend(b["id"] for b in batch)
    elif op == "slots":
        cypher(memory, "MATCH (l:WriteSlot) DETACH DELETE l")
    elif op == "slot":  # a scope whose slots exist for some indexes only
        cypher(memory, f"MATCH (l:WriteSlot) WHERE l.key ENDS WITH '#{rng.randrange(32)}' "
                       "DETACH DELETE l")
    elif op == "nodes":
        cypher(memory, "MATCH (n:ScopeVersion|Assertion) WHERE rand() < 0.3 DETACH DELETE n")
        cypher(memory, "MATCH (n:Scope) WHERE NOT EXISTS { (n)<-[:IN_SCOPE]-() } "
                       "DETACH DELETE n")
    return op


@pytest.mark.parametrize("seed", [0, 7])
def test_reused_answers_stay_exact_with_write_slots(memory: Memory, seed: int) -> None:
    """A caching reader and two other clients interleave policy writes (new, duplicate,
    successors across narrower and wider scopes), retractions, expiries, deletions,
    put_many batches, and deletions of every WriteSlot, of one slot index, of ScopeVersion and
    Assertion nodes, while the reader holds cached answers: each answer equals a fresh one."""
    rng = random.Random(seed)
    store = store_of(memory)
    writers = [memory, *(Memory(Neo4jStore(store.driver, database=store.database))
                         for _ in range(2))]
    writers[1].write(note("seed", SLOT_SCOPES[0]), now=T0)
    alive = ["seed"]
    for serial in range(25):
        same_as_fresh(memory, "before")
        op = slot_step(rng, rng.choice(writers), memory, alive, f"x{serial}")
        same_as_fresh(memory, (seed, serial, op))


@pytest.mark.parametrize("round_", range(20))
def test_a_reader_racing_policy_writers_ends_exact(memory: Memory, neo4j_db: Neo4jUnderTest,
                                                   round_: int) -> None:
    """Two reader threads of one caching client read while four clients write (and retract)
    into scopes it sees, one record at a time through the write policy (a write slot's seq) and
    three at a time (a ScopeVersion's revs): once the writes are done, its answers equal fresh
    ones. A reader that kept a version whose change it had not seen yet (a transaction's index
    entries show after its store records) would keep an answer missing that change; many
    rounds, as the window is short."""
    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
               for _ in range(4)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                for q in SLOT_SCOPES[:3]:
                    store_of(memory).candidates(READER, q, SLOT_AT)
        except BaseException as exc:
            errors.append(exc)

    def write(w: int) -> None:
        try:
            rng = random.Random(w + 10 * round_)
            for i in range(40):
                if i % 5 == 4:
                    clients[w].put_many([note(f"w{w}-{i}-{j}", rng.choice(SLOT_SCOPES))
                                         for j in range(3)])
                    continue
                d = clients[w].write(note(f"w{w}-{i}", rng.choice(SLOT_SCOPES),
                                          content=f"c {w} {i % 7}"), now=T0)
                if i % 9 == 0 and d.disposition is WriteDisposition.PERSIST:
                    clients[w].retract(f"w{w}-{i}", by="t", reason="r")
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    for c in clients:
        c.close()
    assert not errors
    same_as_fresh(memory, "after the race")


def test_a_write_slot_created_again_is_never_mistaken_for_the_old_one(memory: Memory) -> None:
    """A slot deleted and created again restarts its seq: a record it stamps has a seq the
    reader's cached answer already knew for the old slot. Only the slot's new epoch tells."""
    from graphmem.db.codec import coerce_record
    from graphmem.db.slots import stamp_slot

    scope = SLOT_SCOPES[1]

    def index(rid: str) -> int:
        return stamp_slot(coerce_record(note(rid, scope)))[1]

    same = [rid for rid in (f"n{i}" for i in range(800)) if index(rid) == index("n0")][:12]
    writer = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    for rid in same[:3]:  # the slot's seq reaches 3 (created by write/nodes_ensure)
        writer.write(note(rid, scope), now=T0)
    same_as_fresh(memory, "cached")
    cypher(memory, "MATCH (l:WriteSlot) DETACH DELETE l")
    other = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    for rid in same[3:6]:  # created again by write/nodes_ensure: seq 1, 2, 3
        other.write(note(rid, scope), now=T0)
    same_as_fresh(memory, "created again by write/nodes_ensure")
    for start in (6, 9):  # twice inside the write (write/slots_ensure): seq 1, 2, 3
        cypher(memory, f"MATCH (l:WriteSlot) WHERE l.key ENDS WITH '#{index('n0')}' "
                       "DETACH DELETE l")
        for rid in same[start:start + 3]:
            other.write(note(rid, scope), now=T0)
        same_as_fresh(memory, ("created again by write/slots_ensure", start))
