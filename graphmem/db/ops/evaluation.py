"""The evaluation's operations (docs/spec/evaluation.md): the attribution log a funnel is
rebuilt from, the text a run's erasure left, and the cleanup of a run's namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["EvaluationOps", "TrialLog", "TrialUse"]


class TrialUse(TypedDict):
    """A ``Use`` of a retrieval that names the record: its action and whether it helped."""

    action_id: str
    helped: bool | None


class TrialLog(NamedTuple):
    """What the attribution log holds of one (task, record) target
    (``cypher/attribution_trials.cypher``).

    Attributes:
        task_id, record_id: the target. record_exists: the record is stored.
        dispositions: the write decisions' dispositions for the record.
        retrieval: the logged ``Retrieval``'s properties (None: none logged).
        candidate_set, chain: its candidate set and the sets that one builds on (the
            properties :func:`graphmem.read.attribution.candidate_ids` reads).
        exposures: action ids of the exposures naming the record. uses: its uses.
    """

    task_id: str
    record_id: str
    record_exists: bool
    dispositions: list[str]
    retrieval: dict[str, Any] | None
    candidate_set: dict[str, Any] | None
    chain: list[dict[str, Any]]
    exposures: list[str]
    uses: list[TrialUse]


class EvaluationOps:
    """Evaluation reads and writes on ``store``, each a statement of its own.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def trial_logs(self, targets: Sequence[tuple[str, str, str | None]]) -> list[TrialLog]:
        """The log of each ``(task id, record id, retrieval id or None)`` target."""
        return [TrialLog(**row) for row in self.store.read("attribution_trials", targets=[
            {"task_id": task, "record_id": record, "retrieval_id": retrieval}
            for task, record, retrieval in targets])]

    def text_places(self, prefix: str, terms: Sequence[str]) -> list[str]:
        """The ``Label.key`` places of run ``prefix``'s text that hold one of ``terms``
        (lower-cased)."""
        return list(self.store.read_values("eval_text_scan", prefix=prefix,
                                           terms=list(terms))[0]["places"])

    def cleanup_batch(self, prefix: str, limit: int) -> int:
        """Delete up to ``limit`` nodes run ``prefix`` wrote; how many were deleted."""
        return int(self.store.write("eval_cleanup", prefix=prefix, limit=limit)[0]["deleted"])
