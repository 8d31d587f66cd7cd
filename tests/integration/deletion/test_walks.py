"""Deletion walks on real Neo4j (docs/spec/deletion.md; northwind README, 'Deletion walk')."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.db import catalogue as cypher
from graphmem.db.codec import STAMP_KEYS, TOMBSTONE_KEYS
from graphmem.deletion import DeletionPlan, Disposition, NodeType, apply_deletion
from graphmem.errors import (
    DeletionError,
    LineageCycleError,
    PolicyError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import Principal, Sensitivity, Status
from tests.support.database import wipe
from tests.support.northwind import lines, load
from tests.support.sizes import size

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
SUBJECT = {"tenant": "acme", "user": "u-17"}
ACME_CONFIDENTIAL = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.CONFIDENTIAL)
SECRETS = ("Jane Roe", "+00 555 0100")
# every scope an acme record of northwind lives in: together they reach every acme record
ACME_SCOPES = [
    {"tenant": "acme"},
    {"tenant": "acme", "user": "u-17"},
    {"tenant": "acme", "user": "u-18"},
    {"tenant": "acme", "repo": "checkout-api"},
    {"tenant": "acme", "repo": "billing-web"},
    {"tenant": "acme", "project": "support-desk"},
]
RECORD_SCOPES = {r["id"]: r["scope"] for r in lines("records.jsonl")}

# The northwind deletion table, without and with redact "Jane Roe".
TABLE = {
    "pref-u17-email": Disposition.DELETE,
    "pref-u17-phone": Disposition.DELETE,
    "ep-u17-call": Disposition.DELETE,
    "sum-u17-profile": Disposition.DELETE,
    "intent-u17-callback": Disposition.DELETE,
    "sum-duplicate-charges": Disposition.RECOMPUTE,
    "fact-retry-bug": Disposition.RECOMPUTE,
    "proc-dup-charge": Disposition.QUARANTINE,
}
TABLE_REDACT = {**TABLE, "sum-duplicate-charges": Disposition.REDACT}
ERASED = [rid for rid, d in TABLE.items() if d is Disposition.DELETE and rid.startswith(
    ("pref", "ep", "sum"))]


@pytest.fixture()
def northwind(memory: Memory) -> Memory:
    load(memory)
    for obj in lines("intentions.jsonl"):
        memory.intend(obj)
    return memory


def snapshot(memory: Memory) -> list[str]:
    """Every node, property and relationship, canonically: equal snapshots = no change."""
    rows = store_of(memory).read("graph_snapshot")
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


def retrievable_text(memory: Memory) -> str:
    """Everything any acme principal with confidential clearance can retrieve, as text."""
    seen = {}
    for scope in ACME_SCOPES:
        for record in memory.candidates(principal=ACME_CONFIDENTIAL, scope=scope, now=NOW):
            seen[record.id] = record.model_dump_json()
    return "\n".join(seen.values())


# -- the northwind table -------------------------------------------------------------------


@pytest.mark.parametrize("redact", [(), ("Jane Roe",)], ids=["plain", "redact"])
def test_northwind_plan_matches_the_deletion_table(northwind: Memory, redact: tuple[str, ...]
                                                   ) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, redact_terms=redact,
                                   requested_by="privacy-team", reason="erasure request u-17")
    got = {e.id: e.disposition for e in plan.entries}
    assert got == (TABLE_REDACT if redact else TABLE)
    assert plan.disposition_of("ep-u18-call") is None  # untouched
    entries = {e.id: e for e in plan.entries}
    assert entries["intent-u17-callback"].node is NodeType.INTENTION
    assert set(plan.roots) == {"pref-u17-email", "pref-u17-phone", "ep-u17-call",
                               "sum-u17-profile", "intent-u17-callback"}
    assert entries["sum-duplicate-charges"].parents == ("ep-u17-call", "ep-u18-call")
    assert entries["fact-retry-bug"].depth == 2
    # proc-dup-charge cites ep-u17-call as evidence: a dangling citation once applied
    cites = {c.record_id: c.cites for c in plan.dangling_citations}
    assert cites["proc-dup-charge"] == ("ep-u17-call",)
    assert plan.counts()["DELETE"] == 5
    # the plan holds ids and reasons, never content
    text = plan.to_json()
    assert "+00 555 0100" not in text
    assert "refund issued" not in text


@pytest.mark.parametrize("redact", [(), ("Jane Roe",)], ids=["plain", "redact"])
def test_northwind_apply_end_to_end(northwind: Memory, redact: tuple[str, ...]) -> None:
    before = retrievable_text(northwind)
    assert all(secret in before for secret in SECRETS)
    plan = northwind.plan_deletion(subject=SUBJECT, redact_terms=redact,
                                   requested_by="privacy-team", reason="erasure request u-17")
    report = northwind.apply_deletion(plan)

    # the audit report lists every id with its disposition, and the verification passed
    assert {e.id: e.disposition for e in report.entries} == {
        e.id: e.disposition for e in plan.entries}
    assert report.request.state == "applied"
    assert report.request.requested_by == "privacy-team"
    assert report.request.subject == SUBJECT
    assert report.counts == plan.counts()
    assert report.verification.passed, report.verification.problems
    assert report.verification.terms_checked == len(redact)
    assert {c.record_id for c in report.dangling_citations} == {
        "proc-dup-charge", "sum-duplicate-charges"}

    # no retrievable record holds the erased name or phone number
    after = retrievable_text(northwind)
    for secret in SECRETS:
        assert secret not in after
    # every erased id explains itself as ERASED; get() no longer returns it
    for rid in ERASED:
        explanation = northwind.explain(rid, principal=ACME_CONFIDENTIAL,
                                        scope=RECORD_SCOPES[rid], now=NOW)
        assert explanation.status is Status.ERASED, rid
        with pytest.raises(RecordNotFoundError):
            northwind.get(rid)
    with pytest.raises(RecordNotFoundError):
        northwind.intentions.get("intent-u17-callback")
    assert northwind.due({"shipment_delivered": "card-u17"}, principal=ACME_CONFIDENTIAL,
                         scope=SUBJECT, now=NOW) == []

    def status(rid: str) -> Status:
        return northwind.explain(rid, principal=ACME_CONFIDENTIAL, scope=RECORD_SCOPES[rid],
                                 now=NOW).status

    assert status("fact-retry-bug") is Status.PENDING_RECOMPUTE
    assert status("proc-dup-charge") is Status.QUARANTINED
    assert status("ep-u18-call") is Status.ACTIVE
    if redact:
        assert status("sum-duplicate-charges") is Status.ACTIVE
        content = northwind.get("sum-duplicate-charges").content
        assert "Jane Roe" not in content and "[REDACTED]" in content
    else:
        assert status("sum-duplicate-charges") is Status.PENDING_RECOMPUTE

    # applying again changes nothing, and the stored report reads the same
    frozen = snapshot(northwind)
    again = northwind.apply_deletion(plan)
    assert snapshot(northwind) == frozen
    assert again.entries == report.entries
    verified = northwind.verify_deletion(plan.request_id, redact_terms=redact)
    assert verified.verification.passed
    assert verified.entries == report.entries


def test_tombstones_are_content_free(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    props = store_of(northwind).get_props(ERASED)
    for rid in ERASED:
        p = props[rid]
        assert p["erased"] is True and p["erased_by_request"] == plan.request_id
        assert p["erasure_reason"] == "r" and p["erased_at"] is not None
        for gone in ("content", "asserted_value", "provenance_json", "metadata_json",
                     "fingerprint", "dedup_key", "source", "retracted_reason"):
            assert gone not in p, (rid, gone)
        # the tombstone's fields and the version stamps its erasure left, nothing else
        assert set(p) <= TOMBSTONE_KEYS | STAMP_KEYS, set(p) - TOMBSTONE_KEYS - STAMP_KEYS
        # docs/spec/status.md#superseded: the times stay, so an erased successor keeps superseding
        assert p["created_at"] is not None and p["admitted"] is True


def test_retrievals_are_listed_and_their_query_redacted(northwind: Memory) -> None:
    state = {"memory_scope": SUBJECT, "goal": "Contact customer u-17",
             "subtask": "Call Jane Roe back", "last_observation": "Jane Roe asks for a callback",
             "entities": ["u-17"], "returning_entity": True}
    result = northwind.retrieve(state, principal=ACME_CONFIDENTIAL, now=NOW)
    assert "pref-u17-phone" in result.ids
    rid = result.trace.retrieval_id

    plan = northwind.plan_deletion(subject=SUBJECT, redact_terms=["jane roe"],
                                   requested_by="p", reason="r")
    hits = {h.retrieval_id: h for h in plan.retrievals}
    assert "pref-u17-phone" in hits[rid].selected_ids
    assert hits[rid].query_holds_terms
    report = northwind.apply_deletion(plan)
    assert report.verification.passed
    query = northwind.get_retrieval(rid)["retrieval"]["query"]
    assert "Jane Roe" not in query and "[REDACTED]" in query


def test_mentions_outside_the_lineage_are_redacted(northwind: Memory) -> None:
    northwind.put({"id": "note-jr", "kind": "semantic", "content": "JANE ROE asked about VAT.",
                   "created_at": "2026-06-01T00:00:00+00:00", "scope": {"tenant": "acme"},
                   "metadata": {"caller": "Jane Roe"}})
    plan = northwind.plan_deletion(subject=SUBJECT, redact_terms=["Jane Roe"],
                                   requested_by="p", reason="r")
    entry = next(e for e in plan.entries if e.id == "note-jr")
    assert (entry.disposition, entry.via) == (Disposition.REDACT, "mention")
    northwind.apply_deletion(plan)
    note = northwind.get("note-jr")
    assert note.content == "[REDACTED] asked about VAT."
    assert note.metadata == {"caller": "[REDACTED]"}


def test_recompute_returns_a_record_to_service_with_fresh_lineage(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    record = northwind.recompute(
        "sum-duplicate-charges", "Summary: a May duplicate charge came from the retry bug.",
        by="analyst", reason="recomputed without u-17")
    assert record.derived_from == ("ep-u18-call",)
    assert record.evidence_ids == ("ep-u18-call",)
    stored = northwind.get("sum-duplicate-charges")
    assert stored == record
    status = northwind.explain("sum-duplicate-charges", principal=ACME_CONFIDENTIAL,
                               scope={"tenant": "acme"}, now=NOW).status
    assert status is Status.ACTIVE
    assert set(northwind.lineage("sum-duplicate-charges", "up").nodes) == {
        "sum-duplicate-charges", "ep-u18-call"}
    assert "recompute" in [h["kind"] for h in northwind.history("sum-duplicate-charges")]
    # the verification still holds: a recomputed record no longer counts as pending
    assert northwind.verify_deletion(plan.request_id).verification.passed

    with pytest.raises(PolicyError):
        northwind.recompute("sum-duplicate-charges", "again", by="a", reason="r")
    with pytest.raises(RecordNotFoundError):
        northwind.recompute("ep-u17-call", "x", by="a", reason="r")
    with pytest.raises(LineageCycleError):
        northwind.recompute("fact-retry-bug", "x", by="a", reason="r",
                            derived_from=["proc-dup-charge"])
    assert store_of(northwind).state("fact-retry-bug").pending_recompute


# -- plans as reviewable artefacts ----------------------------------------------------------


def test_plan_json_round_trip_and_typed_errors(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, redact_terms=["Jane Roe"],
                                   requested_by="p", reason="r")
    assert DeletionPlan.from_json(plan.to_json()) == plan
    assert DeletionPlan.from_json(plan.to_json(indent=None)) == plan

    doc = json.loads(plan.to_json())
    doc["entries"] = [e for e in doc["entries"] if e["id"] != "proc-dup-charge"]
    with pytest.raises(DeletionError, match="digest"):
        DeletionPlan.from_json(json.dumps(doc))
    with pytest.raises(DeletionError, match="malformed"):
        DeletionPlan.from_json("{not json")
    doc = json.loads(plan.to_json())
    doc["entries"][0]["disposition"] = "SHRED"
    with pytest.raises(DeletionError, match="malformed"):
        DeletionPlan.from_json(json.dumps(doc))
    doc = json.loads(plan.to_json())
    for e in doc["entries"]:
        if e["id"] == "sum-duplicate-charges":
            e["disposition"] = "DELETE"
    with pytest.raises(DeletionError, match="parent survives"):
        DeletionPlan.from_json(json.dumps(doc))

    with pytest.raises(DeletionError) as err:
        northwind.plan_deletion(roots=["ep-u17-call", "nope"], requested_by="p", reason="r")
    assert err.value.record_ids == ("nope",)
    with pytest.raises(ValidationError):
        northwind.plan_deletion(roots=["ep-u17-call"], subject=SUBJECT, requested_by="p",
                                reason="r")
    with pytest.raises(ValidationError):
        northwind.plan_deletion(subject={"user": "u-17"}, requested_by="p", reason="r")
    with pytest.raises(ValidationError):
        northwind.plan_deletion(subject=SUBJECT, redact_terms=[" "], requested_by="p",
                                reason="r")


def test_explicit_roots(northwind: Memory) -> None:
    plan = northwind.plan_deletion(roots=["ep-u18-call"], requested_by="p", reason="r")
    assert {e.id: e.disposition for e in plan.entries} == {
        "ep-u18-call": Disposition.DELETE,
        "sum-duplicate-charges": Disposition.RECOMPUTE,
        "fact-retry-bug": Disposition.RECOMPUTE,
        "proc-dup-charge": Disposition.QUARANTINE,
    }
    assert plan.subject is None and plan.tenants == ("acme",)


def test_stale_plans_are_refused(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.put({"id": "sum-new", "kind": "semantic", "content": "derived later",
                   "created_at": "2026-09-01T00:00:00+00:00", "scope": {"tenant": "acme"},
                   "derived_from": ["ep-u17-call"]})
    with pytest.raises(DeletionError, match="stale") as err:
        northwind.apply_deletion(plan)
    assert err.value.record_ids == ("sum-new",)

    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.put({"id": "pref-u17-new", "kind": "semantic", "content": "a new preference",
                   "created_at": "2026-09-01T00:00:00+00:00", "scope": SUBJECT})
    with pytest.raises(DeletionError, match="roots changed"):
        northwind.apply_deletion(plan)
    assert northwind.get("ep-u17-call").content  # nothing was applied


def test_a_request_id_names_one_plan(northwind: Memory) -> None:
    plan = northwind.plan_deletion(roots=["ep-u18-call"], requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    other = northwind.plan_deletion(roots=["pref-u17-phone"], requested_by="p", reason="r")
    forged = other.model_copy(update={"request_id": plan.request_id})
    forged = forged.model_copy(update={"digest": forged.compute_digest()})
    with pytest.raises(DeletionError, match="different plan"):
        northwind.apply_deletion(forged)
    with pytest.raises(DeletionError, match="digest"):
        northwind.apply_deletion(other.model_copy(update={"reason": "edited"}))
    with pytest.raises(DeletionError, match="no deletion request"):
        northwind.verify_deletion("del-unknown")


# -- the walk -------------------------------------------------------------------------------


def _operators(plan: Any) -> Iterator[str]:
    yield plan["operatorType"]
    for child in plan.get("children", []):
        yield from _operators(child)


def test_walk_is_planned_as_a_pruning_bfs_anchored_on_the_constraint(memory: Memory) -> None:
    _, summary, _ = store_of(memory).driver.execute_query(
        "EXPLAIN " + cypher.statement("deletion/walk"),
        cypher.arguments("deletion/walk", {"roots": ["a"], "pattern": None}),
        database_=store_of(memory).database)
    ops = list(_operators(summary.plan))
    assert any(op.startswith("VarLengthExpand(Pruning,BFS") for op in ops), ops
    assert any(op.startswith("NodeUniqueIndexSeek") for op in ops), ops
    assert not any(op.startswith("VarLengthExpand(All)") for op in ops), ops


def _record(rid: str, *, parents: tuple[str, ...] = (), kind: str = "semantic",
            content: str | None = None, scope: dict[str, str] | None = None,
            evidence: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"id": rid, "kind": kind, "content": content or f"record {rid}",
            "created_at": "2026-01-01T00:00:00+00:00", "scope": scope or {"tenant": "t"},
            "derived_from": list(parents), "evidence_ids": list(evidence)}


def lattice(diamonds: int, *, extra_parent_at: int | None = None) -> list[dict[str, Any]]:
    """t0 -> (l_i, r_i) -> t_{i+1}: ``diamonds`` chained diamonds, 2**diamonds paths."""
    records = [_record("t0")]
    if extra_parent_at is not None:
        records.append(_record("outside"))
    for i in range(diamonds):
        records += [_record(f"l{i}", parents=(f"t{i}",)), _record(f"r{i}", parents=(f"t{i}",))]
        parents: tuple[str, ...] = (f"l{i}", f"r{i}")
        if extra_parent_at == i + 1:
            parents += ("outside",)
        records.append(_record(f"t{i + 1}", parents=parents))
    return records


def test_sixty_chained_diamonds(memory: Memory) -> None:
    memory.put_many(lattice(60))
    plan = memory.plan_deletion(roots=["t0"], requested_by="p", reason="r")
    expected = {"t0"} | {f"{p}{i}" for i in range(60) for p in "lr"} | {
        f"t{i}" for i in range(1, 61)}
    assert {e.id for e in plan.entries} == expected
    assert {e.disposition for e in plan.entries} == {Disposition.DELETE}
    depth = {e.id: e.depth for e in plan.entries}
    assert depth["t60"] == 120 and depth["l59"] == 119


def test_a_surviving_parent_inside_the_lattice(memory: Memory) -> None:
    memory.put_many(lattice(60, extra_parent_at=30))
    plan = memory.plan_deletion(roots=["t0"], requested_by="p", reason="r")
    got = {e.id: e.disposition for e in plan.entries}
    assert "outside" not in got
    assert got["t29"] is got["l29"] is Disposition.DELETE
    below = [rid for rid in got if rid[0] in "tlr" and int(rid[1:]) >= 30 and rid != "t30"]
    assert got["t30"] is Disposition.RECOMPUTE
    assert {got[rid] for rid in below} == {Disposition.RECOMPUTE}


def test_parents_are_the_stored_lineage_edges(memory: Memory) -> None:
    """The walk reads a descendant's parents from its ``derived_from`` (a tombstone's from its
    edges): they are its DERIVED_FROM edges' ends, after writes, an erasure and a recompute,
    and an id there that names no stored record any more is no parent."""
    memory.put_many([_record("a"), _record("b"), _record("lost"), _record("s"),
                     _record("c", parents=("a", "b")), _record("d", parents=("c", "s")),
                     _record("e", parents=("d", "lost")), _record("f", parents=("b",)),
                     _record("g", parents=("b", "s")), _record("h", parents=("c", "lost"))])
    memory.apply_deletion(memory.plan_deletion(roots=["b"], requested_by="p", reason="r"))
    memory.recompute("c", "c again", by="p", reason="r", derived_from=["a"])
    store = store_of(memory)

    def cypher_rows(statement: str) -> list[dict[str, Any]]:
        records, _, _ = store.driver.execute_query(statement, database_=store.database)
        return [record.data() for record in records]

    cypher_rows("MATCH (r:Record {id: 'lost'}) DETACH DELETE r")  # a record the store lost
    edges = {row["id"]: sorted(row["parents"]) for row in cypher_rows(
        "MATCH (d:Record) RETURN d.id AS id, [(d)-[:DERIVED_FROM]->(p:Record) | p.id] AS parents")}
    plan = memory.plan_deletion(roots=["a"], requested_by="p", reason="r")
    lineage = {e.id: e for e in plan.entries if e.via == "lineage"}
    assert set(lineage) == {"c", "d", "e", "h"}
    assert {rid: list(e.parents) for rid, e in lineage.items()} == {
        rid: edges[rid] for rid in lineage}
    assert lineage["e"].parents == ("d",) and lineage["h"].parents == ("c",)  # not "lost"
    assert lineage["h"].disposition is Disposition.DELETE  # its one parent goes
    assert lineage["d"].disposition is lineage["e"].disposition is Disposition.RECOMPUTE
    from_s = memory.plan_deletion(roots=["s"], requested_by="p", reason="r")
    entries = {e.id: e for e in from_s.entries if e.via == "lineage"}
    assert entries["g"].parents == ("b", "s") and entries["g"].erased_parents == ("b",)
    assert entries["g"].disposition is Disposition.DELETE  # b was erased, s goes now
    assert {rid: list(e.parents) for rid, e in entries.items()} == {
        rid: edges[rid] for rid in entries}


# -- crash between batches ------------------------------------------------------------------


class Crash(Exception):
    pass


def test_crash_between_batches_then_reapply_completes(memory: Memory) -> None:
    records = [_record("root", scope={"tenant": "t", "user": "x"})]
    for i in range(60):
        records.append(_record(f"a{i}", parents=("root",)))
        records.append(_record(f"b{i}", parents=(f"a{i}", "keep" if i % 3 == 0 else "root")))
    records.append(_record("keep"))
    memory.put_many(records)
    plan = memory.plan_deletion(subject={"tenant": "t", "user": "x"}, requested_by="p",
                                reason="r")
    assert len(plan.entries) == 121
    calls: list[int] = []

    def crash_after_two(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise Crash

    with pytest.raises(Crash):
        apply_deletion(store_of(memory), plan, batch_size=25, progress=crash_after_two)
    assert calls == [25, 50]
    half = memory.verify_deletion(plan.request_id)
    assert not half.verification.passed
    assert half.request.state == "applying"
    assert half.verification.disposed == 50
    first_batch = {e.id for e in plan.entries[:50] if e.disposition is Disposition.DELETE}
    erased_at = {rid: p["erased_at"] for rid, p in store_of(memory).get_props(
        sorted(first_batch)).items()}
    assert len(erased_at) == len(first_batch) and all(erased_at.values())
    assert memory.get(plan.entries[-1].id).content  # the later batches were not applied

    progress: list[tuple[int, int]] = []
    report = apply_deletion(store_of(memory), plan, batch_size=25,
                            progress=lambda d, t: progress.append((d, t)))
    assert progress[-1] == (121, 121)
    assert report.verification.passed, report.verification.problems
    assert report.request.state == "applied"
    # nothing lost: every planned id disposed of exactly once, with its planned disposition
    assert [e.id for e in report.entries] == sorted(e.id for e in plan.entries)
    assert {e.id: e.disposition for e in report.entries} == {
        e.id: e.disposition for e in plan.entries}
    # nothing erased twice: the first batch's tombstones kept their erasure time
    again = store_of(memory).get_props(sorted(first_batch))
    assert {rid: p["erased_at"] for rid, p in again.items()} == erased_at
    frozen = snapshot(memory)
    apply_deletion(store_of(memory), plan, batch_size=25)
    assert snapshot(memory) == frozen


# -- property: plans equal an independent plain-Python walk ---------------------------------


@st.composite
def dags(draw: Callable[..., Any]) -> dict[str, Any]:
    n = draw(st.integers(min_value=1, max_value=14))
    nodes = []
    for i in range(n):
        earlier = [f"n{j}" for j in range(i)]
        parents = draw(st.lists(st.sampled_from(earlier), max_size=3, unique=True)
                       if earlier else st.just([]))
        evidence = draw(st.lists(st.sampled_from(earlier), max_size=2, unique=True)
                        if earlier else st.just([]))
        nodes.append({
            "id": f"n{i}", "parents": parents, "evidence": evidence,
            "kind": draw(st.sampled_from(["semantic", "episodic", "procedural"])),
            "user": draw(st.sampled_from(["u1", "u2", None])),
            "secret": draw(st.booleans()),
        })
    by_subject = draw(st.booleans())
    roots = draw(st.lists(st.sampled_from([x["id"] for x in nodes]), min_size=1, max_size=3,
                          unique=True))
    terms = draw(st.sampled_from([(), ("Secret",)]))
    return {"nodes": nodes, "by_subject": by_subject, "roots": roots, "terms": terms}


def oracle(case: dict[str, Any]) -> tuple[dict[str, Disposition], set[tuple[str, str]]]:
    """The docs/spec/deletion.md dispositions by definition, by fixpoint iteration (no ordering
    tricks)."""
    nodes = {x["id"]: x for x in case["nodes"]}
    if case["by_subject"]:
        roots = {i for i, x in nodes.items() if x["user"] == "u1"}
    else:
        roots = set(case["roots"])
    children: dict[str, set[str]] = {i: set() for i in nodes}
    for i, x in nodes.items():
        for p in x["parents"]:
            children[p].add(i)
    descendants: set[str] = set()

    def visit(i: str) -> None:
        for c in children[i]:
            if c not in descendants:
                descendants.add(c)
                visit(c)

    for r in roots:
        visit(r)
    deleted = set(roots)
    changed = True
    while changed:
        changed = False
        for d in descendants - deleted:
            if all(p in deleted for p in nodes[d]["parents"]):
                deleted.add(d)
                changed = True
    out = {r: Disposition.DELETE for r in deleted}
    secret = bool(case["terms"])
    for d in descendants - deleted:
        x = nodes[d]
        out[d] = (Disposition.QUARANTINE if x["kind"] == "procedural" else
                  Disposition.REDACT if secret and x["secret"] else Disposition.RECOMPUTE)
    cites = set()
    for i, x in nodes.items():
        for ev in x["evidence"]:
            if ev in deleted and i not in deleted:
                cites.add((i, ev))
                if i not in out and x["kind"] == "procedural":
                    out[i] = Disposition.QUARANTINE
    for i, x in nodes.items():
        if secret and x["secret"] and i not in out:
            out[i] = Disposition.REDACT
    return out, cites


@settings(max_examples=size(20, 40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=dags())
def test_plans_match_an_independent_walk_on_random_dags(memory: Memory, case: dict[str, Any]
                                                        ) -> None:
    wipe(memory)
    memory.put_many([
        _record(x["id"], parents=tuple(x["parents"]), evidence=tuple(x["evidence"]),
                kind=x["kind"],
                content=f"note {x['id']}" + (" with a secret" if x["secret"] else ""),
                scope={"tenant": "t", **({"user": x["user"]} if x["user"] else {})})
        for x in case["nodes"]
    ])
    expected, cites = oracle(case)
    if case["by_subject"]:
        plan = memory.plan_deletion(subject={"tenant": "t", "user": "u1"},
                                    redact_terms=case["terms"], requested_by="p", reason="r")
    else:
        plan = memory.plan_deletion(roots=case["roots"], redact_terms=case["terms"],
                                    requested_by="p", reason="r")
    assert {e.id: e.disposition for e in plan.entries} == expected
    assert {(c.record_id, x) for c in plan.dangling_citations for x in c.cites} == cites
    report = memory.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems


def test_later_requests_treat_earlier_tombstones_as_deleted(northwind: Memory) -> None:
    first = northwind.plan_deletion(roots=["sum-duplicate-charges"], requested_by="p",
                                    reason="wrong summary")
    assert {e.id: e.disposition for e in first.entries} == {
        "sum-duplicate-charges": Disposition.DELETE, "fact-retry-bug": Disposition.DELETE,
        "proc-dup-charge": Disposition.DELETE}
    northwind.apply_deletion(first)

    second = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="u-17")
    entries = {e.id: e for e in second.entries}
    for rid in ("sum-duplicate-charges", "fact-retry-bug", "proc-dup-charge"):
        assert entries[rid].disposition is Disposition.DELETE and entries[rid].already_erased
    report = northwind.apply_deletion(second)
    assert report.verification.passed
    changed = {e.id: e.changed for e in report.entries}
    assert changed["sum-duplicate-charges"] is False and changed["ep-u17-call"] is True
    tomb = store_of(northwind).get_props(["sum-duplicate-charges"])["sum-duplicate-charges"]
    assert tomb["erased_by_request"] == first.request_id  # the first tombstone stays

    third = northwind.plan_deletion(roots=["ep-u18-call"], requested_by="p", reason="u-18")
    assert {e.id for e in third.entries if not e.already_erased} == {"ep-u18-call"}
