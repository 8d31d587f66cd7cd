"""The read path as one function (docs/spec/read-path.md): trigger, query, eligible candidates
(Cypher), conflicts, rank, partners, budget, render, attribution log.

The steps themselves are pure functions in :mod:`graphmem.read.steps` and rankers in
:mod:`graphmem.read.rankers`; :class:`graphmem.Memory.retrieve` calls :func:`retrieve`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np
import pydantic

from graphmem.db.access import ScopeQuery
from graphmem.db.codec import paused_gc
from graphmem.db.eligibility import CandidateList
from graphmem.errors import ValidationError
from graphmem.fields import MAX_INT64
from graphmem.limits import InputLimits
from graphmem.models import DeferredIntention, MemoryRecord
from graphmem.read.attribution import AttributionLog
from graphmem.read.budget import fit_context
from graphmem.read.context import thread_context
from graphmem.read.rankers import Ranker, score_order
from graphmem.read.steps import (
    SEPARATOR,
    DecisionState,
    MemoryConflict,
    Ranking,
    RetrievalTrace,
    RetrievedMemory,
    build_query,
    detect_conflicts,
    preserve_conflict_partners,
    render_memory,
    search_text,
    triggers_fired,
)

__all__ = ["MAX_BUDGET_CHARS", "CandidateSource", "DueIntentions", "Retrieval", "check_request",
           "coerce_state", "retrieve", "with_records"]

MAX_BUDGET_CHARS = MAX_INT64
"""The largest context budget, in characters: the attribution log stores it as a 64-bit
integer (a larger one was a raw OverflowError from the driver)."""


class CandidateSource(Protocol):
    """What the read path needs of the store: its input limits and the eligible, active
    candidates within an authorized reach (:meth:`graphmem.db.eligibility.Eligibility.
    candidates_within`)."""

    @property
    def limits(self) -> InputLimits: ...

    def candidates_within(self, reach: ScopeQuery) -> CandidateList: ...


class DueIntentions(Protocol):
    """How the read path learns whether an event makes an intention due: the intentions
    the event makes due within an authorized reach (:meth:`graphmem.intentions.Intentions.
    due_within`)."""

    def due_within(self, event: Mapping[str, str], reach: ScopeQuery
                   ) -> Sequence[DeferredIntention]: ...


@dataclass(frozen=True)
class Retrieval:
    """What the read path returns (docs/spec/read-path.md).

    Attributes:
        memories: chosen memories in score order (conflict components whole), then the
            thread context that fits the budget (score 0).
        conflicts: every conflict among the candidates, even when none of it fit.
        rendered: the memories as shown to a model, each with id, kind, source, created;
            after each conflict group shown, a note naming its key and what each side says,
            and for a conflict group left out over budget, a note that it was (within the
            budget: :func:`graphmem.read.steps.fit_context`).
        trace: what happened and why, as logged for attribution.
    """

    memories: tuple[RetrievedMemory, ...]
    conflicts: tuple[MemoryConflict, ...]
    rendered: str
    trace: RetrievalTrace

    @property
    def ids(self) -> list[str]:
        """Ids of the chosen memories, in order."""
        return [m.record.id for m in self.memories]


def with_records(result: Retrieval, records: Sequence[MemoryRecord]) -> Retrieval:
    """``result`` with its memories' records replaced, one for one and in order, by
    ``records`` (a bound client's view of them: :meth:`graphmem.db.access.Access.shown`);
    the same object when nothing changed."""
    if all(m.record is r for m, r in zip(result.memories, records, strict=True)):
        return result
    return replace(result, memories=tuple(
        replace(m, record=r) for m, r in zip(result.memories, records, strict=True)))


def coerce_state(state: DecisionState | dict[str, Any]) -> DecisionState:
    """A :class:`DecisionState` from itself or its dict. Raises ValidationError."""
    if isinstance(state, DecisionState):
        return state
    try:
        return DecisionState.model_validate(state)
    except pydantic.ValidationError as exc:
        raise ValidationError(f"invalid decision state: {exc}") from None


def check_request(limits: InputLimits, state: DecisionState | dict[str, Any], *,
                  budget_chars: int, k: int, context_window: int) -> DecisionState:
    """The decision state of a read, validated with the read's settings (before the read is
    authorized: a malformed request is refused as such).

    Raises:
        ValidationError: a malformed state, a budget outside ``0..MAX_BUDGET_CHARS``, ``k``
            below 1 or a negative ``context_window``.
    """
    state = coerce_state(state)
    limits.check_decision(state)
    if not 0 <= budget_chars <= MAX_BUDGET_CHARS or k < 1 or context_window < 0:
        raise ValidationError(f"budget_chars must be in 0..{MAX_BUDGET_CHARS} (it is logged "
                              "as a 64-bit integer), k >= 1 and context_window >= 0")
    return state


def retrieve(
    store: CandidateSource,
    log: AttributionLog,
    state: DecisionState,
    *,
    reach: ScopeQuery,
    budget_chars: int,
    ranker: Ranker,
    k: int,
    intentions: DueIntentions,
    context_window: int = 1,
) -> Retrieval:
    """Trigger, query, eligible candidates, conflicts, rank, partners, budget, render, log.

    Args:
        store: where candidates come from. log: where the retrieval is logged.
        state: the decision state, checked (:func:`check_request`).
        reach: the read's one authorization (:meth:`graphmem.db.access.Access.authorize`
            of the state's scope): the principal, the scope confined to it, and the aware
            UTC time at which eligibility is decided. Nothing is authorized again.
        budget_chars: the context budget, in characters of rendered memory (>= 0).
        ranker: the ranker. k: ranked records (score > 0) kept before partners and budget.
        intentions: whether the state's event makes a pending intention due within
            ``reach`` (then a trigger).
        context_window: thread neighbours shown on each side of a chosen memory when the
            budget allows (:func:`graphmem.read.context.thread_context`; 0: none).

    Raises:
        StoreError and other GraphmemErrors of the store and the log.
    """
    with paused_gc():
        return _retrieve(store, log, state, reach=reach, budget_chars=budget_chars,
                         ranker=ranker, k=k, intentions=intentions,
                         context_window=context_window)


def _retrieve(
    store: CandidateSource, log: AttributionLog, state: DecisionState, *,
    reach: ScopeQuery, budget_chars: int, ranker: Ranker, k: int,
    intentions: DueIntentions, context_window: int,
) -> Retrieval:
    principal, at = reach.principal, reach.now
    if reach.scope != state.memory_scope:  # the principal's confinement added: read and logged
        state = state.model_copy(update={"memory_scope": reach.scope})
    if state.event and not state.due_cue and intentions.due_within(state.event, reach):
        state = state.model_copy(update={"due_cue": True})  # a due intention is a trigger
    fired = triggers_fired(state)
    query = build_query(state)
    retrieval_id = f"ret-{uuid.uuid4().hex}"
    if not fired:
        trace = RetrievalTrace(retrieval_id, at, False, (), query, ranker.name,
                               budget_chars=budget_chars,
                               notes=("no trigger fired: prior information could not "
                                      "change this decision; nothing retrieved",))
        result = Retrieval((), (), "", trace)
        log.log_retrieval(trace, (), (), principal, state)
        return result

    found = store.candidates_within(reach)
    # the log's Retrieval node and candidate set are written while the candidates are ranked, in a
    # transaction committed with what was selected, once it is known
    head = RetrievalTrace(retrieval_id, at, True, fired, query, ranker.name,
                          candidate_ids=found.id_tuple,  # sorted, as the answer keeps them
                          budget_chars=budget_chars)
    pending = log.open_retrieval(head, principal, state)
    try:
        result = _choose(found, head, state, ranker=ranker, k=k, budget_chars=budget_chars,
                         context_window=context_window)
    except BaseException:
        pending.cancel()
        raise
    pending.finish(result.memories, result.conflicts)
    return result


def _choose(found: CandidateList, head: RetrievalTrace, state: DecisionState, *,
            ranker: Ranker, k: int, budget_chars: int, context_window: int) -> Retrieval:
    """Conflicts, rank, partners, budget, thread context and render (docs/spec/read-path.md, steps
    4-8) over the candidates ``found``; ``head``: the trace so far (id, time, triggers, query)."""
    records = found.records
    # conflicts and their partners involve only records that assert a key (docs/spec/read-path.md,
    # steps 4, 6)
    claims = found.claims
    asserting = [c.record for c in claims]
    conflicts = detect_conflicts(asserting, {c.record.id: c.conflict_ids
                                             for c in claims if c.conflict_ids})
    scores = ranker.score(search_text(state), records)  # the logged query keeps labels
    at_rank, ordered = score_order(records, scores)
    top = min(k, int(np.count_nonzero(ordered > 0)))  # the first k with score > 0
    kept = [RetrievedMemory(records[i], s, f"{ranker.name} score {s:.3f}")
            for i, s in zip(at_rank[:top].tolist(), ordered[:top].tolist(), strict=True)]
    with_partners = preserve_conflict_partners(kept, asserting, conflicts)
    partner_ids = tuple(sorted({m.record.id for m in with_partners}
                               - {m.record.id for m in kept}))
    fit = fit_context(with_partners, budget_chars=budget_chars, conflicts=conflicts)
    over = fit.over
    in_conflict = {i for c in conflicts for i in c.record_ids}
    context = thread_context(fit.chosen, records, budget_chars=budget_chars,
                             spent_chars=len(fit.rendered), window=context_window,
                             exclude=in_conflict | set(over))
    chosen = [*fit.chosen, *context]
    # the memories with their conflict notes (step 8), then the thread context
    rendered = SEPARATOR.join([*fit.blocks, *map(render_memory, context)])
    trace = replace(
        head,
        ranked=Ranking(found.ids, at_rank, ordered),
        partner_ids=partner_ids, over_budget_ids=tuple(over),
        context_ids=tuple(m.record.id for m in context), spent_chars=len(rendered),
    )
    return Retrieval(tuple(chosen), tuple(conflicts), rendered, trace)
