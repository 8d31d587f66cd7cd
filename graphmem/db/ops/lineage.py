"""Lineage's operations (docs/spec/deletion.md, for analysts): the walks up and down a record's
derivation graph, and the nodes they reach with their status and edges."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["LineageNode", "LineageOps", "LineageSource", "Reached", "query_text"]


class Reached(NamedTuple):
    """A record a lineage walk reached, at its shortest distance from the root."""

    id: str
    depth: int


class LineageNode(NamedTuple):
    """A record of a lineage graph (``cypher/lineage/nodes.cypher``).

    Attributes:
        props: the properties the graph shows (``id``, ``kind``, ``scope_json``, ``erased``
            ..., ``content``; as the driver returns them).
        status: its :class:`~graphmem.models.Status` value at the time asked, ignoring who asks.
        edges: ``(TYPE, target id)`` of its DERIVED_FROM, SUPERSEDES and EVIDENCED_BY edges.
    """

    props: dict[str, Any]
    status: str
    edges: list[tuple[str, str]]


class LineageSource(Protocol):
    """What a lineage graph is read from (:class:`LineageOps`, or a stand-in in unit tests)."""

    def ancestors(self, record_id: str, depth: int | None) -> list[Reached]:
        """See :meth:`LineageOps.ancestors`."""
        ...

    def descendants(self, record_id: str, depth: int | None) -> list[Reached]:
        """See :meth:`LineageOps.descendants`."""
        ...

    def nodes(self, ids: Sequence[str], now: datetime) -> list[LineageNode]:
        """See :meth:`LineageOps.nodes`."""
        ...


class LineageOps:
    """Lineage reads on ``store``, each a statement of its own.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def ancestors(self, record_id: str, depth: int | None) -> list[Reached]:
        """What the record comes from (parents, predecessors, evidence), transitively, at
        most ``depth`` edges away (None: no limit)."""
        return [Reached(row["id"], row["depth"])
                for row in self.store.read("lineage/up", id=record_id, depth=depth)]

    def descendants(self, record_id: str, depth: int | None) -> list[Reached]:
        """What comes from the record, transitively, at most ``depth`` edges away."""
        return [Reached(row["id"], row["depth"])
                for row in self.store.read("lineage/down", id=record_id, depth=depth)]

    def nodes(self, ids: Sequence[str], now: datetime) -> list[LineageNode]:
        """The records among ``ids`` with their status at aware UTC ``now`` and their edges."""
        return [LineageNode(props=row["props"], status=row["status"],
                            edges=[(kind, target) for kind, target in row["edges"]])
                for row in self.store.read("lineage/nodes", ids=list(ids), now=now)]


def query_text(name: str) -> str:
    """The text of the catalogue's query ``name`` (a path under ``cypher/`` without the
    suffix) with its parts put in, comments stripped: what a Browser snippet shows.

    Raises:
        StoreError: no such query.
    """
    from graphmem.db import catalogue

    return catalogue.text(name)
