"""Semantic search (``index=``) of LangGraph's ``BaseStore`` contract, written out as
assertions and run with the same assertions and the same deterministic embeddings
(tests/support/embeddings.py) on LangGraph's ``InMemoryStore`` and on ``GraphmemStore`` over
the real Neo4j: which fields are embedded, ranking and scores (the best cosine of an item's
vectors), ``index=False`` and per-put field lists, filters and paging with a query, and a
query on a store without an index. The expected order and scores are computed here from the
embedding, not read from either store. Deliberate differences: ``DIFFERENCES``
(tests/support/langgraph_contract.py).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langgraph.store.base import BaseStore, IndexConfig, SearchItem
from langgraph.store.memory import InMemoryStore

from graphmem import Memory, Principal
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.embeddings import DIMS, embed, embed_text
from tests.support.langgraph_contract import differs, keys

TENANTS = frozenset({"docs", "users"})
NS = ("docs", "notes")


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine similarity of two vectors (LangGraph's score)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def best(query: str, *texts: str) -> float:
    """An item's expected score: the best cosine of its embedded texts to the query."""
    return max(cosine(embed_text(query), embed_text(t)) for t in texts)


def make(kind: str, memory: Memory | None, index: IndexConfig | None) -> BaseStore:
    """The store under the contract, with ``index``."""
    if kind == "InMemoryStore":
        return InMemoryStore(index=index)
    assert memory is not None
    return GraphmemStore(memory, principal=Principal(tenants=TENANTS), index=index)


@pytest.fixture(params=["InMemoryStore", "GraphmemStore"])
def kind(request: pytest.FixtureRequest) -> Iterator[tuple[str, Memory | None]]:
    """Which store, and (for graphmem) a connected client on an empty database."""
    if request.param == "InMemoryStore":
        yield request.param, None
        return
    yield request.param, request.getfixturevalue("memory")


def index(fields: list[str] | None = None) -> IndexConfig:
    config: IndexConfig = {"dims": DIMS, "embed": embed}
    if fields is not None:
        config["fields"] = fields
    return config


def scored(items: list[SearchItem]) -> list[tuple[str, float | None]]:
    return [(i.key, i.score) for i in items]


def assert_scores(found: list[SearchItem],
                  expected: Sequence[tuple[str, float | None]]) -> None:
    assert keys(found) == [k for k, _ in expected]
    for item, (_, score) in zip(found, expected, strict=True):
        if score is None:
            assert item.score is None
        else:
            assert item.score == pytest.approx(score, abs=1e-6)


DOCS: list[tuple[str, dict[str, Any]]] = [
    ("tea", {"text": "green tea every morning", "kind": "drink", "n": 1}),
    ("bike", {"text": "a red bicycle for work", "kind": "thing", "n": 2}),
    ("cat", {"text": "a red cat called Miso", "kind": "pet", "n": 3}),
    ("car", {"text": "my red car is fast", "kind": "thing", "n": 4}),
    ("coffee", {"text": "black coffee at work", "kind": "drink", "n": 5}),
]


def _fill(store: BaseStore) -> None:
    for key, value in DOCS:
        store.put(NS, key, value)


def _ranking(query: str) -> list[tuple[str, float]]:
    """The DOCS ranked for ``query`` on the field "text": best score first, ties in
    insertion order."""
    scores = [(key, best(query, value["text"])) for key, value in DOCS]
    return sorted(scores, key=lambda pair: -pair[1])


