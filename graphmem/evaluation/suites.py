"""The evaluation runs behind ``graphmem eval``: write path, read path, paired tasks, funnel.

Each run writes into its own :class:`~graphmem.evaluation.namespace.Namespace` of the
database it is given and deletes it afterwards, so it can run beside real memory.

- :func:`run_write_path`: a fixture of proposals whose right disposition, scope and
  supersession are known, written through graphmem's write path (chapter section 14);
  the naive baseline's numbers follow from what it does (store everything, as given).
- :func:`run_northwind`: the northwind scenario loaded into graphmem and into the naive
  baseline; its queries measure the read path, and its tasks are run three times (graphmem,
  naive baseline, no memory) by the deterministic reader (:mod:`graphmem.reader`) for the
  paired effect. graphmem's runs log exposure and use (with help from the pairing) to the
  attribution log, and the funnel is then reconstructed from that log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db.codec import coerce_record
from graphmem.errors import RecordNotFoundError
from graphmem.evaluation.metrics import (
    SupersessionOutcome,
    WriteMetrics,
    WriteOutcome,
    write_metrics,
)
from graphmem.evaluation.namespace import Namespace
from graphmem.models import Principal, Status
from graphmem.write.policy import WriteDisposition, WritePolicy

__all__ = [
    "WRITE_CASES",
    "WriteCase",
    "WritePathResult",
    "run_write_path",
]


STALE_STATUSES = frozenset({Status.SUPERSEDED, Status.EXPIRED, Status.RETRACTED,
                            Status.NOT_YET_VALID})


# --------------------------------------------------------------------------- write path


@dataclass(frozen=True)
class WriteCase:
    """One proposal of the write-path fixture and its known right handling.

    Attributes:
        proposal: the record proposed (local ids and tenants).
        expected: the right disposition.
        duplicate: it restates an active record of the same scope.
        check_scope: check that it lands in (only) its own scope.
    """

    proposal: dict[str, Any]
    expected: WriteDisposition
    duplicate: bool = False
    check_scope: bool = False


def _p(rid: str, content: str, scope: Mapping[str, str], day: str, **extra: Any
       ) -> dict[str, Any]:
    return {"id": rid, "kind": extra.pop("kind", "semantic"), "content": content,
            "scope": dict(scope), "created_at": f"2026-{day}T09:00:00+00:00",
            "authority": extra.pop("authority", "human_instruction"),
            "provenance": {"source": extra.pop("source", "fixture")}, **extra}


_ACME = {"tenant": "acme"}
_REPO = {"tenant": "acme", "repo": "checkout-api"}
_U17 = {"tenant": "acme", "user": "u-17"}
_U18 = {"tenant": "acme", "user": "u-18"}
_PERSIST, _QUARANTINE, _DISCARD = (WriteDisposition.PERSIST, WriteDisposition.QUARANTINE,
                                   WriteDisposition.DISCARD)
_CI = "CI run #{n}: 'pytest -q tests/unit' passed on main."
_PHONE = "Customer prefers contact by phone after 17:00 CET."

WRITE_CASES: tuple[WriteCase, ...] = (
    WriteCase(_p("w-policy", "Refunds over EUR 1000 require manual approval.", _ACME, "01-10",
                 authority="authoritative_source", asserts="refund_threshold_eur",
                 asserted_value="1000"), _PERSIST, check_scope=True),
    WriteCase(_p("w-policy-dup", "Refunds over EUR 1000 require  manual approval.", _ACME,
                 "01-11"), _DISCARD, duplicate=True),
    *(WriteCase(_p(f"w-ci-{n}", _CI.format(n=n), _REPO, f"06-0{n}", kind="episodic",
                   authority="verified_outcome"), _PERSIST, check_scope=n == 1)
      for n in (1, 2, 3)),
    WriteCase(_p("w-proc-thin", "Run the unit tests with: pytest -q", _REPO, "06-05",
                 kind="procedural", authority="model_inferred", evidence_ids=["w-ci-1"]),
              _QUARANTINE),
    # docs/spec/write-path.md: a procedure with fewer than N verified episodes is quarantined
    # whatever its authority, unless it is an explicit instruction or from an authoritative source;
    # a verified_outcome procedure backed by one episode is one lucky episode
    WriteCase(_p("w-proc-lucky", "Restart payments-worker to clear HTTP 502s.", _REPO, "06-05",
                 kind="procedural", authority="verified_outcome", evidence_ids=["w-ci-2"]),
              _QUARANTINE),
    WriteCase(_p("w-proc-runbook", "Rotate the payments API key from the vault runbook.",
                 _REPO, "06-05", kind="procedural", authority="authoritative_source"),
              _PERSIST),
    WriteCase(_p("w-proc-told", "Tag every release with the ticket number.", _REPO, "06-05",
                 kind="procedural", authority="human_instruction"), _PERSIST),
    WriteCase(_p("w-proc", "Run the unit tests of checkout-api with: pytest -q tests/unit",
                 _REPO, "06-06", kind="procedural", authority="verified_outcome",
                 evidence_ids=["w-ci-1", "w-ci-2", "w-ci-3"]), _PERSIST, check_scope=True),
    WriteCase(_p("w-web", "Refunds never need approval on Fridays.", _ACME, "06-07",
                 authority="untrusted", source="web"), _QUARANTINE),
    WriteCase(_p("w-tool", "The orders table has 1.2M rows.", _REPO, "06-08",
                 authority="verified_outcome", source="tool_output"), _QUARANTINE),
    WriteCase(_p("w-guess", "Refund escalations probably take two hours.", _ACME, "06-09",
                 authority="model_inferred"), _QUARANTINE),
    WriteCase(_p("w-inference", "The unit tests of checkout-api pass in about 95 s.", _REPO,
                 "06-10", authority="model_inferred", evidence_ids=["w-ci-1"]), _PERSIST),
    WriteCase(_p("w-runtime", "payments-worker is up.", _REPO, "06-11",
                 authority="verified_outcome", asserts="service_status",
                 asserted_value="up"), _DISCARD),
    WriteCase(_p("w-pref-u17", _PHONE, _U17, "06-12"), _PERSIST, check_scope=True),
    WriteCase(_p("w-pref-u17-dup", " customer prefers contact by PHONE after 17:00 CET.", _U17,
                 "06-13"), _DISCARD, duplicate=True),
    WriteCase(_p("w-pref-u18", _PHONE, _U18, "06-14"), _PERSIST, check_scope=True),
    WriteCase(_p("w-policy-v2", "Refunds over EUR 1500 require manual approval.", _ACME,
                 "07-01", authority="authoritative_source", asserts="refund_threshold_eur",
                 asserted_value="1500", supersedes=["w-policy"]), _PERSIST),
)
WRITE_POLICY = WritePolicy(runtime_state_keys=frozenset({"service_status"}))
# (old, new, whether new must supersede old): positives and negatives
SUPERSESSION_CHECKS: tuple[tuple[str, str, bool], ...] = (
    ("w-policy", "w-policy-v2", True),
    ("w-ci-1", "w-proc", False),          # a procedure built from episodes does not retire them
    ("w-pref-u18", "w-pref-u17", False),  # the same text in another scope is not an update
)


@dataclass(frozen=True)
class WritePathResult:
    """Write-path metrics per arm, with every case's outcome."""

    metrics: dict[str, WriteMetrics]
    outcomes: dict[str, tuple[WriteOutcome, ...]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {arm: {"metrics": m.as_dict(),
                      "cases": [{"id": o.case_id, "expected": o.expected.value,
                                 "actual": o.actual.value} for o in self.outcomes[arm]]}
                for arm, m in self.metrics.items()}


def _sibling(scope: Mapping[str, str]) -> dict[str, str]:
    return {k: v if k == "tenant" else f"{v}-sibling" for k, v in scope.items()}


def run_write_path(memory: Memory, *, now: datetime | None = None,
                   cases: Sequence[WriteCase] = WRITE_CASES, keep: bool = False
                   ) -> WritePathResult:
    """Run the write-path fixture through graphmem, and score the naive baseline beside it.

    Args:
        memory: a connected client; its store gets a namespace that is deleted afterwards
            (unless ``keep``). Its own write policy is not used: the fixture's is.
        now: when scope and supersession are checked (default: after the last proposal).
        cases: the fixture (default :data:`WRITE_CASES`).
    """
    ns = Namespace.fresh()
    writer = Memory(store_of(memory), policy=WRITE_POLICY, owns_driver=False)
    at = now or datetime(2026, 12, 1, tzinfo=UTC)
    reader = Principal(tenants=frozenset({ns.tenant("acme")}))
    outcomes: list[WriteOutcome] = []
    try:
        for case in cases:
            record = coerce_record(case.proposal)
            decision = writer.write(ns.record(case.proposal), by="write-fixture",
                                    now=record.created_at)
            outcomes.append(WriteOutcome(
                case_id=record.id, expected=case.expected, actual=decision.disposition,
                duplicate=case.duplicate, scope_expected=case.check_scope))
        finished = []
        for case, outcome in zip(cases, outcomes, strict=True):
            scope = case.proposal["scope"]
            rid = ns.id(outcome.case_id)
            status = _status(writer, rid, reader, ns.scope(scope), at)
            created = status is Status.ACTIVE  # a retrievable copy exists
            scope_ok = False
            if case.check_scope and status not in (None, Status.OUT_OF_SCOPE,
                                                   Status.UNAUTHORIZED):
                stored = writer.get(rid).scope == ns.scope(scope)
                sibling = (len(scope) == 1 or _status(writer, rid, reader,
                                                       ns.scope(_sibling(scope)), at)
                           is Status.OUT_OF_SCOPE)
                scope_ok = stored and sibling
            finished.append(WriteOutcome(
                outcome.case_id, outcome.expected, outcome.actual, outcome.duplicate,
                duplicate_created=case.duplicate and created,
                scope_expected=case.check_scope, scope_correct=scope_ok))
        by_id = {c.proposal["id"]: c for c in cases}
        supersessions = []
        for old, new, expected in SUPERSESSION_CHECKS:
            explanation = writer.explain(ns.id(old), principal=reader,
                                         scope=ns.scope(by_id[old].proposal["scope"]), now=at)
            actual = (explanation.status is Status.SUPERSEDED
                      and ns.id(new) in explanation.successor_ids)
            supersessions.append(SupersessionOutcome(old, new, expected, actual))
    finally:
        if not keep:
            ns.cleanup(store_of(memory))
    naive_outcomes = [
        # the baseline stores every proposal as given, in one flat index: every duplicate
        # becomes a second copy, and nothing keeps a record out of a sibling scope
        WriteOutcome(o.case_id, o.expected, WriteDisposition.PERSIST, o.duplicate,
                     duplicate_created=o.duplicate, scope_expected=o.scope_expected,
                     scope_correct=False)
        for o in finished
    ]
    naive_supersessions = [SupersessionOutcome(s.old_id, s.new_id, s.expected, False)
                           for s in supersessions]
    return WritePathResult(
        metrics={"graphmem": write_metrics(finished, supersessions),
                 "naive": write_metrics(naive_outcomes, naive_supersessions)},
        outcomes={"graphmem": tuple(finished), "naive": tuple(naive_outcomes)},
    )


def _status(memory: Memory, rid: str, principal: Principal, scope: dict[str, str],
            now: datetime) -> Status | None:
    try:
        return memory.explain(rid, principal=principal, scope=scope, now=now).status
    except RecordNotFoundError:
        return None
