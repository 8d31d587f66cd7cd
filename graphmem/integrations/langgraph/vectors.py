"""Semantic search of :class:`~.store.GraphmemStore`: LangGraph's ``IndexConfig`` checked, its
embeddings resolved with LangGraph's own helpers, and the texts of a put chosen and embedded
exactly as LangGraph's ``InMemoryStore`` and ``PostgresStore`` choose them
(docs/integrations/langgraph.md, "Semantic search").

What gets embedded: for each put whose ``index`` is not False, each path of ``put(...,
index=[...])`` when given, else of the config's ``fields`` (default ``["$"]``, the whole value
as sorted JSON); each path is tokenized by LangGraph's ``tokenize_path`` and read by its
``get_text_at_path``, and a path that yields several texts (``"tags[*]"``) gives one vector per
text, named ``path.0``, ``path.1``... An item's score for a query is the best cosine similarity
of its vectors (LangGraph's max pooling).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    IndexConfig,
    PutOp,
    SearchOp,
    ensure_embeddings,
    get_text_at_path,
    tokenize_path,
)
from langgraph.store.base.embed import EmbeddingsLambda

from graphmem.errors import GraphmemError, ValidationError

__all__ = ["Embedded", "EmbeddingError", "VectorIndex", "texts_to_embed"]

#: The keys of an index config this store reads (``distance_type``: PostgresStore's key,
#: accepted when it says "cosine", the one similarity served).
_KEYS = frozenset({"dims", "embed", "fields", "distance_type"})
#: The most dimensions a vector may have (Neo4j's vector index takes up to 4096).
MAX_DIMS = 4096

#: One vector to write: (field name, vector).
Vector = tuple[str, list[float]]


class EmbeddingError(GraphmemError):
    """The store's embedding function failed, or returned vectors that do not fit its index
    (another count than the texts given, another length than ``dims``, a value that is not a
    finite number). Nothing was read or written; the embedder's own exception is chained."""


@dataclass(frozen=True)
class Embedded:
    """A batch's embeddings, computed before anything is read or written: the vector of
    each search query (by query text) and the vectors of each put (by namespace and key)."""

    queries: dict[str, list[float]] = field(default_factory=dict)
    puts: dict[tuple[tuple[str, ...], str], list[Vector]] = field(default_factory=dict)


def texts_to_embed(op: PutOp, fields: Sequence[tuple[str, Any]]) -> list[tuple[str, str]]:
    """``(field name, text)`` pairs a put embeds (none for a delete or ``index=False``), as
    LangGraph's stores choose them: ``fields`` are the config's tokenized fields, replaced by
    ``op.index`` when that is a list."""
    if op.value is None or op.index is False:
        return []
    paths = fields if op.index is None else [(ix, tokenize_path(ix)) for ix in op.index]
    pairs: list[tuple[str, str]] = []
    for path, tokens in paths:
        texts = get_text_at_path(op.value, tokens)
        if len(texts) > 1:
            pairs += [(f"{path}.{i}", text) for i, text in enumerate(texts)]
        elif texts:
            pairs.append((path, texts[0]))
    return pairs


