"""Version 5 plans (entries held as columns, docs/spec/deletion.md#plan-format) list exactly
the entries the version 4 planner listed (tests/support/deletion_reference.py), field for
field and in order: on northwind (intentions, procedures, citations, terms) and on a layered
DAG of 10^4 descendants with surviving, recomputed, cited and quarantined records, terms,
a cycle, tombstones and parents an earlier request erased. A version 4 plan still applies."""

from __future__ import annotations

from typing import Any

import pytest

from bench.deletion_walk import layered, load
from graphmem.client import Memory, store_of
from graphmem.deletion import DeletionPlan, Disposition, apply_deletion
from tests.support.deletion_reference import reference_entries
from tests.support.northwind import lines
from tests.support.northwind import load as load_northwind

SUBJECT = {"tenant": "acme", "user": "u-17"}
ROOT = "s10000-root"
SECRET = "Zed Secret"


def _same_as_version_4(memory: Memory, plan: DeletionPlan) -> DeletionPlan:
    assert plan.version == 5
    assert plan.entries == reference_entries(store_of(memory), plan)
    again = DeletionPlan.from_json(plan.to_json())
    assert again == plan and again.entries == plan.entries
    return plan


@pytest.fixture()
def northwind(memory: Memory) -> Memory:
    load_northwind(memory)
    for obj in lines("intentions.jsonl"):
        memory.intend(obj)
    return memory


@pytest.mark.parametrize("redact", [(), ("Jane Roe",), ("Jane Roe", "+00 555 0100")])
def test_northwind_plans_list_what_version_4_listed(northwind: Memory,
                                                     redact: tuple[str, ...]) -> None:
    plan = _same_as_version_4(northwind, northwind.plan_deletion(
        subject=SUBJECT, redact_terms=redact, requested_by="p", reason="r"))
    assert plan.disposition_of("proc-dup-charge") is Disposition.QUARANTINE
    _same_as_version_4(northwind, northwind.plan_deletion(
        roots=["ep-u17-call", "pref-u17-email"], redact_terms=redact, requested_by="p",
        reason="r"))


def _record(rid: str, parents: tuple[str, ...] = (), *, kind: str = "semantic",
            content: str | None = None, evidence: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"id": rid, "kind": kind, "content": content or f"record {rid}",
            "created_at": "2026-01-01T00:00:00+00:00", "scope": {"tenant": "bench"},
            "derived_from": list(parents), "evidence_ids": list(evidence)}


def _layered_store(memory: Memory) -> None:
    """layered(10^4) with records hung on it that take every disposition and reason, a cycle,
    tombstones below the root and a parent an earlier request erased."""
    load(memory, layered(10_000))
    memory.put_many([
        _record("keeper"), _record("gone"),
        _record("x1", ("s10000-d2-0", "keeper")), _record("x2", ("x1",)),
        _record("proc1", ("s10000-d2-1", "keeper"), kind="procedural"),
        _record("proc2", kind="procedural", evidence=("s10000-d3-0",)),
        _record("cite1", evidence=("s10000-d3-1",)),
        _record("sec1", ("s10000-d2-2", "keeper"), content=f"note on {SECRET}"),
        _record("men1", content=f"{SECRET} again"),
        _record("cyc1", ("s10000-d2-3",)), _record("cyc2", ("cyc1",)),
        _record("cyc3", ("cyc2",)),
        _record("y", ("s10000-d2-4", "gone")),
    ])
    store = store_of(memory)
    store.driver.execute_query(  # a cycle, as a store written before cycles were refused
        "MATCH (a:Record {id: 'cyc1'}), (b:Record {id: 'cyc2'}) "
        "CREATE (a)-[:DERIVED_FROM]->(b) SET a.derived_from = a.derived_from + 'cyc2'",
        database_=store.database)
    memory.apply_deletion(memory.plan_deletion(roots=["gone", "s10000-d5-7"],
                                               requested_by="p", reason="first"))


def test_a_layered_store_plan_lists_what_version_4_listed(memory: Memory) -> None:
    _layered_store(memory)
    plan = _same_as_version_4(memory, memory.plan_deletion(
        roots=[ROOT], redact_terms=[SECRET], requested_by="p", reason="r"))
    entries = {e.id: e for e in plan.entries}
    assert entries["y"].erased_parents == ("gone",)
    assert "or already erased" in entries["y"].reason
    assert any(e.already_erased for e in plan.entries)
    assert entries["cyc1"].reason == "its lineage forms a cycle; recompute it by hand"
    assert {rid: entries[rid].disposition for rid in ("x1", "x2", "proc1", "proc2", "sec1",
                                                      "men1")} == {
        "x1": Disposition.RECOMPUTE, "x2": Disposition.RECOMPUTE,
        "proc1": Disposition.QUARANTINE, "proc2": Disposition.QUARANTINE,
        "sec1": Disposition.REDACT, "men1": Disposition.REDACT}
    assert plan.counts()["DELETE"] > 10_000 - 200
    _same_as_version_4(memory, memory.plan_deletion(
        roots=["s10000-d3-2", "s10000-d1-9"], requested_by="p", reason="r"))


def test_a_version_4_plan_loads_and_applies(memory: Memory) -> None:
    _layered_store(memory)
    plan = memory.plan_deletion(roots=["s10000-d8-3"], redact_terms=[SECRET],
                                requested_by="p", reason="r")
    fields = plan.model_dump(exclude={"columns", "digest", "version"})
    old = DeletionPlan(**fields, version=4, entries=plan.entries)
    saved = old.model_copy(update={"digest": old.compute_digest()}).to_json()
    assert '"entries"' in saved and '"columns"' not in saved
    loaded = DeletionPlan.from_json(saved)
    assert loaded.version == 4 and loaded.entries == plan.entries
    report = apply_deletion(store_of(memory), loaded, redact_terms=[SECRET], batch_size=7)
    assert report.verification.passed, report.verification.problems
    assert report.counts == plan.counts() and report.request.digest == loaded.digest
