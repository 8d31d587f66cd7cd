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

from neo4j import ManagedTransaction

from graphmem.db.base import StoreBase

__all__ = [
    "Reader",
    "SearchPage",
    "get_items",
    "heads",
    "list_namespaces",
    "lock_tenants",
    "log_decision",
    "merge_scopes",
    "retract",
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


def versions(store: StoreBase, prefix: str) -> list[str]:
    """Ids of every version whose id starts with ``prefix``, oldest first."""
    return [str(row["id"]) for row in store.read("langgraph/versions", prefix=prefix)]


def lock_tenants(tx: ManagedTransaction, rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Lock each tenant's writes and reserve ``count`` sequence numbers: ``{tenant: base}``
    (rows ``{key, tenant, pairs, count}``, sorted by key)."""
    return {str(r["tenant"]): int(r["base"])
            for r in StoreBase.run(tx, "langgraph/lock", rows=list(rows))}


def merge_scopes(tx: ManagedTransaction, scopes: Sequence[Mapping[str, Any]]) -> None:
    """Create the namespace Scopes ``{key, tenant, pairs, seq, langgraph_key}`` if missing."""
    StoreBase.run(tx, "langgraph/scopes", scopes=list(scopes))


def heads(tx: ManagedTransaction, prefixes: Sequence[str], clearance: int,
          now: datetime) -> dict[str, dict[str, Any]]:
    """The newest version of each id prefix that has one, by prefix: ``{id, metadata_json,
    ended, live, visible}``."""
    rows = StoreBase.run(tx, "langgraph/heads", prefixes=list(prefixes), clearance=clearance,
                         now=now)
    return {str(row["prefix"]): row for row in rows}


def log_decision(tx: ManagedTransaction, record_id: str, tenant: str, by: str, reason: str,
                 at: datetime) -> None:
    """Log the PERSIST write decision of a put."""
    StoreBase.run(tx, "write/decision_log", record_id=record_id, tenant=tenant,
                  disposition="PERSIST", at=at, by=by, reason=reason)


def retract(tx: ManagedTransaction, record_id: str, by: str, reason: str, at: datetime) -> None:
    """Retract a record (a tombstone with who, why and when)."""
    StoreBase.run(tx, "records/retract", id=record_id, by=by, reason=reason, at=at)