def test_index_config_is_kept(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text", "meta.title"]))
    config = getattr(store, "index_config", None)
    assert config is not None and config["dims"] == DIMS
    assert config["fields"] == ["text", "meta.title"]
    assert getattr(make(*kind, None), "index_config", None) is None


def test_query_ranks_by_cosine_with_scores(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    _fill(store)
    expected = _ranking("red bicycle at work")
    assert [k for k, _ in expected][:2] == ["bike", "coffee"]  # the embedding is meaningful
    assert_scores(store.search(("docs",), query="red bicycle at work", limit=10), expected)
    assert_scores(store.search(NS, query="red car", limit=1),
                  [("car", best("red car", "my red car is fast"))])
    assert store.search(("users",), query="red car") == []


def test_query_with_filters(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    _fill(store)
    query = "red bicycle at work"
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({"kind": "thing"}, {"bike", "car"}),
        ({"n": {"$gte": 3}}, {"cat", "car", "coffee"}),
        ({"kind": {"$ne": "thing"}, "n": {"$lt": 5}}, {"tea", "cat"}),
        ({"kind": "nothing"}, set())]
    for filter_, kept in cases:
        expected = [(k, s) for k, s in _ranking(query) if k in kept]
        assert_scores(store.search(NS, query=query, filter=filter_), expected)


def test_query_paging(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    _fill(store)
    query = "red cat at work"
    whole = _ranking(query)
    pages = [scored(store.search(NS, query=query, limit=2, offset=o)) for o in (0, 2, 4)]
    assert [k for page in pages for k, _ in page] == [k for k, _ in whole]
    assert keys(store.search(NS, query=query, limit=1, offset=3)) == [whole[3][0]]
    assert store.search(NS, query=query, limit=0) == []
    assert keys(store.search(NS, query=query, limit=2, offset=1,
                             filter={"kind": "thing"})) == [
        [k for k, _ in whole if k in ("bike", "car")][1]]


def test_fields_choose_what_is_embedded(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["title", "tags[*]", "meta.lang"]))
    store.put(NS, "a", {"title": "garden party", "tags": ["roses", "tulips"],
                        "meta": {"lang": "english"}, "body": "violin concert"})
    store.put(NS, "b", {"title": "violin concert", "tags": ["music"], "body": "roses"})
    store.put(NS, "c", {"body": "tulips garden party violin"})  # no field: no vector
    found = store.search(NS, query="tulips", limit=10)
    assert_scores(found[:2], [("a", best("tulips", "garden party", "roses", "tulips",
                                          "english")),
                              ("b", best("tulips", "violin concert", "music"))])
    assert found[0].score == pytest.approx(1.0)  # "tulips" is one of a's tag vectors
    assert scored(found[2:]) == [("c", None)]  # an item without a vector fills the page


def test_default_field_is_the_whole_value(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index())
    store.put(NS, "a", {"text": "tea", "extra": "kettle"})
    store.put(NS, "b", {"text": "coffee"})
    found = store.search(NS, query="kettle", limit=10)
    assert keys(found) == ["a", "b"]
    assert found[0].score == pytest.approx(best("kettle", '{"extra": "kettle", "text": "tea"}'))


def test_index_false_and_per_put_fields(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    store.put(NS, "plain", {"text": "red bicycle"}, index=False)
    store.put(NS, "body", {"text": "green tea", "body": "red bicycle"}, index=["body"])
    store.put(NS, "text", {"text": "a red kite", "body": "red bicycle"})
    found = store.search(NS, query="red bicycle", limit=10)
    assert_scores(found, [("body", 1.0), ("text", best("red bicycle", "a red kite")),
                          ("plain", None)])
    item = store.get(NS, "plain")  # stored and found by key and filter, only not embedded
    assert item is not None and item.value == {"text": "red bicycle"}
    assert keys(store.search(NS, filter={"text": "red bicycle"})) == ["plain"]


def test_unscored_items_follow_the_scored_ones(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    store.put(NS, "u1", {"other": "x"})
    store.put(NS, "s1", {"text": "red"})
    store.put(NS, "u2", {"other": "y"})
    store.put(NS, "s2", {"text": "red blue"})
    assert keys(store.search(NS, query="red", limit=3)) == ["s1", "s2", "u1"]
    assert keys(store.search(NS, query="red", limit=2, offset=1)) == ["s2", "u1"]
    past = keys(store.search(NS, query="red", limit=2, offset=3))
    if differs(store, "unscored_paged"):
        assert past == ["u2"]
    else:
        assert past == ["u1", "u2"]  # the first unscored items again


def test_overwrite_embeds_the_new_value(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, index(["text"]))
    store.put(NS, "k", {"text": "red bicycle"})
    store.put(NS, "other", {"text": "blue bicycle"})
    store.put(NS, "k", {"text": "green tea"})
    assert keys(store.search(NS, query="green tea", limit=1)) == ["k"]
    assert store.search(NS, query="green tea", limit=1)[0].score == pytest.approx(1.0)
    store.put(NS, "k", {"text": "red bicycle"}, index=False)
    found = scored(store.search(NS, query="red bicycle", limit=10))
    assert found[0][0] == "other"
    assert found[0][1] == pytest.approx(best("red bicycle", "blue bicycle"))
    assert found[1][0] == "k"
    if differs(store, "vectors_per_version"):
        assert found[1][1] is None  # its live version has no vector
    else:  # still scored by the vector of "green tea", a value it no longer holds
        assert found[1][1] == pytest.approx(best("red bicycle", "green tea"))
    store.delete(NS, "other")
    assert "other" not in keys(store.search(NS, query="blue bicycle", limit=10))


def test_query_without_an_index(kind: tuple[str, Memory | None]) -> None:
    store = make(*kind, None)
    _fill(store)
    store.put(NS, "extra", {"text": "red bicycle"}, index=["text"])  # ignored: no index
    found = store.search(NS, query="red bicycle", limit=3)
    if differs(store, "query_ranked_without_index"):
        assert found[0].key == "extra" and found[0].score is not None
    else:
        assert keys(found) == ["tea", "bike", "cat"] and found[0].score is None


def test_async_embeddings_and_asearch(kind: tuple[str, Memory | None]) -> None:
    async def aembed(texts: Sequence[str]) -> list[list[float]]:
        return embed(texts)

    store = make(*kind, {"dims": DIMS, "embed": aembed, "fields": ["text"]})

    async def run() -> None:
        for key, value in DOCS:
            await store.aput(NS, key, value)
        expected = _ranking("black coffee")
        assert_scores(await store.asearch(NS, query="black coffee"), expected)

    asyncio.run(run())
