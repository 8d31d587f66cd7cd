"""What GraphmemStore's semantic search guarantees beyond LangGraph's contract: bad index
configs and bad embeddings are typed errors with nothing written, stores of other dimensions
share a database, embeddings stay with their version, and the vector index's path (large
prefixes) gives the exact path's page: eligibility, prefix and filters exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest
from langgraph.store.base import PutOp

from graphmem import Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.db.ops import langgraph_vectors
from graphmem.integrations.langgraph import EmbeddingError, GraphmemStore
from tests.support.embeddings import DIMS, embed, embed_text

PRINCIPAL = Principal(tenants=frozenset({"docs"}))
NS = ("docs", "v")


def store(memory: Memory, **index: Any) -> GraphmemStore:
    config: Any = {"dims": DIMS, "embed": embed, "fields": ["text"], **index}
    return GraphmemStore(memory, principal=PRINCIPAL, index=config)


@pytest.mark.parametrize("config", [
    {"dims": 0, "embed": embed}, {"dims": True, "embed": embed}, {"dims": "64", "embed": embed},
    {"dims": 5000, "embed": embed}, {"embed": embed}, {"dims": DIMS},
    {"dims": DIMS, "embed": 42}, {"dims": DIMS, "embed": embed, "fields": "", "x": 1},
    {"dims": DIMS, "embed": embed, "fields": [""]},
    {"dims": DIMS, "embed": embed, "fields": [1]},
    {"dims": DIMS, "embed": embed, "distance_type": "l2"},
    {"dims": DIMS, "embed": "openai:text-embedding-3-small"},  # needs langchain: not installed
    ["dims", DIMS],
])
def test_bad_configs_are_validation_errors(memory: Memory, config: Any) -> None:
    with pytest.raises(ValidationError):
        GraphmemStore(memory, principal=PRINCIPAL, index=config)


def _failing(texts: Sequence[str]) -> list[list[float]]:
    raise RuntimeError("the model is down")


@pytest.mark.parametrize(("embed_fn", "query_fails"), [
    (_failing, True),
    (lambda texts: [[1.0] * (DIMS - 1) for _ in texts], True),  # wrong length
    (lambda texts: [[1.0] * DIMS], False),  # one vector for two texts (a query is one)
    (lambda texts: [[math.nan] * DIMS for _ in texts], True),
    (lambda texts: [["a"] * DIMS for _ in texts], True),
    (lambda texts: None, True),
])
def test_bad_embeddings_are_typed_and_write_nothing(memory: Memory, embed_fn: Any,
                                                    query_fails: bool) -> None:
    bad = GraphmemStore(memory, principal=PRINCIPAL,
                        index={"dims": DIMS, "embed": embed_fn, "fields": ["a", "b"]})
    with pytest.raises(EmbeddingError):
        bad.put(NS, "k", {"a": "one", "b": "two"})
    assert bad.get(NS, "k") is None
    if query_fails:
        with pytest.raises(EmbeddingError):
            bad.search(NS, query="one")
    bad.put(NS, "plain", {"a": "one"}, index=False)  # nothing to embed: written
    assert bad.get(NS, "plain") is not None


def test_stores_of_other_dimensions_share_a_database(memory: Memory) -> None:
    small = GraphmemStore(memory, principal=PRINCIPAL, index={
        "dims": 3, "embed": lambda texts: [[1.0, float(len(t)), 0.0] for t in texts],
        "fields": ["text"]})
    big = store(memory)
    small.put(NS, "s", {"text": "abc"})
    big.put(NS, "b", {"text": "red bicycle"})
    assert [(i.key, i.score is None) for i in big.search(NS, query="red bicycle")] == [
        ("b", False), ("s", True)]  # the other model's vectors are not comparable
    assert [(i.key, i.score is None) for i in small.search(NS, query="abc")] == [
        ("s", False), ("b", True)]
    assert small.search(NS, query="abc")[0].score == pytest.approx(1.0)


def test_embeddings_stay_with_their_version(memory: Memory) -> None:
    s = store(memory)
    s.put(NS, "k", {"text": "red bicycle"})
    s.put(NS, "k", {"text": "green tea"})
    versions = s.record_ids(NS, "k")
    assert len(versions) == 2
    assert [i.score for i in s.search(NS, query="green tea")] == [pytest.approx(1.0)]
    assert s.search(NS, query="red bicycle")[0].score == pytest.approx(0.0)  # not the old one
    s.delete(NS, "k")
    assert s.search(NS, query="green tea") == []


def test_erasure_deletes_the_embeddings(memory: Memory) -> None:
    s = store(memory, fields=["text", "tags[*]"])
    s.put(NS, "k", {"text": "red bicycle", "tags": ["a", "b"]})
    s.put(NS, "k", {"text": "green tea"})
    s.put(NS, "other", {"text": "blue sky"}, index=False)
    versions = s.record_ids(NS, "k") + s.record_ids(NS, "other")
    assert langgraph_vectors.vector_counts(store_of(memory), versions) == {
        versions[0]: 3, versions[1]: 1, versions[2]: 0}  # each version keeps its own
    plan = memory.plan_deletion(subject={"tenant": "docs"}, requested_by="dpo",
                                reason="erasure")
    memory.apply_deletion(plan)
    assert langgraph_vectors.vector_counts(store_of(memory), versions) == dict.fromkeys(
        versions, 0)
    assert s.search(NS, query="green tea") == []


def _fill(s: GraphmemStore, n: int) -> list[str]:
    words = ["red", "green", "blue", "tea", "bicycle", "cat", "work", "fast", "slow", "sun"]
    texts = [f"{words[i % 10]} {words[(i * 3 + 1) % 10]} {words[(i * 7 + 2) % 10]} n{i}"
             for i in range(n)]
    for start in range(0, n, 50):
        s.batch([_put(f"k{i:03d}", {"text": texts[i], "i": i, "even": i % 2 == 0})
                 for i in range(start, min(start + 50, n))])
    return texts


def _put(key: str, value: dict[str, Any]) -> PutOp:
    return PutOp(NS, key, value)


@pytest.mark.parametrize(("filter_", "offset", "limit"), [
    (None, 0, 10), (None, 7, 5), ({"even": True}, 0, 10), ({"i": {"$gte": 110}}, 2, 20),
    ({"i": 3}, 0, 10), ({"even": True, "i": {"$lt": 4}}, 0, 10),
])
def test_the_index_path_gives_the_exact_page(memory: Memory, monkeypatch: pytest.MonkeyPatch,
                                             filter_: Any, offset: int, limit: int) -> None:
    s = store(memory)
    texts = _fill(s, 120)
    s.delete(NS, "k005")  # a deleted item is never returned
    s.put(NS, "k006", {"text": "purple", "i": 6, "even": True})  # only its new version
    query = "red bicycle work"
    exact = s.search(NS, query=query, filter=filter_, offset=offset, limit=limit)
    calls: list[str] = []
    read_once = store_of(memory).read_once

    def counting(name: str, **params: Any) -> Any:
        calls.append(name)
        return read_once(name, **params)

    eligible = len(s.search(NS, filter=filter_, limit=1000))
    monkeypatch.setattr(langgraph_vectors, "EXACT_CAP", 3)
    monkeypatch.setattr(langgraph_vectors, "MIN_K", 8)
    monkeypatch.setattr(store_of(memory), "read_once", counting)
    through_index = s.search(NS, query=query, filter=filter_, offset=offset, limit=limit)
    assert ("langgraph/vectors/nearest" in calls) == (eligible > 3)
    assert [(i.key, i.value) for i in through_index] == [(i.key, i.value) for i in exact]
    assert [i.score for i in through_index] == pytest.approx([i.score for i in exact])
    assert "k005" not in [i.key for i in through_index]
    assert all(i.value != {"text": texts[6], "i": 6, "even": True} for i in through_index)
    q = embed_text(query)
    for item in exact:  # and the exact page is the cosine ranking
        v = embed_text(item.value["text"])
        cos = sum(a * b for a, b in zip(q, v, strict=True)) / math.sqrt(
            sum(a * a for a in q) * sum(b * b for b in v))
        assert item.score == pytest.approx(cos, abs=1e-6)
    scores = [i.score for i in exact if i.score is not None]
    assert len(scores) == len(exact) and scores == sorted(scores, reverse=True)
