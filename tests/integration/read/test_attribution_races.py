"""Attacks on candidate sets logged as deltas: clients and threads logging for the
same and different callers and scopes at once, sets of a chain lost (an evaluation cleanup
cut short, a crash), deletions between reads. Every logged retrieval must read back exactly
its candidate ids, and only GraphmemError subclasses may leave the client."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.evaluation.funnel import TrialTarget, trials_from_log
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.read.pipeline import Retrieval
from tests.support.database import Neo4jUnderTest
from tests.support.record_sets import T0

AT = T0 + timedelta(days=1)
HIGH = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
LOW = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.NORMAL)
WIDE = Principal(tenants=frozenset({"a", "b"}), clearance=Sensitivity.RESTRICTED)


def scope(project: str) -> dict[str, str]:
    return {"tenant": "a", "project": project}


def state(project: str) -> dict[str, object]:
    return {"memory_scope": scope(project), "goal": "refund policy", "needs_prior_context": True}


def note(rid: str, project: str, sensitivity: Sensitivity = Sensitivity.NORMAL) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, content=f"refund policy note {rid}",
                        created_at=T0, scope=scope(project), sensitivity=sensitivity)


def cs_nodes(memory: Memory) -> dict[str, dict[str, Any]]:
    rows = store_of(memory).driver.execute_query(
        "MATCH (cs:CandidateSet) RETURN cs {.*} AS cs", database_=store_of(memory).database).records
    return {r["cs"]["digest"]: r["cs"] for r in rows}


def assert_reads_back(memory: Memory, results: list[Retrieval]) -> None:
    for result in results:
        logged = memory.get_retrieval(result.trace.retrieval_id)["retrieval"]
        assert logged["candidate_ids"] == list(result.trace.candidate_ids), \
            result.trace.retrieval_id
    targets = [TrialTarget(f"t{i}", rid, r.trace.retrieval_id)
               for i, r in enumerate(results) for rid in r.trace.candidate_ids[:2]]
    assert all(t.eligible for t in trials_from_log(store_of(memory), targets))


def test_clients_and_threads_logging_at_once_read_back_exactly(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    for p in ("p", "q"):
        memory.put_many([note(f"{p}{i:03d}", p, Sensitivity.RESTRICTED if i % 3 == 0
                              else Sensitivity.NORMAL) for i in range(40)])
    other = Memory.connect(neo4j_db.settings, start_if_needed=False)
    results: list[Retrieval] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def loop(client: Memory, worker: int, project: str, principal: Principal) -> None:
        try:
            for i in range(12):
                client.put(note(f"{project}w{worker}-{i}", project))
                r = client.retrieve(state(project), principal=principal, now=AT)
                r2 = client.retrieve(state(project), principal=principal, now=AT)  # same set
                with lock:
                    results.extend([r, r2])
        except BaseException as exc:  # reported below
            errors.append(exc)

    plan = [(memory, 0, "p", HIGH), (other, 1, "p", HIGH), (memory, 2, "p", LOW),
            (other, 3, "q", WIDE), (memory, 4, "q", HIGH), (other, 5, "p", LOW)]
    threads = [threading.Thread(target=loop, args=a) for a in plan]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert len(results) == 12 * 2 * len(plan)
        assert any(s.get("base_digests") for s in cs_nodes(memory).values())
        assert_reads_back(memory, results)
        assert_reads_back(other, results)
    finally:
        other.close()


def test_a_set_whose_chain_lost_a_set_is_logged_again_readably(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """An evaluation cleanup cut short (eval_cleanup deletes $limit nodes at a time) or a
    crash can leave a delta whose base is gone. A later retrieval of that same set, by this or
    another client, must not be logged against the broken chain."""
    memory.put_many([note(f"m{i:03d}", "p") for i in range(20)])
    results = [memory.retrieve(state("p"), principal=HIGH, now=AT)]
    for i in range(3):
        memory.put(note(f"n{i}", "p"))
        results.append(memory.retrieve(state("p"), principal=HIGH, now=AT))
    nodes = cs_nodes(memory)
    top = nodes[max(nodes, key=lambda d: len(nodes[d].get("base_digests") or []))]
    assert len(top["base_digests"]) == 3
    middle = top["base_digests"][1]
    store_of(memory).driver.execute_query("MATCH (cs:CandidateSet {digest: $d}) DETACH DELETE cs",
                                      d=middle, database_=store_of(memory).database)
    other = Memory.connect(neo4j_db.settings, start_if_needed=False)
    try:
        again = [other.retrieve(state("p"), principal=HIGH, now=AT),  # the top set, anew
                 memory.retrieve(state("p"), principal=HIGH, now=AT)]
        memory.put(note("n9", "p"))  # this client's delta base is now the broken top set
        again.append(memory.retrieve(state("p"), principal=HIGH, now=AT))
        assert_reads_back(memory, again)
    finally:
        other.close()


def test_a_set_of_a_chain_stored_again_on_another_base_keeps_the_chain_right(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Chain r <- s1 <- s2; s1 is lost and then logged again by another client as a delta of
    a different base: s2 must still read back its own ids, never silently wrong ones."""
    memory.put_many([note(f"m{i:03d}", "p") for i in range(20)])
    r = memory.retrieve(state("p"), principal=HIGH, now=AT)
    memory.put(note("n1", "p"))
    s1 = memory.retrieve(state("p"), principal=HIGH, now=AT)
    memory.put(note("n2", "p"))
    s2 = memory.retrieve(state("p"), principal=HIGH, now=AT)
    nodes = cs_nodes(memory)
    d1 = nodes[next(d for d, n in nodes.items() if len(n.get("base_digests") or []) == 2)][
        "base_digests"][0]
    store_of(memory).driver.execute_query("MATCH (cs:CandidateSet {digest: $d}) DETACH DELETE cs",
                                      d=d1, database_=store_of(memory).database)
    other = Memory.connect(neo4j_db.settings, start_if_needed=False)
    try:
        s2_other = other.retrieve(state("p"), principal=HIGH, now=AT)  # s2's set; base next
        memory.retract("n2", by="test", reason="wrong", at=AT)  # back to s1's set
        s1_other = other.retrieve(state("p"), principal=HIGH, now=AT)  # s1 anew, on s2
        assert s1_other.trace.candidate_ids == s1.trace.candidate_ids
        assert_reads_back(memory, [r, s1, s2, s2_other, s1_other])
    finally:
        other.close()


