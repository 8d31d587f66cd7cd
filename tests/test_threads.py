"""Episodes in sequence: thread positions, NEXT edges, neighbour-aware ranking."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.errors import ValidationError
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.read.rankers import BM25Ranker
from graphmem.read.steps import DecisionState, build_query, search_text
from graphmem.read.threads import neighbours

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)


def turn(rid: str, content: str, position: int | None, thread: str | None = "chat-1",
         **over: Any) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.EPISODIC, content=content, created_at=T0,
                        scope={"tenant": "t"}, provenance={"source": "chat"},
                        thread=thread, position=position, **over)


def next_edges(memory: Memory) -> list[tuple[str, str]]:
    with store_of(memory).driver.session(database=store_of(memory).database) as session:
        rows = session.run("MATCH (a:Record)-[:NEXT]->(b:Record) RETURN a.id AS a, b.id AS b "
                           "ORDER BY a").data()
    return [(r["a"], r["b"]) for r in rows]


def test_thread_and_position_go_together() -> None:
    with pytest.raises(ValueError, match="together"):
        turn("x", "hello", None)
    with pytest.raises(ValueError):
        turn("x", "hello", -1)
    with pytest.raises(ValueError, match="together"):
        turn("x", "hello", 3, thread=None)


def test_next_links_neighbours_in_position_order(memory: Memory) -> None:
    memory.put_many([turn("c", "third", 5), turn("a", "first", 1), turn("other", "x", 0,
                                                                         thread="chat-2")])
    assert next_edges(memory) == [("a", "c")]
    memory.put(turn("b", "second", 3))  # lands between a and c
    assert next_edges(memory) == [("a", "b"), ("b", "c")]
    # a record re-written identically is a no-op; the chain stays
    memory.put(turn("b", "second", 3))
    assert next_edges(memory) == [("a", "b"), ("b", "c")]


def test_a_taken_position_is_rejected_and_nothing_written(memory: Memory) -> None:
    memory.put(turn("a", "first", 1))
    with pytest.raises(ValidationError, match="taken"):
        memory.put_many([turn("new", "fresh", 2), turn("dup", "clash", 1)])
    with pytest.raises(ValidationError, match="twice"):
        memory.put_many([turn("p", "one", 7), turn("q", "two", 7)])
    assert store_of(memory).get_many(["new", "dup", "p", "q"]) == {}


def test_neighbours_skip_what_is_not_a_candidate() -> None:
    recs = [turn("a", "x", 0), turn("c", "x", 4), turn("solo", "x", None, thread=None),
            turn("b", "x", 2)]
    assert neighbours(recs, 1) == [[3], [3], [], [0, 1]]
    assert neighbours(recs, 2)[0] == [3, 1]


def test_a_neighbour_lends_its_words_at_lower_weight() -> None:
    recs = [turn("q", "What should we name the new puppy?", 0),
            turn("ans", "Let's call him Biscuit", 1),
            turn("far", "The weather is nice", 5, thread="chat-3"),
            turn("other", "We adopted a puppy named Rex", 0, thread="chat-2")]
    plain = BM25Ranker().score("name of the new puppy", recs)
    threaded = BM25Ranker(window=1, context_weight=1.0, propagate=0.3).score(
        "name of the new puppy", recs)
    assert plain[1] == 0 and threaded[1] > 0  # the answer is found through its question
    assert threaded[2] == 0
    assert threaded[0] > threaded[1]  # the record's own words still count most


def test_labels_are_not_search_terms() -> None:
    state = DecisionState(memory_scope={"tenant": "t"}, goal="renew the goal certificate",
                          last_observation="expired", entities=("acme",),
                          needs_prior_context=True)
    assert "Goal:" in build_query(state)
    text = search_text(state)
    assert "Goal" not in text and "Observation" not in text and "Entities" not in text
    assert "goal certificate" in text and "acme" in text
    recs = [turn("label", "Goal: Observation: Entities: Subtask:", None, thread=None),
            turn("real", "the certificate expired", None, thread=None)]
    scores = BM25Ranker().score(search_text(state.model_copy(update={"goal": "x"})), recs)
    assert scores[0] == 0 and scores[1] > 0


def test_retrieve_finds_an_answer_through_its_thread(memory: Memory) -> None:
    memory.put_many([turn("q", "What should we name the new puppy?", 0),
                     turn("ans", "Let's call him Biscuit", 1),
                     turn("x", "Unrelated chatter about lunch", 9)])
    result = memory.retrieve(
        DecisionState(memory_scope={"tenant": "t"}, goal="puppy name", needs_prior_context=True),
        principal=Principal(tenants=frozenset({"t"})), now=NOW, budget_chars=10_000)
    ranked = [rid for rid, score in result.trace.ranked if score > 0]
    assert ranked[:2] == ["q", "ans"]
    assert "Goal: puppy name" in result.trace.query


def test_rendered_memory_says_the_date_as_people_ask() -> None:
    from graphmem.read.steps import RetrievedMemory, human_date, render_memory

    r = MemoryRecord(
        id="d", kind=MemoryKind.EPISODIC, content="went hiking", scope={"tenant": "t"},
        created_at=datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    assert human_date(r.created_at) == "Monday, 8 May 2023"
    assert "(Monday, 8 May 2023)" in render_memory(RetrievedMemory(r, 1.0, "test"))


def test_hybrid_fusion_keeps_a_strong_lexical_margin() -> None:
    from graphmem.read.rankers import HybridRanker

    class Fixed:
        def __init__(self, name: str, scores: list[float]) -> None:
            self.name, self.scores = name, scores

        def score(self, query: str, records: Any) -> list[float]:
            return list(self.scores)

    recs = [turn(f"r{i}", "x", i) for i in range(3)]
    lex, sem = Fixed("lex", [10.0, 1.0, 0.0]), Fixed("sem", [0.5, 0.6, 0.0])
    fused = HybridRanker(lex, sem).score("q", recs)
    assert fused[0] > fused[1] > fused[2] == 0
    assert fused[0] == pytest.approx(1.0 + 0.5 / 0.6)
    rrf = HybridRanker(lex, sem, fusion="rrf").score("q", recs)
    assert rrf[0] == pytest.approx(rrf[1]) and rrf[2] == 0
    with pytest.raises(ValidationError):
        HybridRanker(lex, sem, fusion="max")
