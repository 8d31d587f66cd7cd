"""What a put embeds is what LangGraph's own ``InMemoryStore`` embeds (same fields, same
texts, same names), for any value and paths; a batch's embeddings are computed once per
distinct text, and an embedding function's failures and misfits are typed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.base import PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from graphmem.errors import GraphmemError, ValidationError
from graphmem.integrations.langgraph.vectors import EmbeddingError, VectorIndex, texts_to_embed
from tests.support.sizes import size

KEYS = st.sampled_from(["a", "b", "text", "tags"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["", "x y"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)
PATHS = st.sampled_from(["$", "a", "text", "a.b", "tags[*]", "tags[0]", "tags[-1]", "*",
                         "a.*", "tags[*].text", "{a,text}", "{a.b,tags}", "missing"])


def _ones(texts: Sequence[str]) -> list[list[float]]:
    return [[1.0, float(len(t))] for t in texts]


def _reference(value: dict[str, Any], fields: list[str], index: Any) -> set[tuple[str, str]]:
    """(field name, text) pairs InMemoryStore would embed for this put."""
    store = InMemoryStore(index={"dims": 2, "embed": _ones, "fields": fields})
    op = PutOp(("ns",), "k", value, index=index)
    found = store._extract_texts({(("ns",), "k"): op})
    return {(path, text) for text, where in found.items() for _, _, path in where}


@settings(max_examples=size(100, 300), deadline=None)
@given(value=st.dictionaries(KEYS, VALUES, max_size=4),
       fields=st.lists(PATHS, min_size=1, max_size=3, unique=True),
       index=st.one_of(st.none(), st.just(False), st.lists(PATHS, max_size=2, unique=True)))
def test_a_put_embeds_what_inmemorystore_embeds(value: dict[str, Any], fields: list[str],
                                                index: Any) -> None:
    vectors = VectorIndex({"dims": 2, "embed": _ones, "fields": fields})
    mine = texts_to_embed(PutOp(("ns",), "k", value, index=index), vectors.fields)
    assert set(mine) == _reference(value, fields, index)
    assert len({name for name, _ in mine}) == len(mine)  # one vector per field name


def test_distinct_texts_are_embedded_once() -> None:
    calls: list[list[str]] = []

    def embed(texts: Sequence[str]) -> list[list[float]]:
        calls.append(list(texts))
        return _ones(texts)

    vectors = VectorIndex({"dims": 2, "embed": embed, "fields": ["a", "b"]})
    done = vectors.embed([PutOp(("ns",), "k1", {"a": "same", "b": "other"}),
                          PutOp(("ns",), "k2", {"a": "same"}),
                          PutOp(("ns",), "k3", {"a": "x"}, index=False)],
                         [SearchOp(("ns",), query="q"), SearchOp(("ns",), query="q")])
    assert calls == [["same", "other"], ["q"]]
    assert done.puts == {(("ns",), "k1"): [("a", [1.0, 4.0]), ("b", [1.0, 5.0])],
                         (("ns",), "k2"): [("a", [1.0, 4.0])], (("ns",), "k3"): []}
    assert done.queries == {"q": [1.0, 1.0]}


def test_an_async_function_serves_sync_and_async_callers() -> None:
    async def aembed(texts: Sequence[str]) -> list[list[float]]:
        return _ones(texts)

    vectors = VectorIndex({"dims": 2, "embed": aembed})
    put = PutOp(("ns",), "k", {"a": 1})
    expected = {(("ns",), "k"): [("$", [1.0, float(len('{"a": 1}'))])]}
    assert vectors.embed([put], []).puts == expected
    assert asyncio.run(vectors.aembed([put], [])).puts == expected

    async def sync_call_inside_a_loop() -> None:
        with pytest.raises(EmbeddingError):
            vectors.embed([put], [])

    asyncio.run(sync_call_inside_a_loop())


@pytest.mark.parametrize("embed", [
    lambda texts: [[1.0]] * len(texts),
    lambda texts: [[1.0, 2.0]],
    lambda texts: [[float("inf"), 1.0] for _ in texts],
    lambda texts: [[None, 1.0] for _ in texts],
    lambda texts: 3,
])
def test_misfit_vectors_are_embedding_errors(embed: Any) -> None:
    vectors = VectorIndex({"dims": 2, "embed": embed, "fields": ["a", "b"]})
    with pytest.raises(EmbeddingError):
        vectors.embed([PutOp(("ns",), "k", {"a": "one", "b": "two"})], [])
    assert issubclass(EmbeddingError, GraphmemError)


def test_a_failing_function_is_an_embedding_error_with_its_cause() -> None:
    def broken(texts: Sequence[str]) -> list[list[float]]:
        raise ConnectionError("model offline")

    vectors = VectorIndex({"dims": 2, "embed": broken})
    with pytest.raises(EmbeddingError) as caught:
        vectors.embed([], [SearchOp(("ns",), query="q")])
    assert isinstance(caught.value.__cause__, ConnectionError)


@pytest.mark.parametrize("config", [
    None, {"dims": 2}, {"dims": -1, "embed": _ones}, {"dims": 2.0, "embed": _ones},
    {"dims": 2, "embed": _ones, "fields": {"a": 1}}, {"dims": 2, "embed": _ones, "k": 1},
    {"dims": 2, "embed": "no-such-provider:model"},
])
def test_bad_configs_are_validation_errors(config: Any) -> None:
    with pytest.raises(ValidationError):
        VectorIndex(config)


def test_the_config_is_kept_with_langgraphs_tokenized_fields() -> None:
    vectors = VectorIndex({"dims": 2, "embed": _ones, "fields": "a.b[*]"})
    assert vectors.config["fields"] == ["a.b[*]"]
    assert vectors.config["__tokenized_fields"] == [("a.b[*]", ["a", "b", "[*]"])]
    assert VectorIndex({"dims": 2, "embed": _ones}).fields == [("$", "$")]