class VectorIndex:
    """A store's checked ``IndexConfig`` and its embeddings.

    Args:
        config: LangGraph's ``IndexConfig``: ``dims`` (an int in 1..4096), ``embed`` (a
            LangChain ``Embeddings``, a sync or async function of a list of texts, or a
            ``"provider:model"`` string resolved by LangGraph's ``ensure_embeddings``, which
            needs ``langchain`` and the provider's package), ``fields`` (paths in LangGraph's
            path syntax, default ``["$"]``), optionally ``distance_type="cosine"``.

    Raises:
        ValidationError: not a dict, an unknown key, ``dims`` missing or out of range,
            ``embed`` missing or not resolvable, ``fields`` not a list of non-empty strings,
            or another ``distance_type`` than cosine.
    """

    def __init__(self, config: IndexConfig | Mapping[str, Any]) -> None:
        if not isinstance(config, Mapping):
            raise ValidationError("index must be a dict (LangGraph's IndexConfig)")
        unknown = sorted(str(k) for k in config if k not in _KEYS)
        if unknown:
            raise ValidationError(f"unknown index settings {unknown}; supported: "
                                  f"{sorted(_KEYS)}")
        dims = config.get("dims")
        if isinstance(dims, bool) or not isinstance(dims, int) or not 0 < dims <= MAX_DIMS:
            raise ValidationError(f"index dims must be an int in 1..{MAX_DIMS}, got {dims!r}")
        if config.get("distance_type", "cosine") != "cosine":
            raise ValidationError("only distance_type 'cosine' is supported")
        fields = config.get("fields") or ["$"]
        if isinstance(fields, str):
            fields = [fields]
        if not isinstance(fields, list) or not all(isinstance(f, str) and f for f in fields):
            raise ValidationError("index fields must be a list of non-empty path strings")
        embed = config.get("embed")
        if embed is None or not (isinstance(embed, str | Embeddings) or callable(embed)):
            raise ValidationError("index embed must be an Embeddings, a function of a list "
                                  "of texts, or a 'provider:model' string")
        try:
            self.embeddings: Embeddings = ensure_embeddings(embed)
        except (ValueError, ImportError) as exc:  # a provider string LangChain cannot load
            raise ValidationError(f"index embed {embed!r} cannot be loaded: {exc}") from None
        self.dims = dims
        self.fields: list[tuple[str, Any]] = [(p, p if p == "$" else tokenize_path(p))
                                              for p in fields]
        #: what ``store.index_config`` shows: the config as given, with LangGraph's tokenized
        #: fields (as ``InMemoryStore`` keeps them)
        self.config: dict[str, Any] = {**dict(config), "fields": list(fields),
                                       "__tokenized_fields": list(self.fields)}

    # -- what a batch embeds ----------------------------------------------------------

    def _work(self, puts: Iterable[PutOp],
              searches: Iterable[SearchOp]) -> tuple[list[str], list[tuple[Any, list[Any]]],
                                                     list[str]]:
        texts: dict[str, None] = {}  # each distinct text embedded once, in first-seen order
        wanted: list[tuple[Any, list[Any]]] = []
        for op in puts:
            pairs = texts_to_embed(op, self.fields)
            wanted.append(((tuple(op.namespace), str(op.key)), pairs))
            texts.update((text, None) for _, text in pairs)
        queries = list(dict.fromkeys(op.query for op in searches if op.query))
        return list(texts), wanted, queries

    def _assemble(self, texts: list[str], vectors: Any, wanted: list[tuple[Any, list[Any]]],
                  queries: list[str], query_vectors: list[Any]) -> Embedded:
        by_text = dict(zip(texts, self._checked(vectors, len(texts)), strict=True))
        return Embedded(
            queries=dict(zip(queries, self._checked(query_vectors, len(queries)), strict=True)),
            puts={key: [(name, by_text[text]) for name, text in pairs]
                  for key, pairs in wanted})

    def embed(self, puts: Iterable[PutOp], searches: Iterable[SearchOp]) -> Embedded:
        """The vectors a batch needs: each distinct put text in one ``embed_documents`` call,
        each distinct query by ``embed_query``. An async-only embedding function is run to
        completion here (this thread has no event loop running: a worker's or the caller's).

        Raises:
            EmbeddingError: the embedder raised, or returned vectors that do not fit, or is
                async only and this thread runs an event loop.
        """
        texts, wanted, queries = self._work(puts, searches)
        if _async_only(self.embeddings):
            if _loop_running():
                raise EmbeddingError("an async embedding function cannot serve a sync call "
                                     "made inside a running event loop: use aput/asearch")
            return asyncio.run(self._aembed(texts, wanted, queries))
        vectors = _call(self.embeddings.embed_documents, texts) if texts else []
        query_vectors = [_call(self.embeddings.embed_query, q) for q in queries]
        return self._assemble(texts, vectors, wanted, queries, query_vectors)

    async def aembed(self, puts: Iterable[PutOp], searches: Iterable[SearchOp]) -> Embedded:
        """:meth:`embed` with the embedder's async methods (``aembed_documents``,
        ``aembed_query``), for an async caller. Raises EmbeddingError as :meth:`embed`."""
        return await self._aembed(*self._work(puts, searches))

    async def _aembed(self, texts: list[str], wanted: list[tuple[Any, list[Any]]],
                      queries: list[str]) -> Embedded:
        try:
            vectors = await self.embeddings.aembed_documents(texts) if texts else []
            query_vectors = [await self.embeddings.aembed_query(q) for q in queries]
        except GraphmemError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"the index's embedding function failed: "
                                 f"{type(exc).__name__}") from exc
        return self._assemble(texts, vectors, wanted, queries, query_vectors)

    def _checked(self, vectors: Any, count: int) -> list[list[float]]:
        if not isinstance(vectors, Sequence) or len(vectors) != count:
            raise EmbeddingError(f"the embedding function returned "
                                 f"{_length(vectors)} vectors for {count} texts")
        out = []
        for vector in vectors:
            try:
                floats = [float(x) for x in vector]
            except (TypeError, ValueError):
                raise EmbeddingError("the embedding function returned a vector that is not "
                                     "a list of numbers") from None
            if len(floats) != self.dims:
                raise EmbeddingError(f"the embedding function returned a vector of "
                                     f"{len(floats)} dimensions; the index has {self.dims}")
            if not all(math.isfinite(x) for x in floats):
                raise EmbeddingError("the embedding function returned a non-finite value")
            out.append(floats)
        return out


def _length(value: Any) -> str:
    return str(len(value)) if isinstance(value, Sequence) else "no list of"


def _async_only(embeddings: Embeddings) -> bool:
    return isinstance(embeddings, EmbeddingsLambda) and not hasattr(embeddings, "func")


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _call(method: Callable[[Any], Any], arg: Any) -> Any:
    try:
        return method(arg)
    except GraphmemError:
        raise
    except Exception as exc:
        raise EmbeddingError(f"the index's embedding function failed: "
                             f"{type(exc).__name__}") from exc
