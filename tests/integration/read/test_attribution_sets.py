"""The attribution log stores a candidate set that differs little from the caller's last one
as a delta of it: every logged retrieval still reads back its exact candidate ids,
through chains of any length up to the cap, after the base vanished, and in funnel trials."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.evaluation.funnel import TrialTarget, trials_from_log
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.read.attribution import MAX_CHAIN
from tests.support.database import wipe
from tests.support.record_sets import T0

READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
SCOPE = {"tenant": "a", "project": "p"}
STATE = {"memory_scope": SCOPE, "goal": "refund policy", "needs_prior_context": True}


def note(i: int, **extra: Any) -> MemoryRecord:
    return MemoryRecord(id=f"m{i:03d}", kind=MemoryKind.SEMANTIC, content=f"refund policy note {i}",
                        created_at=T0, scope=SCOPE, **extra)


def sets(memory: Memory) -> list[dict[str, Any]]:
    return [r["cs"] for r in store_of(memory).driver.execute_query(
        "MATCH (cs:CandidateSet) RETURN cs {.*} AS cs", database_=store_of(memory).database
    ).records]


def test_a_loop_of_writes_and_reads_logs_deltas_that_read_back_exactly(memory: Memory) -> None:
    memory.put_many([note(i) for i in range(40)])
    at = T0 + timedelta(days=1)
    results = [memory.retrieve(STATE, principal=READER, now=at)]
    for i in range(40, 40 + 2 * MAX_CHAIN + 3):  # past the cap: some sets stored whole again
        memory.put(note(i))
        if i % 5 == 0:
            memory.retract(f"m{i - 40:03d}", by="test", reason="wrong", at=at)
        results.append(memory.retrieve(STATE, principal=READER, now=at))
    stored = sets(memory)
    deltas = [s for s in stored if s.get("base_digests")]
    whole = [s for s in stored if s.get("ids") is not None]
    assert len(stored) == len(results)  # every read after a change has a new set
    assert deltas and len(whole) >= 3  # the first, and two after the cap
    assert max(len(s["base_digests"]) for s in deltas) == MAX_CHAIN
    assert all(len(s["added_ids"]) + len(s["removed_ids"]) <= 2
               for s in deltas)
    for result in results:
        logged = memory.get_retrieval(result.trace.retrieval_id)["retrieval"]
        assert logged["candidate_ids"] == list(result.trace.candidate_ids)
        assert logged["candidate_count"] == len(result.trace.candidate_ids)
    retracted = "m000"
    before, after = results[0], results[-1]
    trials = trials_from_log(store_of(memory), [
        TrialTarget("t0", retracted, before.trace.retrieval_id),
        TrialTarget("t1", retracted, after.trace.retrieval_id),
        TrialTarget("t2", "m041", after.trace.retrieval_id)])
    assert [t.eligible for t in trials] == [True, False, True]


def test_a_set_much_changed_is_stored_whole(memory: Memory) -> None:
    memory.put_many([note(i) for i in range(8)])
    at = T0 + timedelta(days=1)
    memory.retrieve(STATE, principal=READER, now=at)
    memory.put_many([note(i) for i in range(8, 16)])  # the set doubles: no delta
    result = memory.retrieve(STATE, principal=READER, now=at)
    assert all(s.get("ids") is not None for s in sets(memory))
    assert memory.get_retrieval(result.trace.retrieval_id)["retrieval"]["candidate_ids"] == \
        list(result.trace.candidate_ids)


def test_a_delta_whose_base_vanished_is_stored_whole(memory: Memory) -> None:
    memory.put_many([note(i) for i in range(10)])
    at = T0 + timedelta(days=1)
    memory.retrieve(STATE, principal=READER, now=at)
    store_of(memory).driver.execute_query("MATCH (cs:CandidateSet) DETACH DELETE cs",
                                      database_=store_of(memory).database)
    memory.put(note(10))  # the client would send a delta of the set it no longer finds
    result = memory.retrieve(STATE, principal=READER, now=at)
    assert memory.get_retrieval(result.trace.retrieval_id)["retrieval"]["candidate_ids"] == \
        list(result.trace.candidate_ids)
    assert [s.get("base_digests") for s in sets(memory)] == [None]


def test_every_retrieval_reads_back_after_a_wipe_and_reload(memory: Memory) -> None:
    memory.put_many([note(i) for i in range(10)])
    at = T0 + timedelta(days=1)
    memory.retrieve(STATE, principal=READER, now=at)
    wipe(memory)  # the client still believes its sets are stored
    memory.put_many([note(i) for i in range(11)])
    result = memory.retrieve(STATE, principal=READER, now=at)
    assert memory.get_retrieval(result.trace.retrieval_id)["retrieval"]["candidate_ids"] == \
        list(result.trace.candidate_ids)
