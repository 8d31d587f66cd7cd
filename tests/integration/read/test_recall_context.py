"""Thread context in ``retrieve`` on real Neo4j: neighbours come only from eligible records."""

from __future__ import annotations

import pytest

from graphmem.client import Memory
from graphmem.errors import ValidationError
from graphmem.models import Principal, Sensitivity
from graphmem.read.steps import DecisionState
from tests.support.recall import NOW, rec

T = Principal(tenants=frozenset({"t"}))


def test_retrieve_shows_thread_context_only_from_eligible_records(memory: Memory) -> None:
    memory.put_many([rec("q", "Where did you move from?", 0),
                     rec("a", "Sweden, four years ago, with my family", 1),
                     rec("secret", "my old address was 12 Main Street", 2,
                         sensitivity=Sensitivity.RESTRICTED)])
    state = DecisionState(memory_scope={"tenant": "t"}, goal="Sweden family",
                          needs_prior_context=True)
    result = memory.retrieve(state, principal=T, now=NOW, budget_chars=10_000, ranker="bm25",
                             k=1)
    assert result.ids == ["a", "q"]  # the hit, then its eligible neighbour
    assert result.trace.context_ids == ("q",)
    assert "secret" not in result.rendered and "Main Street" not in result.rendered
    assert len(result.rendered) <= 10_000 and result.trace.spent_chars == len(result.rendered)
    bare = memory.retrieve(state, principal=T, now=NOW, budget_chars=10_000, ranker="bm25",
                           k=1, context_window=0)
    assert bare.ids == ["a"] and bare.trace.context_ids == ()
    tight = memory.retrieve(state, principal=T, now=NOW, budget_chars=len(bare.rendered),
                            ranker="bm25", k=1)
    assert tight.ids == ["a"]
    with pytest.raises(ValidationError):
        memory.retrieve(state, principal=T, now=NOW, context_window=-1)


