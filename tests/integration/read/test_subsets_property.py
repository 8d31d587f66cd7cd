"""Retrieve computes conflicts and partners from the asserting candidates only, and thread
context from the hits' threads only: property test that its conflicts, partners
and context equal what the computation over every candidate gives."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.read.budget import fit_context
from graphmem.read.context import thread_context
from graphmem.read.rankers import get_ranker, order_by_score
from graphmem.read.steps import (
    SEPARATOR,
    DecisionState,
    RetrievedMemory,
    detect_conflicts,
    preserve_conflict_partners,
    render_memory,
    search_text,
)
from tests.support.database import wipe
from tests.support.record_sets import T0

AT = T0 + timedelta(days=1)
READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
SCOPE = {"tenant": "a"}
STATE = {"memory_scope": SCOPE, "goal": "refund policy Melanie", "needs_prior_context": True}

_record = st.tuples(st.sampled_from(["refund policy", "Melanie paints", "weather", "refund"]),
                    st.sampled_from([None, "k1", "k2"]), st.sampled_from(["x", "y"]),
                    st.sampled_from([None, "t1", "t2"]), st.integers(0, 4))


def _records(rows: list[tuple[str, str | None, str, str | None, int]]) -> list[MemoryRecord]:
    return [MemoryRecord(id=f"r{i:02d}", kind=MemoryKind.EPISODIC, content=f"{c} {i}",
                         created_at=T0, scope=SCOPE, asserts=key,
                         asserted_value=value if key else None, thread=thread,
                         position=i + pos * 100 if thread else None)
            for i, (c, key, value, thread, pos) in enumerate(rows)]


@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(_record, min_size=1, max_size=14), k=st.integers(1, 4),
       budget=st.integers(0, 400))
def test_conflicts_partners_and_context_equal_the_full_computation(
        memory: Memory, rows: list[tuple[str, str | None, str, str | None, int]], k: int,
        budget: int) -> None:
    wipe(memory)
    memory.put_many(_records(rows))
    result = memory.retrieve(STATE, principal=READER, now=AT, budget_chars=budget, k=k)
    found = store_of(memory).candidates(READER, SCOPE, AT)
    records = [c.record for c in found]
    conflicts = detect_conflicts(records, {c.record.id: c.conflict_ids
                                           for c in found if c.conflict_ids})
    assert list(result.conflicts) == conflicts
    ranker = get_ranker(None)
    ordered = order_by_score(records, ranker.score(search_text(memory_state()), records))
    kept = [RetrievedMemory(r, s, f"{ranker.name} score {s:.3f}")
            for r, s in ordered if s > 0][:k]
    partners = preserve_conflict_partners(kept, records, conflicts)
    fit = fit_context(partners, budget_chars=budget, conflicts=conflicts)
    context = thread_context(fit.chosen, records, budget_chars=budget,
                             spent_chars=len(fit.rendered), window=1,
                             exclude={i for c in conflicts for i in c.record_ids} | set(fit.over))
    assert [(m.record.id, m.reason) for m in result.memories] == \
        [(m.record.id, m.reason) for m in [*fit.chosen, *context]]
    assert result.rendered == SEPARATOR.join([*fit.blocks, *map(render_memory, context)])
    assert len(result.rendered) <= budget


def memory_state() -> DecisionState:
    from graphmem.read.pipeline import coerce_state
    return coerce_state(STATE)
