"""A deterministic reader for evaluation runs: answers from the memories it was shown.

It stands in for the model in paired runs (docs/spec/evaluation.md) so that a change in outcome
can only come from memory. It applies docs/spec/read-path.md's precedence: a current verified
observation first; then what the shown memories claim about the question's key, settled
on metadata by :func:`graphmem.read.resolution.resolve_conflict`; and only when no memory
speaks to the question, the agent's unverified prior. A conflict that metadata cannot
settle is a genuine ambiguity: the reader abstains rather than guess.

A memory *claims* a value for key ``k`` when it ``asserts`` ``k``, or, for an outcome key
``outcome:<action>``, when it is an episode whose ``metadata`` names that ``action`` and a
``goal_result`` (a restart that "succeeded" while the outage went on claims ``failure``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.models import MemoryRecord
from graphmem.read.resolution import resolve_conflict
from graphmem.read.steps import MemoryConflict

__all__ = ["OUTCOME_PREFIX", "ReaderAnswer", "claim", "read_answer"]

OUTCOME_PREFIX = "outcome:"


@dataclass(frozen=True)
class ReaderAnswer:
    """The reader's answer to one question.

    Attributes:
        value: the answer, or None when the reader abstained.
        source: ``observation``, ``memory``, ``prior``, ``ambiguous`` (abstained on a
            conflict metadata could not settle) or ``nothing`` (no evidence, no prior).
        used_ids: the memories the answer rests on (empty unless ``source`` is memory or
            ambiguous).
        decided_by: for memory answers, the resolution rule that settled a conflict
            (``single`` when the memories agreed).
    """

    value: str | None
    source: str
    used_ids: tuple[str, ...] = ()
    decided_by: str = ""


def claim(record: MemoryRecord, key: str) -> str | None:
    """The value ``record`` claims for ``key``, or None when it says nothing about it."""
    if record.asserts == key and record.asserted_value is not None:
        return record.asserted_value
    if key.startswith(OUTCOME_PREFIX) and record.metadata.get("action") == key.removeprefix(
            OUTCOME_PREFIX):
        result = record.metadata.get("goal_result")
        return str(result) if result is not None else None
    return None


def read_answer(
    key: str,
    memories: Sequence[MemoryRecord],
    *,
    prior: str | None = None,
    observed: str | None = None,
) -> ReaderAnswer:
    """Answer the question ``key`` from ``memories`` by the precedence rule.

    Args:
        key: what is asked (an ``asserts`` key or ``outcome:<action>``).
        memories: the memories shown, as rendered by the arm under test.
        prior: what the agent believes without memory (unverified recollection).
        observed: a current verified observation of the answer, if the task has one.
    """
    if observed is not None:
        return ReaderAnswer(observed, "observation")
    claims = {r.id: (r, v) for r in memories if (v := claim(r, key)) is not None}
    if not claims:
        return ReaderAnswer(prior, "prior") if prior is not None else ReaderAnswer(None,
                                                                                   "nothing")
    values = {v for _, v in claims.values()}
    if len(values) == 1:
        return ReaderAnswer(values.pop(), "memory", tuple(sorted(claims)), "single")
    pool = {rid: r.model_copy(update={"asserts": key, "asserted_value": v})
            for rid, (r, v) in claims.items()}
    conflict = MemoryConflict(key=key, record_ids=tuple(sorted(pool)),
                              values=tuple(sorted(values)))
    resolution = resolve_conflict(conflict, pool)
    if resolution.ambiguous:
        return ReaderAnswer(None, "ambiguous", resolution.winner_ids, "ambiguous")
    return ReaderAnswer(resolution.value, "memory", resolution.winner_ids, resolution.decided_by)