def test_a_deletion_between_reads_leaves_every_retrieval_readable_and_verified(
        memory: Memory) -> None:
    memory.put_many([note(f"m{i:03d}", "p") for i in range(20)])
    memory.put(MemoryRecord(id="secret", kind=MemoryKind.SEMANTIC, content="refund policy CANARY-1",
                            created_at=T0, scope=scope("p")))
    results = [memory.retrieve(state("p"), principal=HIGH, now=AT)]
    memory.put(note("n1", "p"))
    results.append(memory.retrieve({**state("p"), "goal": "refund CANARY-1"}, principal=HIGH,
                                   now=AT))
    plan = memory.plan_deletion(roots=["secret"], redact_terms=["CANARY-1"],
                                requested_by="dpo", reason="erase")
    report = memory.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems
    for i in range(3):  # the erased record leaves the set: deltas on sets logged before
        memory.put(note(f"n{i + 2}", "p"))
        results.append(memory.retrieve(state("p"), principal=HIGH, now=AT))
    assert "secret" in results[0].trace.candidate_ids
    assert "secret" not in results[-1].trace.candidate_ids
    assert_reads_back(memory, results[2:])
    for r in results[:2]:  # logged before: still their ids (ids are kept in tombstones)
        assert memory.get_retrieval(r.trace.retrieval_id)["retrieval"]["candidate_ids"] == \
            list(r.trace.candidate_ids)
    assert memory.verify_deletion(plan.request_id, redact_terms=["CANARY-1"]).verification.passed
