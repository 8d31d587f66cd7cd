"""Episodes in sequence on real Neo4j: thread positions, NEXT edges, and an answer found
through its thread."""

from __future__ import annotations

import pytest

from graphmem.client import Memory, store_of
from graphmem.errors import ValidationError
from graphmem.models import Principal
from graphmem.read.steps import DecisionState
from tests.support.threads import NOW, turn


def next_edges(memory: Memory) -> list[tuple[str, str]]:
    with store_of(memory).driver.session(database=store_of(memory).database) as session:
        rows = session.run("MATCH (a:Record)-[:NEXT]->(b:Record) RETURN a.id AS a, b.id AS b "
                           "ORDER BY a").data()
    return [(r["a"], r["b"]) for r in rows]


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


