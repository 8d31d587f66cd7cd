"""Loading a scenario into a database to keep and explore.

``graphmem demo`` checks the scenario on an empty store and leaves nothing behind (its
queries log retrievals and its checks fire intentions, so a second run on kept data could not
pass them). :func:`load_into` only loads: the records through the write path in file order,
the operations, the intentions; and it is idempotent, so running it again is a no-op:

- a record already stored with the same fingerprint is left alone ("present"), and so is one
  a deletion request redacted or a recompute rewrote since; one an earlier deletion request
  erased stays a tombstone ("erased"); an id stored with other content is a
  :class:`RecordConflictError`, raised before anything is written;
- a retraction of an already retracted record, or an expiry the record already has, is
  skipped; an operation on an erased record is skipped;
- an intention already stored (in whatever status: firing does not re-arm it) or erased is
  left alone; one stored with a different definition is a :class:`RecordConflictError`,
  raised before anything is written.

A proposal the write policy DISCARDs is never stored, so a second run decides it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db.codec import coerce_record, record_fingerprint
from graphmem.db.ops.demo import DemoOps
from graphmem.demo.scenario import Scenario
from graphmem.errors import RecordConflictError
from graphmem.intentions import coerce_intention, intention_props

__all__ = ["LOADER", "LoadReport", "load_into"]

LOADER = "scenario-loader"
"""The ``by`` of every write decision and transition the loader makes."""


@dataclass
class LoadReport:
    """What :func:`load_into` did, one row per record, operation and intention.

    Each row: ``item`` (record, operation or intention), ``id``, ``outcome`` (``written``,
    ``present``, ``erased``, ``applied``, ``already applied``) and ``detail`` (the write
    disposition and reason, or why an item was left alone).
    """

    scenario: str
    rows: list[dict[str, str]] = field(default_factory=list)

    def add(self, item: str, rid: str, outcome: str, detail: str = "") -> None:
        """Append one row."""
        self.rows.append({"item": item, "id": rid, "outcome": outcome, "detail": detail})

    def counts(self) -> dict[str, int]:
        """How many rows had each outcome."""
        out: dict[str, int] = {}
        for row in self.rows:
            out[row["outcome"]] = out.get(row["outcome"], 0) + 1
        return out

    @property
    def changed(self) -> int:
        """How many items this run wrote or applied (0 on a re-run)."""
        return sum(1 for row in self.rows if row["outcome"] in ("written", "applied"))

    def as_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {"scenario": self.scenario, "rows": self.rows, "counts": self.counts(),
                "changed": self.changed}


def load_into(memory: Memory, scenario: Scenario) -> LoadReport:
    """Load a validated scenario into ``memory``'s database, idempotently (module docstring).

    Records go through the write path in file order with ``now`` = their ``created_at``;
    operations and intentions follow. Nothing is read from ``queries.jsonl``.

    Raises:
        RecordConflictError: a record or intention id is stored with different content
            (checked for every id before anything is written).
        GraphmemError: any other error of the write path (a reference to an erased record).
    """
    report = LoadReport(scenario=scenario.name)
    stored = store_of(memory).get_props([obj["id"] for obj in scenario.records])
    intentions = {obj["id"]: _intention_props(memory, obj["id"]) for obj in scenario.intentions}
    record_states = {obj["id"]: _state(stored.get(obj["id"]),
                                       record_fingerprint(coerce_record(obj)))
                     for obj in scenario.records}
    intention_states = {obj["id"]: _state(intentions[obj["id"]],
                                          intention_props(coerce_intention(obj))["fingerprint"])
                        for obj in scenario.intentions}
    conflicts = sorted(rid for states in (record_states, intention_states)
                       for rid, state in states.items() if state and state[0] == "conflict")
    if conflicts:
        raise RecordConflictError(
            f"the database holds these ids of scenario {scenario.name!r} with different "
            "content; nothing was loaded", record_ids=conflicts)
    for obj in scenario.records:
        state = record_states[obj["id"]]
        if state is not None:
            report.add("record", obj["id"], *state)
            continue
        decision = memory.write(obj, by=LOADER, now=datetime.fromisoformat(obj["created_at"]))
        report.add("record", obj["id"], "written",
                   f"{decision.disposition.value}: {decision.reason}")
    for op in scenario.operations:
        label = f"{op.op} {op.id}"
        props = store_of(memory).get_props([op.id]).get(op.id, {})
        if props.get("erased"):
            report.add("operation", label, "erased", "the record was erased")
        elif op.op == "retract" and memory.get(op.id).retracted:
            report.add("operation", label, "already applied", "already retracted")
        elif op.op == "expire" and memory.get(op.id).expires_at == op.at:
            report.add("operation", label, "already applied", f"already expires at {op.at}")
        else:
            if op.op == "retract":
                memory.retract(op.id, by=op.by, reason=op.reason, at=op.at)
            else:
                memory.expire(op.id, at=op.at, by=op.by, reason=op.reason)
            report.add("operation", label, "applied", f"by {op.by}: {op.reason}")
    for obj in scenario.intentions:
        state = intention_states[obj["id"]]
        if state is not None:
            report.add("intention", obj["id"], *state)
        elif memory.intend(obj):
            report.add("intention", obj["id"], "written", "pending")
        else:  # another client stored the identical intention in the meantime
            report.add("intention", obj["id"], "present", "identical, already stored")
    return report


def _state(props: dict[str, Any] | None, fingerprint: str) -> tuple[str, str] | None:
    """(outcome, detail) for an item already in the database; None when it is absent.

    Content a deletion request redacted, or a recompute replaced, differs from the file by
    design: it is left alone like an identical item. Other differences are a conflict.
    """
    if props is None:
        return None
    if props.get("erased"):
        return "erased", f"erased by deletion request {props.get('erased_by_request', '')}"
    if props.get("redacted_by_request"):
        return "present", f"redacted by deletion request {props['redacted_by_request']}"
    if props.get("recomputed_at"):
        return "present", f"recomputed by {props.get('recomputed_by', '')}"
    if props.get("fingerprint") != fingerprint:
        return "conflict", "stored with different content"
    status = f" ({props['status']})" if props.get("status") else ""
    return "present", f"identical, already stored{status}"


def _intention_props(memory: Memory, intention_id: str) -> dict[str, Any] | None:
    return DemoOps(store_of(memory)).intention(intention_id)
