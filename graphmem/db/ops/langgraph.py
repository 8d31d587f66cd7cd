"""The LangGraph store's operations on Neo4j (``cypher/langgraph/*``), typed: what
:class:`graphmem.integrations.langgraph.GraphmemStore` reads and writes, each one named
query. Eligibility is decided in the queries (docs/spec/eligibility.md#eligible-and-active);
these functions only pass values and shape rows.

Every read takes a :class:`Reader`: the principal's tenants, clearance rank and the
reading time (aware UTC).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.db.base import StoreBase

__all__ = [
    "PutBatch",
    "Reader",
    "SearchPage",
    "get_items",
    "list_namespaces",
    "put_batch",
    "refresh_ttl",
    "search_items",
    "versions",
]


@dataclass(frozen=True)
class Reader:
    """Who reads, and when: ``tenants`` (the principal's), ``clearance`` (a sensitivity
    rank), ``now`` (aware UTC)."""

    tenants: Sequence[str]
    clearance: int
    now: datetime

    def params(self) -> dict[str, Any]:
        return {"tenants": sorted(self.tenants), "clearance": self.clearance, "now": self.now}


@dataclass(frozen=True)
class SearchPage:
    """One search's selection: ``search_tenants`` (in result order), ``pairs`` (JSON scope
    pairs the namespace's Scope must hold), ``conditions`` (compiled value conditions:
    graphmem.integrations.langgraph.facts), ``offset`` and ``limit`` (None: every item),
    ``full`` (each row also carries the record's properties, for ranking)."""

    search_tenants: Sequence[str]
    pairs: Sequence[str]
    conditions: Sequence[Mapping[str, Any]]
    offset: int
    limit: int | None
    full: bool = False


#: A limit larger than any store holds (Cypher's LIMIT takes no null).
_ALL = 2**62


def get_items(store: StoreBase, gets: Sequence[Mapping[str, Any]],
              reader: Reader) -> list[dict[str, Any]]:
    """The live version of each ``{i, prefix, key}`` (id prefix, namespace Scope key) that
    has one: rows ``{i, record}``, in one round trip (an auto-commit statement)."""
    return store.read_once("langgraph/get", gets=list(gets), **reader.params())


def search_items(store: StoreBase, page: SearchPage, reader: Reader) -> list[dict[str, Any]]:
    """The page's items, in order: rows ``{metadata_json, created_at, record}`` (``record``
    None unless ``page.full``), in one round trip."""
    offset = max(page.offset, 0)
    limit = _ALL if page.limit is None else max(page.limit, 0)
    return store.read_once(
        "langgraph/search", search_tenants=list(page.search_tenants), pairs=list(page.pairs),
        conditions=[dict(c) for c in page.conditions], offset=offset, limit=limit,
        window=min(offset + limit, _ALL), full=page.full, **reader.params())


def list_namespaces(store: StoreBase, search_tenants: Sequence[str], pairs: Sequence[str],
                    reader: Reader) -> list[list[str]]:
    """The ``pairs`` of each Scope under the selection that holds a live item."""
    rows = store.read_once("langgraph/namespaces", search_tenants=list(search_tenants),
                           pairs=list(pairs), **reader.params())
    return [list(row["pairs"]) for row in rows]


def refresh_ttl(store: StoreBase, ids: Sequence[str], now: datetime, actor: str,
                reason: str) -> int:
    """Extend the expiry of the records ``ids`` that were put with a TTL to ``now`` plus
    their TTL, each a declared 'expiry_extended' transition by ``actor``; how many moved."""
    if not ids:
        return 0
    rows = store.write_once("langgraph/refresh", ids=sorted(set(ids)), now=now, actor=actor,
                            reason=reason)
    return int(rows[0]["refreshed"]) if rows else 0


def versions(store: StoreBase, prefix: str) -> list[str]:
    """Ids of every version whose id starts with ``prefix``, oldest first."""
    return [str(row["id"]) for row in store.read("langgraph/versions", prefix=prefix)]


@dataclass(frozen=True)
class PutBatch:
    """One ``langgraph/put`` statement's work: ``locks`` (``{key, tenant, pairs, count}``,
    sorted by key), ``puts`` (see the query's header), ``clearance`` (the writer's rank),
    ``now`` (aware UTC), ``actor`` (the ``by`` of transitions), ``by`` (of write decisions)
    and the reasons logged: ``put_reason``, ``delete_reason``, ``superseded_reason``."""

    locks: Sequence[Mapping[str, Any]]
    puts: Sequence[Mapping[str, Any]]
    clearance: int
    now: datetime
    actor: str
    by: str
    put_reason: str
    delete_reason: str
    superseded_reason: str


def put_batch(store: StoreBase, batch: PutBatch) -> bool:
    """Apply a batch of puts and deletes in one statement (one round trip, one commit).

    Returns:
        False when written; True when a key is held above the writer's clearance, and
        nothing was written.

    Raises:
        ConstraintViolationError: a concurrent first write created a Scope first (nothing
            was written; run it again). GraphmemError: as :meth:`StoreBase.write_once`.
    """
    rows = store.write_once(
        "langgraph/put", locks=list(batch.locks), puts=list(batch.puts),
        clearance=batch.clearance, now=batch.now, actor=batch.actor, by=batch.by,
        put_reason=batch.put_reason, delete_reason=batch.delete_reason,
        superseded_reason=batch.superseded_reason)
    return bool(rows[0]["forbidden"])
