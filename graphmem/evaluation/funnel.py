"""How memory helps and how it fails, measured (docs/spec/evaluation.md, chapter sections 12-14).

Three measurements, each with its own fixture, because a poor writer and a poor retriever
produce the same end-to-end number:

- the **funnel** per trial (written -> eligible -> retrieved -> exposed -> used -> helped)
  with losses by the first missed stage, reconstructed from the attribution log that the
  client writes to Neo4j (:func:`trials_from_log`), never typed by hand;
- the **paired effect** of memory over tasks run with and without it: shared, rescue,
  regret, unchanged and net, always together (:func:`memory_effect`);
- **write-path** and **read-path** metrics over fixtures with known answers
  (:func:`write_metrics`, :func:`read_metrics`).

Everything here except :func:`trials_from_log` is pure arithmetic on typed values.
Fault injection lives in :mod:`graphmem.faults`; the runs that produce these inputs in
:mod:`graphmem.eval_suites`; tables, JSON and charts in :mod:`graphmem.eval_report`.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Any

from graphmem.db.ops.evaluation import EvaluationOps, TrialLog
from graphmem.db.store import Neo4jStore
from graphmem.errors import EvaluationError
from graphmem.models import Principal, Status
from graphmem.read.attribution import candidate_ids
from graphmem.write.policy import WriteDisposition

__all__ = [
    "FunnelReport",
    "Helped",
    "MemoryEffect",
    "MemoryStage",
    "MemoryTrial",
    "TrialTarget",
    "funnel",
    "losses",
    "memory_effect",
    "trials_from_log",
]


# ------------------------------------------------------------------------------- funnel


class MemoryStage(StrEnum):
    """The stages a record passes on its way to changing a decision (chapter section 12)."""

    WRITTEN = "written"
    ELIGIBLE = "eligible"
    RETRIEVED = "retrieved"
    EXPOSED = "exposed"
    USED = "used"
    HELPED = "helped"


class Helped(StrEnum):
    """Whether a used memory helped: measured by paired runs, or not measured at all.

    ``UNMEASURED`` is not ``NO``: collapsing them would turn missing evidence into a
    negative result.
    """

    UNMEASURED = "unmeasured"
    NO = "no"
    YES = "yes"


_STAGES_BEFORE_HELPED = (
    MemoryStage.WRITTEN, MemoryStage.ELIGIBLE, MemoryStage.RETRIEVED,
    MemoryStage.EXPOSED, MemoryStage.USED,
)


@dataclass(frozen=True)
class MemoryTrial:
    """One task where a specific record should have changed the decision.

    Attributes:
        task_id: the task. record_id: the record that should have mattered.
        written ... used: whether the record reached each stage.
        helped: tri-state, set only from paired runs.

    Raises:
        EvaluationError: a later stage is reached without an earlier one (e.g. used but
            never exposed), or ``helped`` is measured for a record that was not used.
    """

    task_id: str
    record_id: str
    written: bool
    eligible: bool
    retrieved: bool
    exposed: bool
    used: bool
    helped: Helped = Helped.UNMEASURED

    def __post_init__(self) -> None:
        path = [self.written, self.eligible, self.retrieved, self.exposed, self.used]
        for i in range(1, len(path)):
            if path[i] and not path[i - 1]:
                raise EvaluationError(
                    f"task {self.task_id!r}: record reached {_STAGES_BEFORE_HELPED[i].value} "
                    f"without {_STAGES_BEFORE_HELPED[i - 1].value}; funnel stages must be "
                    "monotonic", record_ids=[self.record_id])
        if self.helped is not Helped.UNMEASURED and not self.used:
            raise EvaluationError(
                f"task {self.task_id!r}: help was measured for a record that was not used",
                record_ids=[self.record_id])

    def reached(self, stage: MemoryStage) -> bool:
        """True when the record reached ``stage`` (HELPED: only a measured yes)."""
        if stage is MemoryStage.HELPED:
            return self.helped is Helped.YES
        return bool(getattr(self, stage.value))

    @property
    def lost_at(self) -> MemoryStage | None:
        """The first stage not reached; None when it reached use and help is yes or unmeasured."""
        for stage in _STAGES_BEFORE_HELPED:
            if not self.reached(stage):
                return stage
        return MemoryStage.HELPED if self.helped is Helped.NO else None


@dataclass(frozen=True)
class FunnelReport:
    """Counts and rates per stage, and losses by first missed stage.

    Attributes:
        trials: how many trials.
        counts: trials that reached each stage (HELPED: measured yes).
        rates: ``counts / trials`` for the first five stages; for HELPED, yes over the
            trials where help was measured (NaN when none was: unmeasured is not "no").
        step_rates: each stage's count over the previous stage's count (NaN on 0/0).
        measured: trials whose help was measured (yes or no).
        losses: trials by first missed stage (zeros included, in stage order).
    """

    trials: int
    counts: dict[MemoryStage, int]
    rates: dict[MemoryStage, float]
    step_rates: dict[MemoryStage, float]
    measured: int
    losses: dict[MemoryStage, int]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN becomes None)."""
        return {
            "trials": self.trials,
            "measured": self.measured,
            "counts": {s.value: n for s, n in self.counts.items()},
            "rates": {s.value: json_float(r) for s, r in self.rates.items()},
            "step_rates": {s.value: json_float(r) for s, r in self.step_rates.items()},
            "losses": {s.value: n for s, n in self.losses.items()},
        }


def ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def json_float(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def losses(trials: Iterable[MemoryTrial]) -> Counter[MemoryStage]:
    """How many trials were lost at each stage (first missed stage; see ``lost_at``)."""
    return Counter(t.lost_at for t in trials if t.lost_at is not None)


def funnel(trials: Sequence[MemoryTrial]) -> FunnelReport:
    """The funnel of ``trials`` (chapter section 12): counts, rates, step rates, losses."""
    counts = {s: sum(1 for t in trials if t.reached(s)) for s in MemoryStage}
    measured = sum(1 for t in trials if t.helped is not Helped.UNMEASURED)
    rates = {s: ratio(counts[s], len(trials)) for s in _STAGES_BEFORE_HELPED}
    rates[MemoryStage.HELPED] = ratio(counts[MemoryStage.HELPED], measured)
    step_rates = {MemoryStage.WRITTEN: rates[MemoryStage.WRITTEN],
                  # help is measured only for used records: its rate is already conditional
                  MemoryStage.HELPED: rates[MemoryStage.HELPED]}
    for prev, stage in pairwise(_STAGES_BEFORE_HELPED):
        step_rates[stage] = ratio(counts[stage], counts[prev])
    step_rates = {s: step_rates[s] for s in MemoryStage}
    lost = losses(trials)
    return FunnelReport(len(trials), counts, rates, step_rates, measured,
                        {s: lost.get(s, 0) for s in MemoryStage})


# ------------------------------------------------------------- the funnel from the log


@dataclass(frozen=True)
class TrialTarget:
    """Which record should have changed which task's decision, and the retrieval made for it.

    Attributes:
        task_id: the task. record_id: the record that should have mattered.
        retrieval_id: the ``Retrieval`` node logged for the task's decision, or None when
            no retrieval was logged (e.g. the call was refused).
    """

    task_id: str
    record_id: str
    retrieval_id: str | None


def trials_from_log(store: Neo4jStore, targets: Sequence[TrialTarget]) -> list[MemoryTrial]:
    """Reconstruct funnel trials from the attribution log in Neo4j (chapter section 12).

    Per target, from ``cypher/attribution_trials.cypher``:

    - written: a ``WriteDecision`` stored it (PERSIST or QUARANTINE) or the record exists
      (records imported without policy have no decision);
    - eligible: it is among the retrieval's logged candidates; when no trigger fired there
      are none, so eligibility is asked of ``explain`` with the logged caller, scope and
      time instead;
    - retrieved: the retrieval selected it; exposed / used: an ``Exposure`` / ``Use`` of
      that retrieval names it; helped: from the ``Use`` nodes' ``helped`` (any true: yes;
      else any false: no; else unmeasured).

    Raises:
        EvaluationError: the log is inconsistent (e.g. a use without an exposure).
    """
    if not targets:
        return []
    logs = EvaluationOps(store).trial_logs(
        [(t.task_id, t.record_id, t.retrieval_id) for t in targets])
    return _trials(targets, logs, lambda record_id, retrieval: _eligible_then(
        store, record_id, retrieval))


def _trials(targets: Sequence[TrialTarget], logs: Sequence[TrialLog],
            eligible_then: Callable[[str, Mapping[str, Any]], bool]) -> list[MemoryTrial]:
    """:func:`trials_from_log`'s trials from the log read; ``eligible_then(record id,
    retrieval)`` asks ``explain`` when the retrieval logged no candidates."""
    by_key = {(row.task_id, row.record_id): row for row in logs}
    trials = []
    for target in targets:
        row = by_key[(target.task_id, target.record_id)]
        written = bool(row.record_exists) or any(
            d in (WriteDisposition.PERSIST.value, WriteDisposition.QUARANTINE.value)
            for d in row.dispositions)
        retrieval = row.retrieval
        eligible = retrieved = False
        if retrieval is not None and written:
            retrieved = target.record_id in (retrieval.get("selected_ids") or [])
            if retrieval.get("triggered"):
                eligible = target.record_id in candidate_ids(
                    retrieval, row.candidate_set, row.chain)
            elif row.record_exists:
                eligible = eligible_then(target.record_id, retrieval)
        helped_flags = [u["helped"] for u in row.uses if u["helped"] is not None]
        helped = (Helped.YES if any(helped_flags) else Helped.NO if helped_flags
                  else Helped.UNMEASURED)
        trials.append(MemoryTrial(
            task_id=target.task_id, record_id=target.record_id, written=written,
            eligible=eligible, retrieved=retrieved, exposed=bool(row.exposures),
            used=bool(row.uses), helped=helped,
        ))
    return trials


def _eligible_then(store: Neo4jStore, record_id: str, retrieval: Mapping[str, Any]) -> bool:
    """Whether the record was eligible and active for the retrieval's logged caller and time."""
    principal = Principal(tenants=frozenset(retrieval["principal_tenants"]),
                          clearance=retrieval["clearance"])
    at = retrieval["at"].to_native()
    explanation = store.explain(record_id, principal, json.loads(retrieval["scope_json"]), at)
    return explanation.status is Status.ACTIVE


# ------------------------------------------------------------------------ paired effect


@dataclass(frozen=True)
class MemoryEffect:
    """The paired effect of one arm over another on the tasks both ran (chapter section 13).

    Attributes:
        shared: tasks run by both arms (the denominator).
        rescue: tasks that succeeded with the treatment arm and failed without it.
        regret: tasks that failed with the treatment arm and succeeded without it.
        unchanged: shared tasks with the same outcome in both arms.
    """

    shared: int
    rescue: int
    regret: int
    unchanged: int

    @property
    def net(self) -> int:
        """rescue - regret: a summary only; report it with the other four."""
        return self.rescue - self.regret

    def as_dict(self) -> dict[str, int]:
        """All five numbers, always together."""
        return {"shared": self.shared, "rescue": self.rescue, "regret": self.regret,
                "unchanged": self.unchanged, "net": self.net}


def memory_effect(treatment: Mapping[str, bool], control: Mapping[str, bool]) -> MemoryEffect:
    """Paired effect of ``treatment`` (e.g. with memory) over ``control`` (without).

    Args:
        treatment, control: task id -> task succeeded. Only task ids in both count.
    """
    shared = treatment.keys() & control.keys()
    rescue = sum(1 for t in shared if treatment[t] and not control[t])
    regret = sum(1 for t in shared if control[t] and not treatment[t])
    return MemoryEffect(shared=len(shared), rescue=rescue, regret=regret,
                        unchanged=len(shared) - rescue - regret)
