"""The northwind suite (docs/spec/evaluation.md): the scenario run through graphmem and the naive
baseline side by side, paired per task, with the read-path metrics and the funnel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db.codec import coerce_record
from graphmem.demo.run import default_scenario_dir
from graphmem.demo.scenario import iter_jsonl
from graphmem.errors import AuthorizationError, EvaluationError, ValidationError
from graphmem.evaluation.baseline import NaiveVectorDump
from graphmem.evaluation.funnel import (
    FunnelReport,
    MemoryEffect,
    TrialTarget,
    funnel,
    memory_effect,
    trials_from_log,
)
from graphmem.evaluation.metrics import ReadMetrics, ReadOutcome, read_metrics
from graphmem.evaluation.namespace import Namespace
from graphmem.evaluation.reader import ReaderAnswer, read_answer
from graphmem.evaluation.suites import STALE_STATUSES
from graphmem.models import MemoryRecord, Principal, Status
from graphmem.read.steps import DecisionState

# ---------------------------------------------------------------------------- northwind

__all__ = [
    "NORTHWIND_TASKS",
    "NorthwindResult",
    "NorthwindTask",
    "TaskRun",
    "northwind_dir",
    "run_northwind",
]


def northwind_dir(path: str | Path | None = None) -> Path:
    """Where the northwind scenario is: ``path``, else ``GRAPHMEM_NORTHWIND``, else the copy
    shipped in the package (:func:`graphmem.demo.run.default_scenario_dir`).

    Raises:
        EvaluationError: no folder with ``records.jsonl`` there.
    """
    try:
        folder = Path(path) if path else default_scenario_dir()
    except ValidationError as exc:
        raise EvaluationError(str(exc)) from None
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
    """Returned records the caller may not see in this scope (docs/spec/eligibility.md, rules
    1-3)."""
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
        trials = trials_from_log(store_of(memory), targets)
    finally:
        if not keep:
            ns.cleanup(store_of(memory))
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
