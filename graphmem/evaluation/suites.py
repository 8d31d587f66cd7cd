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

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.db.store import coerce_record
from graphmem.demo.scenario import iter_jsonl
from graphmem.errors import AuthorizationError, EvaluationError, RecordNotFoundError
from graphmem.evaluation.baseline import NaiveVectorDump
from graphmem.evaluation.funnel import (
    FunnelReport,
    MemoryEffect,
    ReadMetrics,
    ReadOutcome,
    SupersessionOutcome,
    TrialTarget,
    WriteMetrics,
    WriteOutcome,
    funnel,
    memory_effect,
    read_metrics,
    trials_from_log,
    write_metrics,
)
from graphmem.evaluation.namespace import Namespace
from graphmem.evaluation.reader import ReaderAnswer, read_answer
from graphmem.models import MemoryRecord, Principal, Status
from graphmem.read.steps import DecisionState
from graphmem.write.policy import WriteDisposition, WritePolicy

__all__ = [
    "NORTHWIND_TASKS",
    "WRITE_CASES",
    "NorthwindResult",
    "NorthwindTask",
    "WriteCase",
    "WritePathResult",
    "northwind_dir",
    "run_northwind",
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
    # SPEC 6: any procedure with fewer than N verified episodes is quarantined; the policy
    # exempts authority >= human_instruction, which lets this one-episode procedure through
    WriteCase(_p("w-proc-lucky", "Restart payments-worker to clear HTTP 502s.", _REPO, "06-05",
                 kind="procedural", authority="verified_outcome", evidence_ids=["w-ci-2"]),
              _QUARANTINE),
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
    writer = Memory(memory.store, policy=WRITE_POLICY, owns_driver=False)
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
            ns.cleanup(memory.store)
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


# ---------------------------------------------------------------------------- northwind


def northwind_dir(path: str | Path | None = None) -> Path:
    """Where the northwind scenario is: ``path``, else ``GRAPHMEM_NORTHWIND``, else
    ``shared/scenarios/northwind`` beside the checkout.

    Raises:
        EvaluationError: no folder with ``records.jsonl`` there.
    """
    if path:
        folder = Path(path)
    elif os.environ.get("GRAPHMEM_NORTHWIND"):
        folder = Path(os.environ["GRAPHMEM_NORTHWIND"])
    else:
        folder = Path(__file__).resolve().parents[3] / "shared" / "scenarios" / "northwind"
    if not (folder / "records.jsonl").is_file():
        raise EvaluationError(
            f"no northwind scenario at {folder}: pass --scenario DIR or set "
            "GRAPHMEM_NORTHWIND to the folder that holds records.jsonl")
    return folder


@dataclass(frozen=True)
class NorthwindTask:
    """A decision whose right answer is known, for paired runs.

    Attributes:
        id: the task id. query: a ``queries.jsonl`` id whose state, caller and time it
            uses (or give ``state``, ``principal`` and ``now``).
        key: what is asked (an ``asserts`` key or ``outcome:<action>``).
        expected: the right answer. prior: what the agent believes without memory.
        target: the record that should change the decision (for the funnel), if any.
    """

    id: str
    key: str
    expected: str | None
    prior: str | None = None
    target: str | None = None
    query: str | None = None
    state: dict[str, Any] | None = None
    principal: dict[str, Any] | None = None
    now: str | None = None


_SEPT = "2026-09-15T12:00:00+00:00"
_GLOBEX = {"tenants": ["globex"], "clearance": "normal"}
_ACME_P = {"tenants": ["acme"], "clearance": "normal"}

NORTHWIND_TASKS: tuple[NorthwindTask, ...] = (
    NorthwindTask("t-refund", "refund_manual_approval_threshold_eur", "1000", prior="500",
                  target="pol-refund-v2", query="q-refund"),
    NorthwindTask("t-tests", "test_command", "pytest -q tests/unit", target="proc-test-checkout",
                  query="q-tests"),
    NorthwindTask("t-orders-june", "orders_endpoint", "/v1/orders", prior="/v1/orders",
                  target="api-orders-v1", query="q-orders-june"),
    NorthwindTask("t-outage", "outcome:restart_service", "failure", prior="success",
                  target="ep-restart-1", query="q-outage"),
    NorthwindTask("t-u17-channel", "contact_channel", "phone", target="pref-u17-phone",
                  query="q-u17"),
    NorthwindTask("t-u17-low-clearance", "contact_channel", "phone", prior="email",
                  target="pref-u17-phone", query="q-u17-low-clearance"),
    NorthwindTask("t-changelog", "changelog_style", "keep-a-changelog",
                  prior="keep-a-changelog", query="q-no-trigger"),
    NorthwindTask("t-orders-sept", "orders_endpoint", "/v2/orders", prior="/v1/orders",
                  target="api-orders-v2", principal=_ACME_P, now=_SEPT, state={
                      "memory_scope": {"tenant": "acme", "repo": "checkout-api"},
                      "goal": "Look up order status", "subtask": "Call the orders API",
                      "last_observation": "Need the endpoint for order lookups",
                      "entities": ["orders API"], "needs_prior_context": True}),
    NorthwindTask("t-billing-tests", "test_command", "npm test -- --ci", prior="npm test",
                  target="proc-test-billing", principal=_ACME_P, now=_SEPT, state={
                      "memory_scope": {"tenant": "acme", "repo": "billing-web"},
                      "goal": "Fix billing-web", "subtask": "Run the tests of billing-web",
                      "last_observation": "npm test hangs waiting for a watcher",
                      "entities": ["billing-web", "tests"], "new_error": True}),
    NorthwindTask("t-globex-tests", "test_command", "make test", target="gx-test-cmd",
                  principal=_GLOBEX, now=_SEPT, state={
                      "memory_scope": {"tenant": "globex", "repo": "checkout-api"},
                      "goal": "Fix checkout", "subtask": "Run the unit tests of checkout-api",
                      "last_observation": "Tests failing after the patch",
                      "entities": ["checkout-api", "tests"], "new_error": True}),
    NorthwindTask("t-globex-refund", "refund_manual_approval_threshold_usd", "200",
                  target="gx-refund", principal=_GLOBEX, now=_SEPT, state={
                      "memory_scope": {"tenant": "globex"}, "goal": "Handle refund request",
                      "subtask": "Decide whether a USD 350 refund needs manual approval",
                      "last_observation": "Customer asks for a refund of USD 350",
                      "entities": ["refund"], "needs_prior_context": True}),
)


@dataclass(frozen=True)
class TaskRun:
    """One arm's run of one task."""

    task_id: str
    arm: str
    answer: ReaderAnswer
    success: bool
    shown: tuple[str, ...]


@dataclass(frozen=True)
class NorthwindResult:
    """Read-path metrics, paired effects, task runs and the funnel from the northwind runs.

    Attributes:
        read: read-path metrics per arm (``graphmem``, ``naive``).
        effects: paired effect per arm against the no-memory arm (``none`` against itself
            is the reference), and ``graphmem_vs_naive`` head to head.
        runs: every arm's run of every task.
        funnel: graphmem's funnel, reconstructed from the attribution log.
        trials: per-task funnel rows (task, record, lost_at).
    """

    read: dict[str, ReadMetrics]
    effects: dict[str, MemoryEffect]
    runs: tuple[TaskRun, ...]
    funnel: FunnelReport
    trials: tuple[tuple[str, str, str | None], ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "read_path": {arm: m.as_dict() for arm, m in self.read.items()},
            "paired": {arm: e.as_dict() for arm, e in self.effects.items()},
            "runs": [{"task": r.task_id, "arm": r.arm, "answer": r.answer.value,
                      "source": r.answer.source, "success": r.success, "shown": list(r.shown)}
                     for r in self.runs],
            "funnel": self.funnel.as_dict(),
            "trials": [{"task": t, "record": r, "lost_at": lost} for t, r, lost in self.trials],
        }


def _lines(folder: Path, name: str) -> list[dict[str, Any]]:
    return [obj for _, obj in iter_jsonl(folder / name)]


def _load(memory: Memory, naive: NaiveVectorDump, ns: Namespace, folder: Path) -> None:
    for obj in _lines(folder, "records.jsonl"):
        record = coerce_record(obj)
        memory.write(ns.record(obj), by="northwind-loader", now=record.created_at)
        naive.write(record)
    for op in _lines(folder, "operations.jsonl"):
        if op.get("op") != "retract":
            raise EvaluationError(f"unsupported northwind operation {op.get('op')!r}")
        memory.retract(ns.id(op["id"]), by=op["by"], reason=op["reason"],
                       at=datetime.fromisoformat(op["at"]))
        naive.delete([op["id"]])


def _violations(records: Sequence[MemoryRecord], principal: Principal,
                scope: Mapping[str, str]) -> frozenset[str]:
    """Returned records the caller may not see in this scope (SPEC section 3, rules 1-3)."""
    return frozenset(
        r.id for r in records
        if r.tenant not in principal.tenants or r.sensitivity > principal.clearance
        or any(scope.get(k) != v for k, v in r.scope.items())
    )


def _read_path(memory: Memory, naive: NaiveVectorDump, ns: Namespace,
               queries: Sequence[Mapping[str, Any]], k: int) -> dict[str, ReadMetrics]:
    graphmem_rows, naive_rows = [], []
    for q in queries:
        expect = q["expect"]
        principal = Principal.model_validate(q["principal"])
        scope = q["state"]["memory_scope"]
        relevant = frozenset(expect.get("must_include", ()))
        stale = frozenset(rid for rid, why in expect.get("must_exclude", {}).items()
                          if Status(why) in STALE_STATUSES)
        try:
            result = memory.retrieve({**q["state"], "memory_scope": ns.scope(scope)},
                                     principal=ns.principal(principal),
                                     now=datetime.fromisoformat(q["now"]), k=k)
            ranked = tuple(ns.local(i) for i in result.ids)
            candidates = frozenset(ns.local(i) for i in result.trace.candidate_ids)
            violations = frozenset(ns.local(i) for i in _violations(
                [m.record for m in result.memories], ns.principal(principal), ns.scope(scope)))
        except AuthorizationError:  # refused: nothing returned, nothing violated
            ranked, candidates, violations = (), frozenset(), frozenset()
        graphmem_rows.append(ReadOutcome(q["id"], relevant, stale, candidates, ranked,
                                         violations))
        naive_shown = naive.retrieve(DecisionState.model_validate(q["state"]))
        naive_rows.append(ReadOutcome(
            q["id"], relevant, stale, frozenset(naive.records),
            tuple(r.id for r in naive_shown), _violations(naive_shown, principal, scope)))
    return {"graphmem": read_metrics(graphmem_rows, k=k),
            "naive": read_metrics(naive_rows, k=k)}


def _task_call(task: NorthwindTask, queries: Mapping[str, Mapping[str, Any]]
               ) -> tuple[dict[str, Any], Principal, datetime]:
    if task.query is not None:
        q = queries[task.query]
        state, principal, now = q["state"], q["principal"], q["now"]
    elif task.state is None or task.principal is None or task.now is None:
        raise EvaluationError(f"task {task.id!r} needs a query or state, principal and now")
    else:
        state, principal, now = task.state, task.principal, task.now
    return dict(state), Principal.model_validate(principal), datetime.fromisoformat(now)


def run_northwind(memory: Memory, *, scenario: str | Path | None = None, k: int = 5,
                  tasks: Sequence[NorthwindTask] = NORTHWIND_TASKS, keep: bool = False
                  ) -> NorthwindResult:
    """Load northwind into graphmem and the naive baseline; measure the read path; run the
    tasks with graphmem, the baseline and no memory; rebuild graphmem's funnel from the log.

    Args:
        memory: a connected client (a namespace of its database is used, then deleted).
        scenario: the northwind folder (see :func:`northwind_dir`).
        k: memories shown per retrieval, in both arms.
        tasks: the paired tasks (default :data:`NORTHWIND_TASKS`).

    Raises:
        EvaluationError: no scenario, or a task that names neither a query nor a state.
    """
    folder = northwind_dir(scenario)
    queries = {q["id"]: q for q in _lines(folder, "queries.jsonl")}
    ns = Namespace.fresh()
    naive = NaiveVectorDump(k=k)
    runs: list[TaskRun] = []
    try:
        _load(memory, naive, ns, folder)
        read = _read_path(memory, naive, ns, list(queries.values()), k)
        targets = []
        for task in tasks:
            state, principal, now = _task_call(task, queries)
            without = read_answer(task.key, [], prior=task.prior)
            control_success = without.value == task.expected
            runs.append(TaskRun(task.id, "none", without, control_success, ()))
            naive_records = naive.retrieve(DecisionState.model_validate(state))
            answer = read_answer(task.key, naive_records, prior=task.prior)
            runs.append(TaskRun(task.id, "naive", answer, answer.value == task.expected,
                                tuple(r.id for r in naive_records)))
            result = memory.retrieve({**state, "memory_scope": ns.scope(state["memory_scope"])},
                                     principal=ns.principal(principal), now=now, k=k)
            answer = read_answer(task.key, [m.record for m in result.memories], prior=task.prior)
            success = answer.value == task.expected
            runs.append(TaskRun(task.id, "graphmem", answer, success,
                                tuple(ns.local(i) for i in result.ids)))
            _log_attribution(memory, result.trace.retrieval_id, task.id, result.ids, answer,
                             helped=success and not control_success, now=now)
            if task.target is not None:
                targets.append(TrialTarget(task.id, ns.id(task.target),
                                           result.trace.retrieval_id))
        trials = trials_from_log(memory.store, targets)
    finally:
        if not keep:
            ns.cleanup(memory.store)
    outcome = {arm: {r.task_id: r.success for r in runs if r.arm == arm}
               for arm in ("graphmem", "naive", "none")}
    effects = {arm: memory_effect(outcome[arm], outcome["none"]) for arm in outcome}
    effects["graphmem_vs_naive"] = memory_effect(outcome["graphmem"], outcome["naive"])
    return NorthwindResult(
        read=read, effects=effects, runs=tuple(runs), funnel=funnel(trials),
        trials=tuple((t.task_id, ns.local(t.record_id),
                      t.lost_at.value if t.lost_at else None) for t in trials),
    )


def _log_attribution(memory: Memory, retrieval_id: str, task_id: str, shown: Sequence[str],
                     answer: ReaderAnswer, *, helped: bool, now: datetime) -> None:
    """The reader saw every rendered memory (exposure) and rested its answer on some (use);
    help comes from the pairing with the no-memory run, never from co-occurrence."""
    if not shown:
        return
    memory.record_exposure(retrieval_id, task_id, list(shown), at=now)
    if answer.source in ("memory", "ambiguous") and answer.used_ids:
        memory.record_use(retrieval_id, task_id, list(answer.used_ids), helped=helped, at=now)
