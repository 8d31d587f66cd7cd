"""The read path's pure steps (docs/spec/read-path.md): trigger, query, conflicts, conflict
partners, context budget and rendering. No database here; the client wires these to the
store's exact candidates and to the attribution log.
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field

from graphmem.fields import QueryScope
from graphmem.models import MemoryRecord

__all__ = [
    "DecisionState",
    "MemoryConflict",
    "Ranking",
    "RetrievalTrace",
    "RetrievedMemory",
    "build_query",
    "conflict_components",
    "detect_conflicts",
    "human_date",
    "preserve_conflict_partners",
    "render_memories",
    "render_memory",
    "search_text",
    "triggers_fired",
]


class DecisionState(BaseModel):
    """What the agent is deciding now: scope, goal, subtask, observation, trigger flags.

    Args:
        memory_scope: the query scope (must contain ``tenant``).
        goal, subtask, last_observation: the current decision's text (not the opening request).
        entities: names the decision is about.
        new_error, strategy_failed, returning_entity, needs_prior_context, due_cue: the
            triggers of docs/spec/read-path.md#trigger.
        event: the event being processed, if any; an intention due on it is a trigger.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_scope: QueryScope
    goal: str = ""
    subtask: str = ""
    last_observation: str = ""
    entities: tuple[str, ...] = ()
    new_error: bool = False
    strategy_failed: bool = False
    returning_entity: bool = False
    needs_prior_context: bool = False
    due_cue: bool = False
    event: dict[str, str] | None = Field(default=None)


TRIGGERS = ("new_error", "strategy_failed", "returning_entity", "needs_prior_context", "due_cue")


def triggers_fired(state: DecisionState) -> tuple[str, ...]:
    """Names of the triggers set on ``state`` (empty: prior information cannot help)."""
    return tuple(name for name in TRIGGERS if getattr(state, name))


def build_query(state: DecisionState) -> str:
    """The retrieval query: goal, subtask, latest observation and entities
    (docs/spec/read-path.md#query)."""
    parts = [
        f"Goal: {state.goal}" if state.goal else "",
        f"Subtask: {state.subtask}" if state.subtask else "",
        f"Observation: {state.last_observation}" if state.last_observation else "",
        f"Entities: {', '.join(state.entities)}" if state.entities else "",
    ]
    return "\n".join(p for p in parts if p)


def search_text(state: DecisionState) -> str:
    """What the ranker searches for: the text of :func:`build_query` without its field
    labels ("Goal:", "Observation:", ...), which are no search terms; entities
    count twice, since a decision is about them."""
    entities = " ".join(state.entities)
    parts = [state.goal, state.subtask, state.last_observation, entities, entities]
    return "\n".join(p for p in parts if p)


@dataclass(frozen=True)
class MemoryConflict:
    """Candidates that assert the same key with two or more distinct values.

    Attributes:
        key: the ``asserts`` key.
        record_ids: every candidate asserting the key, sorted.
        values: the distinct asserted values, sorted.
    """

    key: str
    record_ids: tuple[str, ...]
    values: tuple[str, ...]


@dataclass(frozen=True)
class RetrievedMemory:
    """A record chosen by the read path, with its score and the reason it is shown."""

    record: MemoryRecord
    score: float
    reason: str


