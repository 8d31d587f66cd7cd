"""Write-path and read-path fixture metrics (docs/spec/evaluation.md): disposition precision/recall,
duplicate rate, scope and supersession accuracy; eligible recall, recall@k, precision@k,
stale-record retrieval rate, scope-violation rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graphmem.errors import EvaluationError
from graphmem.evaluation.funnel import json_float, ratio
from graphmem.write.policy import WriteDisposition

# ------------------------------------------------------------------------- write path

__all__ = [
    "ReadMetrics",
    "ReadOutcome",
    "SupersessionOutcome",
    "WriteMetrics",
    "WriteOutcome",
    "read_metrics",
    "write_metrics",
]


@dataclass(frozen=True)
class WriteOutcome:
    """What a writer did with one proposal of a write-path fixture, next to what was right.

    Attributes:
        case_id: the proposal's id in the fixture.
        expected, actual: the right disposition and the writer's.
        duplicate: the proposal restates an active record in the same scope.
        duplicate_created: (duplicates only) a second retrievable copy now exists.
        scope_expected: whether scope assignment is checked for this case (persisted ones).
        scope_correct: stored in the expected scope, retrievable there and not from a
            sibling scope.
    """

    case_id: str
    expected: WriteDisposition
    actual: WriteDisposition
    duplicate: bool = False
    duplicate_created: bool = False
    scope_expected: bool = False
    scope_correct: bool = False


@dataclass(frozen=True)
class SupersessionOutcome:
    """Whether ``old`` is (or, for a negative case, is not) superseded by ``new``."""

    old_id: str
    new_id: str
    expected: bool
    actual: bool


@dataclass(frozen=True)
class WriteMetrics:
    """Write-path metrics (chapter section 14).

    Attributes:
        precision, recall: per disposition (NaN when the class never occurs).
        support: expected count per disposition.
        accuracy: dispositions right over cases.
        duplicate_creation_rate: duplicate proposals that left a second copy, over
            duplicate proposals.
        scope_accuracy: correctly scoped over cases checked for scope.
        supersession_accuracy: correct supersession outcomes over supersession checks.
    """

    cases: int
    precision: dict[WriteDisposition, float]
    recall: dict[WriteDisposition, float]
    support: dict[WriteDisposition, int]
    accuracy: float
    duplicate_creation_rate: float
    scope_accuracy: float
    supersession_accuracy: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN becomes None)."""
        return {
            "cases": self.cases,
            "precision": {d.value: json_float(v) for d, v in self.precision.items()},
            "recall": {d.value: json_float(v) for d, v in self.recall.items()},
            "support": {d.value: n for d, n in self.support.items()},
            "accuracy": json_float(self.accuracy),
            "duplicate_creation_rate": json_float(self.duplicate_creation_rate),
            "scope_accuracy": json_float(self.scope_accuracy),
            "supersession_accuracy": json_float(self.supersession_accuracy),
        }


def write_metrics(outcomes: Sequence[WriteOutcome],
                  supersessions: Sequence[SupersessionOutcome] = ()) -> WriteMetrics:
    """Disposition precision/recall per class, duplicate rate, scope and supersession accuracy."""
    precision: dict[WriteDisposition, float] = {}
    recall: dict[WriteDisposition, float] = {}
    support: dict[WriteDisposition, int] = {}
    for d in WriteDisposition:
        tp = sum(1 for o in outcomes if o.expected is d and o.actual is d)
        predicted = sum(1 for o in outcomes if o.actual is d)
        actual = sum(1 for o in outcomes if o.expected is d)
        precision[d], recall[d], support[d] = ratio(tp, predicted), ratio(tp, actual), actual
    dups = [o for o in outcomes if o.duplicate]
    scoped = [o for o in outcomes if o.scope_expected]
    return WriteMetrics(
        cases=len(outcomes), precision=precision, recall=recall, support=support,
        accuracy=ratio(sum(1 for o in outcomes if o.expected is o.actual), len(outcomes)),
        duplicate_creation_rate=ratio(sum(1 for o in dups if o.duplicate_created), len(dups)),
        scope_accuracy=ratio(sum(1 for o in scoped if o.scope_correct), len(scoped)),
        supersession_accuracy=ratio(sum(1 for s in supersessions if s.expected == s.actual),
                                     len(supersessions)),
    )


# -------------------------------------------------------------------------- read path


@dataclass(frozen=True)
class ReadOutcome:
    """One query of a read-path fixture and what an arm returned for it.

    Attributes:
        query_id: the query.
        relevant: records that should be retrieved.
        stale: known-invalid records that are stale (superseded, expired, retracted,
            not yet valid) for this query.
        candidates: what the arm considered before ranking (eligible set).
        ranked: what the arm returned, best first (only the first ``k`` count).
        violations: returned ids that break the caller's scope or authorization.
    """

    query_id: str
    relevant: frozenset[str]
    stale: frozenset[str]
    candidates: frozenset[str]
    ranked: tuple[str, ...]
    violations: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class ReadMetrics:
    """Read-path metrics over a fixed store (chapter section 14), micro-averaged.

    Attributes:
        k: the cut-off.
        eligible_recall: relevant records among the candidates, over relevant records.
        recall_at_k: relevant records in the top k, over relevant records.
        precision_at_k: relevant records in the top k, over records returned in the top k
            (NaN when nothing was returned).
        stale_retrieval_rate: known-stale records returned in the top k, over known-stale
            records.
        scope_violation_rate: returned records that break scope or authorization, over
            records returned.
    """

    queries: int
    k: int
    eligible_recall: float
    recall_at_k: float
    precision_at_k: float
    stale_retrieval_rate: float
    scope_violation_rate: float
    returned: int

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN becomes None)."""
        return {
            "queries": self.queries, "k": self.k, "returned": self.returned,
            "eligible_recall": json_float(self.eligible_recall),
            "recall_at_k": json_float(self.recall_at_k),
            "precision_at_k": json_float(self.precision_at_k),
            "stale_retrieval_rate": json_float(self.stale_retrieval_rate),
            "scope_violation_rate": json_float(self.scope_violation_rate),
        }


def read_metrics(outcomes: Sequence[ReadOutcome], *, k: int) -> ReadMetrics:
    """Eligible recall, recall@k, precision@k, stale retrieval and scope-violation rates.

    Raises:
        EvaluationError: ``k`` < 1.
    """
    if k < 1:
        raise EvaluationError("k must be >= 1")
    relevant = sum(len(o.relevant) for o in outcomes)
    stale = sum(len(o.stale) for o in outcomes)
    returned = sum(len(o.ranked[:k]) for o in outcomes)
    return ReadMetrics(
        queries=len(outcomes), k=k, returned=returned,
        eligible_recall=ratio(sum(len(o.relevant & o.candidates) for o in outcomes), relevant),
        recall_at_k=ratio(sum(len(o.relevant & set(o.ranked[:k])) for o in outcomes),
                           relevant),
        precision_at_k=ratio(sum(len(o.relevant & set(o.ranked[:k])) for o in outcomes),
                              returned),
        stale_retrieval_rate=ratio(sum(len(o.stale & set(o.ranked[:k])) for o in outcomes),
                                    stale),
        scope_violation_rate=ratio(sum(len(o.violations & set(o.ranked[:k]))
                                        for o in outcomes), returned),
    )
