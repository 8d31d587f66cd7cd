"""The LangGraph store's semantic search on Neo4j (``cypher/langgraph/vectors/search`` and
``langgraph/vectors/nearest``), typed. Eligibility, the prefix and the filter are decided
exactly in both queries (docs/spec/eligibility.md#eligible-and-active); what differs is how
the scored items are found.

- Up to :data:`EXACT_CAP` eligible items under the prefix: every one is scored exactly
  (``langgraph/vectors/search``: the cosine of each of its vectors, computed in Cypher). The
  page is exact.
- More: the vector index (HNSW, approximate) gives the ``k`` nearest vectors, the items they
  embed are kept when eligible and filtered, and each is rescored exactly over all its
  vectors (``langgraph/vectors/nearest``). ``k`` starts at :data:`MIN_K` or ``4 x (offset +
  limit) x`` the vectors an item has, and grows fourfold while the page is not full (so
  filtered-out or ineligible neighbours never push an eligible item off the page); past
  :data:`MAX_K`, or when the index holds no more vectors, the exact query answers instead.

Scores are Neo4j's cosine, ``(1 + cos) / 2``; :func:`vector_page` returns LangGraph's, ``cos``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.db.base import StoreBase
from graphmem.db.ops.langgraph import Reader

__all__ = ["ALL", "EXACT_CAP", "MAX_K", "MIN_K", "VectorQuery", "vector_counts", "vector_page"]

#: The most eligible items a search scores exactly, one by one (above: the vector index).
EXACT_CAP = 500
#: The fewest and the most nearest vectors asked of the index in one query.
MIN_K = 100
MAX_K = 20_000
#: A limit larger than any store holds (a cap or limit meaning "every item").
ALL = 2**62


@dataclass(frozen=True)
class VectorQuery:
    """One semantic search: ``search_tenants`` (in result order), ``pairs`` (JSON scope pairs
    the namespace's Scope must hold), ``conditions`` (compiled value conditions), ``vector``
    (the query's embedding), ``offset``, ``limit``, ``per_item`` (the vectors an item is
    expected to have: the index's fields)."""

    search_tenants: Sequence[str]
    pairs: Sequence[str]
    conditions: Sequence[Mapping[str, Any]]
    vector: Sequence[float]
    offset: int
    limit: int
    per_item: int = 1


def vector_page(store: StoreBase, query: VectorQuery, reader: Reader,
                cap: int = EXACT_CAP) -> list[dict[str, Any]]:
    """The page's items, best first: rows ``{metadata_json, created_at, lg_chain_seq,
    lg_created_at, id, lg_ttl, score}`` (``score``: the cosine similarity, None for an item
    without a vector, which comes after every scored one). ``cap``: the most items scored
    one by one before the vector index is used (see the module docstring)."""
    offset, limit = max(query.offset, 0), max(query.limit, 0)
    args = {"search_tenants": list(query.search_tenants), "pairs": list(query.pairs),
            "conditions": [dict(c) for c in query.conditions], "vector": list(query.vector),
            "zero": not any(query.vector), "offset": offset, "limit": limit,
            **reader.params()}
    row = store.read_once("langgraph/vectors/search", cap=cap, **args)[0]
    if not row["over"]:
        return _scored(row["page"])
    wanted = offset + limit
    k = max(MIN_K, 4 * wanted * max(query.per_item, 1))
    while k <= MAX_K:
        near = store.read_once("langgraph/vectors/nearest", k=k, **args)[0]
        if near["eligible"] >= wanted:
            return _scored(near["page"])
        if near["returned"] < k:  # the index holds no more: unscored items may follow
            break
        k *= 4
    row = store.read_once("langgraph/vectors/search", cap=ALL, **args)[0]
    return _scored(row["page"])


def _scored(page: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{**row, "score": None if row["sim"] is None else 2.0 * float(row["sim"]) - 1.0}
            for row in page]


def vector_counts(store: StoreBase, ids: Sequence[str]) -> dict[str, int]:
    """How many embeddings each record of ``ids`` has (records not found are absent)."""
    rows = store.read_values("langgraph/vectors/count", ids=list(ids))
    return {str(row["id"]): int(row["vectors"]) for row in rows}
