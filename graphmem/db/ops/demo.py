"""The demo's operations: emptying a database it was allowed to wipe, and reading back an
intention it loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["DemoOps"]


class DemoOps:
    """Demo operations on ``store``, each a statement of its own.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def wipe_batch(self, limit: int) -> int:
        """Delete up to ``limit`` nodes of the database, whatever they are; how many were
        deleted (only for a database the caller may wipe)."""
        return int(self.store.write("wipe_batch", limit=limit)[0]["deleted"])

    def intention(self, intention_id: str) -> dict[str, Any] | None:
        """The stored properties of the intention (None: no such intention)."""
        rows = self.store.read("intentions/get", id=intention_id)
        return dict(rows[0]["intention"]) if rows else None
