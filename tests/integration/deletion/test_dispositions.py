"""How a deletion request records its dispositions (docs/spec/deletion.md#apply): the records it
erases itself are listed on one ErasureBatch node per batch, everything else (tombstones of
earlier requests, marks, intentions) keeps a DISPOSED edge, and the verification and the report
read both exactly, including a request an older version started with an edge per record."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.deletion import Disposition, apply_deletion
from graphmem.lineage.graph import snippet

SUBJECT = {"tenant": "t", "user": "x"}


class Crash(Exception):
    pass


def _record(rid: str, *, parents: tuple[str, ...] = (), scope: dict[str, str] | None = None
            ) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"record {rid}",
            "created_at": "2026-01-01T00:00:00+00:00", "scope": scope or {"tenant": "t"},
            "derived_from": list(parents)}


def _run(memory: Memory, text: str, **params: Any) -> list[dict[str, Any]]:
    store = store_of(memory)
    rows, _, _ = store.driver.execute_query(text, params, database_=store.database)
    return [dict(r) for r in rows]


def _edges(memory: Memory, request_id: str) -> dict[str, dict[str, Any]]:
    rows = _run(memory, "MATCH (:DeletionRequest {id: $id})-[x:DISPOSED]->(n) "
                        "RETURN n.id AS id, properties(x) AS x", id=request_id)
    return {r["id"]: r["x"] for r in rows}


def _listed(memory: Memory, request_id: str) -> list[str]:
    rows = _run(memory, "MATCH (:DeletionRequest {id: $id})-[:ERASED]->(b:ErasureBatch) "
                        "UNWIND b.ids AS id RETURN id", id=request_id)
    return [r["id"] for r in rows]


def _store(memory: Memory) -> None:
    records = [_record("root", scope=SUBJECT)]
    for i in range(30):
        records.append(_record(f"a{i}", parents=("root",)))
        records.append(_record(f"b{i}", parents=(f"a{i}", "keep" if i % 3 == 0 else "root")))
    records.append(_record("keep"))
    records.append(_record("old", parents=("root",)))
    memory.put_many(records)


def test_erased_records_are_listed_per_batch_and_the_rest_keep_edges(memory: Memory) -> None:
    _store(memory)
    first = memory.plan_deletion(roots=["old"], requested_by="p", reason="earlier")
    memory.apply_deletion(first)
    plan = memory.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    deleted = {e.id for e in plan.entries if e.disposition is Disposition.DELETE}
    assert "old" in deleted and len(plan.entries) == 62
    report = apply_deletion(store_of(memory), plan, batch_size=20)
    assert report.verification.passed, report.verification.problems
    assert report.verification.disposed == len(plan.entries)

    listed = _listed(memory, plan.request_id)
    assert sorted(listed) == sorted(deleted - {"old"})  # once each, the earlier tombstone not
    edges = _edges(memory, plan.request_id)
    assert set(edges) == {e.id for e in plan.entries} - set(listed)
    assert edges["old"]["changed"] is False and edges["old"]["disposition"] == "DELETE"
    assert {e.id: (e.disposition, e.changed, e.root) for e in report.entries} == {
        e.id: (e.disposition, e.id != "old", e.via == "root") for e in plan.entries}
    assert [e.id for e in report.entries] == sorted(e.id for e in plan.entries)

    rows = _run(memory, snippet("deletion_request"), request_id=plan.request_id)
    nodes = {r["disposition"]: (r["nodes"], r["changed"]) for r in rows}
    assert nodes == {"DELETE": (len(deleted), len(deleted) - 1),
                     "RECOMPUTE": (len(plan.entries) - len(deleted), 10)}
    stored = memory.verify_deletion(plan.request_id).request
    assert stored.state == "applied"
    count = _run(memory, "MATCH (q:DeletionRequest {id: $id}) RETURN q.disposed_count AS n",
                 id=plan.request_id)
    assert count == [{"n": len(plan.entries)}]


def test_a_listed_tombstone_that_vanished_or_got_content_back_fails(memory: Memory) -> None:
    _store(memory)
    plan = memory.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    report = apply_deletion(store_of(memory), plan, batch_size=20)
    assert report.verification.passed
    listed = _listed(memory, plan.request_id)
    _run(memory, "MATCH (r:Record {id: $id}) SET r.content = 'back'", id=listed[0])
    _run(memory, "MATCH (r:Record {id: $id}) DETACH DELETE r", id=listed[1])
    verdict = memory.verify_deletion(plan.request_id).verification
    assert not verdict.passed
    assert verdict.deleted_with_content == (listed[0],)
    assert verdict.disposed == len(plan.entries) - 1
    assert any(f"{len(plan.entries) - 1} of {len(plan.entries)}" in p for p in verdict.problems)


@pytest.mark.parametrize("older", [False, True], ids=["resumed", "resumed-from-edges"])
def test_a_crashed_apply_resumes_exactly(memory: Memory, older: bool) -> None:
    """Resumed by this version, after a crash of this version or of one that wrote a DISPOSED
    edge for every record it erased (the request's ErasureBatch nodes turned into edges)."""
    _store(memory)
    plan = memory.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    calls: list[int] = []

    def crash_after_two(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise Crash

    with pytest.raises(Crash):
        apply_deletion(store_of(memory), plan, batch_size=20, progress=crash_after_two)
    if older:
        _run(memory, "MATCH (req:DeletionRequest {id: $id})-[:ERASED]->(b:ErasureBatch) "
                     "UNWIND b.ids AS rid MATCH (r:Record {id: rid}) "
                     "CREATE (req)-[:DISPOSED {disposition: 'DELETE', at: b.at, changed: true, "
                     "root: rid IN b.roots}]->(r) "
                     "WITH DISTINCT b DETACH DELETE b", id=plan.request_id)
        assert not _listed(memory, plan.request_id)
    half = memory.verify_deletion(plan.request_id).verification
    assert half.disposed == 40 and not half.passed

    report = apply_deletion(store_of(memory), plan, batch_size=20)
    assert report.verification.passed, report.verification.problems
    assert [e.id for e in report.entries] == sorted(e.id for e in plan.entries)
    assert all(e.changed for e in report.entries if e.disposition is Disposition.DELETE)
    listed = _listed(memory, plan.request_id)
    edges = _edges(memory, plan.request_id)
    assert len(listed) == len(set(listed)) and not set(listed) & set(edges)
    assert len(listed) + len(edges) == len(plan.entries)
