"""The demo: the northwind scenario end to end, with its expectations checked.

The scenario is read and validated whole first (:func:`graphmem.demo.scenario.load_scenario`);
then :func:`run_demo` loads ``records.jsonl`` through the write path in file order, applies
``operations.jsonl``, stores ``intentions.jsonl``, runs every query of
``queries.jsonl`` through the read path and explains each absent record named in
``expect``. :func:`run_demo` returns a JSON-ready report; the CLI prints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.demo.scenario import Scenario, ScenarioQuery, load_scenario, packaged_northwind
from graphmem.errors import AuthorizationError, GraphmemError
from graphmem.models import Principal

__all__ = ["DemoReport", "default_scenario_dir", "run_demo"]

# The prospective-memory checks of the northwind README ("What must hold").
INTENTION_CHECKS: list[dict[str, Any]] = [
    {"name": "cue 014 in acme/checkout-api, sent twice",
     "event": {"migration_completed": "014"},
     "scope": {"tenant": "acme", "repo": "checkout-api"}, "tenants": ["acme"], "times": 2,
     "expect": ["intent-migr-014"]},
    {"name": "near-miss cue 0141", "event": {"migration_completed": "0141"},
     "scope": {"tenant": "acme", "repo": "checkout-api"}, "tenants": ["acme"], "times": 1,
     "expect": []},
    {"name": "same cue in tenant globex", "event": {"migration_completed": "014"},
     "scope": {"tenant": "globex", "repo": "checkout-api"}, "tenants": ["globex"], "times": 1,
     "expect": []},
]


def default_scenario_dir() -> Path:
    """The northwind scenario: ``$GRAPHMEM_NORTHWIND`` if set (an override, for trying an
    edited copy), else the copy shipped in the package.

    Raises:
        ValidationError: no override and the packaged copy is missing.
    """
    override = os.environ.get("GRAPHMEM_NORTHWIND")
    if override:
        return Path(override)
    return packaged_northwind()


@dataclass
class DemoReport:
    """Everything the demo did, with every failed expectation listed in ``failures``."""

    writes: list[dict[str, Any]] = field(default_factory=list)
    operations: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    intentions: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"writes": self.writes, "operations": self.operations, "queries": self.queries,
                "intentions": self.intentions, "failures": self.failures,
                "ok": not self.failures}


def run_demo(memory: Memory, scenario: Scenario | Path) -> DemoReport:
    """Run a scenario (or the folder holding one) on an empty store and check its
    expectations.

    Raises:
        ValidationError: given a folder, it lacks a file or a line is malformed (checked
            before anything is written).
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    report = DemoReport()
    _writes(memory, scenario, report)
    _operations(memory, scenario, report)
    for obj in scenario.intentions:
        memory.intend(obj)
    for query in scenario.queries:
        report.queries.append(_query(memory, query, report))
    if scenario.name == "northwind":
        _intention_checks(memory, report)
    return report


def _writes(memory: Memory, scenario: Scenario, report: DemoReport) -> None:
    for obj in scenario.records:
        decision = memory.write(obj, by="demo-loader",
                                now=datetime.fromisoformat(obj["created_at"]))
        report.writes.append({"id": decision.record_id,
                              "disposition": decision.disposition.value,
                              "reason": decision.reason})
        expected = "QUARANTINE" if obj.get("authority") == "untrusted" else "PERSIST"
        if scenario.name == "northwind" and decision.disposition.value != expected:
            report.failures.append(f"write {obj['id']}: {decision.disposition.value}, "
                                   f"expected {expected}")


def _operations(memory: Memory, scenario: Scenario, report: DemoReport) -> None:
    for op in scenario.operations:
        if op.op == "retract":
            memory.retract(op.id, by=op.by, reason=op.reason, at=op.at)
        else:
            memory.expire(op.id, at=op.at, by=op.by, reason=op.reason)
        report.operations.append({**op.model_dump(), "at": op.at.isoformat()})


def _query(memory: Memory, q: ScenarioQuery, report: DemoReport) -> dict[str, Any]:
    now = datetime.fromisoformat(q.now)
    scope = q.state.get("memory_scope", {})
    out: dict[str, Any] = {"id": q.id, "now": q.now, "scope": scope}
    fail = report.failures
    try:
        result = memory.retrieve(q.state, principal=q.principal, now=now)
    except AuthorizationError as exc:
        out["error"] = f"authorization: {exc}"
        if q.expect.error != "authorization":
            fail.append(f"{q.id}: unexpected authorization error")
        return out
    if q.expect.error:
        fail.append(f"{q.id}: expected a {q.expect.error} error, got a result")
    out["triggered"] = result.trace.triggered
    out["triggers"] = list(result.trace.triggers)
    out["notes"] = list(result.trace.notes)
    out["retrieval_id"] = result.trace.retrieval_id
    out["memories"] = [
        {"id": m.record.id, "kind": m.record.kind.value, "score": round(m.score, 4),
         "reason": m.reason, "source": m.record.provenance.get("source", ""),
         "created_at": m.record.created_at.isoformat(), "content": m.record.content}
        for m in result.memories
    ]
    out["conflicts"] = [
        {"key": c.key, "values": list(c.values), "record_ids": list(c.record_ids),
         "resolution": _resolution(memory, c)}
        for c in result.conflicts
    ]
    if q.expect.retrieved is False and result.memories:
        fail.append(f"{q.id}: expected no retrieval, got {result.ids}")
    for rid in q.expect.must_include:
        if rid not in result.ids:
            fail.append(f"{q.id}: {rid} not retrieved")
    out["absent"] = []
    for rid, want in q.expect.must_exclude.items():
        explanation = memory.explain(rid, principal=q.principal, scope=scope, now=now)
        out["absent"].append({"id": rid, "status": explanation.status.value,
                              "expected": want, "detail": explanation.detail,
                              "successor_ids": list(explanation.successor_ids)})
        if rid in result.ids:
            fail.append(f"{q.id}: {rid} retrieved but must be absent")
        if explanation.status.value != want:
            fail.append(f"{q.id}: {rid} is {explanation.status.value}, expected {want}")
    got = {c.key: sorted(c.values) for c in result.conflicts}
    want_conflicts = {k: sorted(v) for k, v in q.expect.conflicts.items()}
    if q.expect.retrieved is None and got != want_conflicts:
        fail.append(f"{q.id}: conflicts {got}, expected {want_conflicts}")
    return out


def _resolution(memory: Memory, conflict: Any) -> dict[str, Any]:
    resolution = memory.resolve(conflict)
    return {"value": resolution.value, "decided_by": resolution.decided_by,
            "winner_ids": list(resolution.winner_ids)}


def _intention_checks(memory: Memory, report: DemoReport) -> None:
    now = datetime.fromisoformat("2026-09-15T12:00:00+00:00")
    for check in INTENTION_CHECKS:
        principal = Principal(tenants=frozenset(check["tenants"]))
        fired: list[str] = []
        try:
            for _ in range(check["times"]):
                fired += [i.id for i in memory.process_event(
                    check["event"], principal=principal, scope=check["scope"],
                    by="demo-worker", now=now)]
        except GraphmemError as exc:
            fired = [f"error: {type(exc).__name__}"]
        ok = fired == check["expect"]
        report.intentions.append({"check": check["name"], "fired": fired,
                                  "expected": check["expect"], "ok": ok})
        if not ok:
            report.failures.append(f"intention check '{check['name']}': fired {fired}, "
                                   f"expected {check['expect']}")