class Ranking(Sequence[tuple[str, float]]):
    """Every candidate's ``(id, score)``, best first (docs/spec/read-path.md#rank), as a read-only
    sequence that makes each pair when it is asked for: a read ranks every candidate (10^4
    in a large scope) and is usually asked for a few pairs, or none (the pairs
    were a tuple each, made, kept and collected on every read). Equal to any sequence of
    the same pairs (a tuple of them included), and hashable like that tuple.

    Args:
        ids: candidate ids. order: positions in ``ids``, best first. scores: the score of
            each position of ``order``, aligned with it. ``order`` and ``scores`` are
            sequences or one-dimensional numpy arrays (read as Python ints and floats).
    """

    __slots__ = ("_ids", "_order", "_scores")

    def __init__(self, ids: Sequence[str], order: Any, scores: Any) -> None:
        if len(order) != len(scores):
            raise ValueError("order and scores differ in length")
        self._ids = ids
        self._order = order
        self._scores = scores

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> tuple[str, float]: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[str, float], ...]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple(self._pairs(self._order[index], self._scores[index]))
        return (self._ids[int(self._order[index])], float(self._scores[index]))

    def __iter__(self) -> Iterator[tuple[str, float]]:
        return self._pairs(self._order, self._scores)

    def _pairs(self, order: Any, scores: Any) -> Iterator[tuple[str, float]]:
        order = order.tolist() if hasattr(order, "tolist") else order
        scores = scores.tolist() if hasattr(scores, "tolist") else scores
        return zip(map(self._ids.__getitem__, order), scores, strict=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(map(operator.eq, self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Ranking({tuple(self)!r})"


@dataclass(frozen=True)
class RetrievalTrace:
    """What the read path did and why (attribution, docs/spec/read-path.md#attribution).

    ``candidate_ids``: the candidates' ids, sorted (a read-only sequence that shares its runs
    with the answers made from it when the read path made it: equal to the tuple of the ids).
    ``ranked``: every candidate's ``(id, score)``, best first (a :class:`Ranking` when the
    read path made it; any sequence of pairs compares equal to it).
    """

    retrieval_id: str
    at: datetime
    triggered: bool
    triggers: tuple[str, ...]
    query: str
    ranker: str
    candidate_ids: Sequence[str] = ()
    ranked: Sequence[tuple[str, float]] = ()
    partner_ids: tuple[str, ...] = ()
    over_budget_ids: tuple[str, ...] = ()
    context_ids: tuple[str, ...] = ()
    budget_chars: int = 0
    spent_chars: int = 0
    notes: tuple[str, ...] = field(default=())


def detect_conflicts(
    records: Sequence[MemoryRecord],
    conflict_ids: Mapping[str, Iterable[str]] | None = None,
) -> list[MemoryConflict]:
    """Conflicts among ``records`` (all candidates, before ranking;
    docs/spec/read-path.md#conflicts).

    Args:
        records: the candidate set.
        conflict_ids: the conflict partners of each record among the candidates, as
            read from Neo4j. When given, only pairs linked there (and both in ``records``)
            count; when None, pairs are found from ``asserts``/``asserted_value`` directly.

    Returns:
        One conflict per key with two or more distinct values among the linked records.
    """
    by_id = {r.id: r for r in records}
    keyed: dict[str, set[str]] = defaultdict(set)
    if conflict_ids is None:
        values_by_key: dict[str, set[str]] = defaultdict(set)
        for r in records:
            if r.asserts is not None and r.asserted_value is not None:
                keyed[r.asserts].add(r.id)
                values_by_key[r.asserts].add(r.asserted_value)
        keyed = {k: ids for k, ids in keyed.items() if len(values_by_key[k]) > 1}
    else:
        for rid, others in conflict_ids.items():
            if rid not in by_id:
                continue
            for other in others:
                if other in by_id and by_id[other].asserts == by_id[rid].asserts:
                    key = by_id[rid].asserts
                    assert key is not None
                    keyed[key] |= {rid, other}
        # every candidate asserting a conflicted key belongs to the conflict
        for r in records:
            if r.asserts in keyed and r.asserted_value is not None:
                keyed[r.asserts].add(r.id)
    conflicts = []
    for key in sorted(keyed):
        ids = tuple(sorted(keyed[key]))
        values = tuple(sorted({v for i in ids if (v := by_id[i].asserted_value) is not None}))
        if len(values) > 1:
            conflicts.append(MemoryConflict(key=key, record_ids=ids, values=values))
    return conflicts


def conflict_components(conflicts: Sequence[MemoryConflict]) -> dict[str, frozenset[str]]:
    """Map each conflicting record id to its whole connected conflict component."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in conflicts:
        first = c.record_ids[0]
        for other in c.record_ids[1:]:
            parent[find(other)] = find(first)
        find(first)
    groups: dict[str, set[str]] = defaultdict(set)
    for x in parent:
        groups[find(x)].add(x)
    return {x: frozenset(groups[find(x)]) for x in parent}


def preserve_conflict_partners(
    ranked: Sequence[RetrievedMemory],
    candidates: Sequence[MemoryRecord],
    conflicts: Sequence[MemoryConflict],
) -> list[RetrievedMemory]:
    """Add every candidate side of a conflict that ranking kept one side of
    (docs/spec/read-path.md#partners).

    Partners join with the lowest score among the kept sides of their component, so a
    transitive component (A-B on one key, B-C on another) comes along whole.
    """
    selected = {m.record.id: m for m in ranked}
    by_id = {r.id: r for r in candidates}
    for component in _components_in_order(conflicts):
        present = [selected[i] for i in sorted(component) if i in selected]
        if not present:
            continue
        inherited = min(m.score for m in present)
        keys = sorted({c.key for c in conflicts if set(c.record_ids) & component})
        for rid in sorted(component):
            if rid not in selected and rid in by_id:
                selected[rid] = RetrievedMemory(
                    record=by_id[rid], score=inherited,
                    reason=f"conflict partner ({', '.join(keys)})",
                )
    return list(selected.values())


def _components_in_order(conflicts: Sequence[MemoryConflict]) -> list[frozenset[str]]:
    seen: list[frozenset[str]] = []
    for component in conflict_components(conflicts).values():
        if component not in seen:
            seen.append(component)
    return seen


def human_date(at: datetime) -> str:
    """``at`` as people ask about it: "Monday, 8 May 2023" (time in the text)."""
    return f"{at:%A}, {at.day} {at:%B %Y}"


def render_memory(memory: RetrievedMemory) -> str:
    """One memory as shown to a model: id, kind, source, created time (ISO and as people
    say it, so "when did ..." can be answered from the memory), content (step 8)."""
    r = memory.record
    source = r.provenance.get("source", "unknown")
    details = ", ".join(f"{k}={v}" for k, v in r.provenance.items() if k != "source")
    return "\n".join([
        f"Memory ID: {r.id}",
        f"Kind: {r.kind.value}",
        f"Source: {source}" + (f" ({details})" if details else "") + f"; authority "
        f"{r.authority.value}",
        f"Created: {r.created_at.isoformat()} ({human_date(r.created_at)})",
        f"Content: {r.content}",
    ])


SEPARATOR = "\n\n"


def render_memories(memories: Sequence[RetrievedMemory]) -> str:
    """All chosen memories, blank-line separated, in the order given."""
    return SEPARATOR.join(render_memory(m) for m in memories)
