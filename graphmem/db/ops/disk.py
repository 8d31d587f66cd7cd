"""What an erasure leaves in the server's files: the operations of
:mod:`graphmem.deletion.disk` (docs/spec/deletion.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["DiskOps", "Purge"]


class Purge(NamedTuple):
    """One call of ``graphmem.purgeErased()``: free records zeroed, and the transaction log
    versions the server keeps (the current one and the lowest)."""

    zeroed: int
    log_version: int
    lowest_log_version: int


class DiskOps:
    """The server-file operations on ``store``, each a statement of its own."""

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def purge(self) -> Purge:
        """Zero the free records, start a new log and checkpoint (a launcher-run server).

        Raises:
            StoreError: the procedure failed, or is not there (its ``code`` says so).
            DatabaseUnavailableError: the server is unreachable.
        """
        return Purge(**self.store.write_once("deletion/disk/purge")[0])

    def settings(self) -> dict[str, str]:
        """The server's settings by name, values as text (``dbms.listConfig``).

        Raises:
            StoreError: refused (administrators only). DatabaseUnavailableError.
        """
        return {row["name"]: str(row["value"])
                for row in self.store.read("deletion/disk/settings")}

    def record(self, request_id: str, disk_json: str) -> None:
        """Keep a disk report (JSON) on deletion request ``request_id``.

        Raises:
            DatabaseUnavailableError, StoreError: the write failed.
        """
        self.store.write("deletion/disk/record", id=request_id, disk=disk_json)
