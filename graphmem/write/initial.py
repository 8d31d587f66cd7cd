"""An empty store's initial load, offline (docs/operations.md#initial-load): a JSON Lines file
checked exactly as :func:`graphmem.write.imports.import_jsonl` checks it, written as CSV and
loaded by Neo4j's import tool into a stopped server's home (:mod:`graphmem.db.bulk_load`); the
server then starts on the loaded store, the client's connection applies the schema, and
:func:`finish_initial` completes what CSV cannot hold. The result is the graph the online
import makes of the same file (``tests/integration/write/test_initial_load.py`` compares them).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from graphmem.db.base import StoreBase
from graphmem.db.bulk_load import (
    EmptyStoreChecks,
    LoadFiles,
    census,
    finish_load,
    run_import_tool,
    write_load_files,
)
from graphmem.db.codec import DEFAULT_MAX_CONTENT_BYTES
from graphmem.errors import StoreNotEmptyError
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import MemoryRecord
from graphmem.write.imports import read_records

__all__ = ["InitialLoad", "check_empty", "finish_initial", "has_database", "load_initial",
           "read_initial"]


@dataclass(frozen=True)
class InitialLoad:
    """What :func:`load_initial` loaded: ``records``, ``scopes``, ``relationships`` counts,
    and the seconds spent writing the CSVs (``csv_s``) and in the import tool (``tool_s``)."""

    files: LoadFiles
    records: int
    scopes: int
    relationships: int
    csv_s: float
    tool_s: float


def read_initial(path: Path, *, limits: InputLimits = DEFAULT_LIMITS,
                 max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> list[MemoryRecord]:
    """Every record of the file, checked as the online import checks it against an empty
    store (:class:`~graphmem.db.bulk_load.EmptyStoreChecks`); nothing is written.

    Raises:
        ValidationError (``file:line`` in the message) and its subclasses
        (DanglingReferenceError: a reference names no record of the file).
    """
    return read_records(EmptyStoreChecks(limits, max_content_bytes), path)


def has_database(home: Path, database: str = "neo4j") -> bool:
    """True when ``home`` (a Neo4j home graphmem runs) holds files of ``database``."""
    return (home / "data" / "databases" / database).exists()


def check_empty(store: StoreBase) -> None:
    """Raise StoreNotEmptyError unless the store's database holds nothing but the migration
    versions and the index key every opened store records (``store``:
    ``graphmem.client.store_of(memory)``)."""
    nodes = census(store)
    if nodes:
        raise StoreNotEmptyError(
            f"the database holds {nodes} nodes: an initial load fills an empty store only "
            "(use `graphmem import` without --initial to add records)")


def load_initial(records: list[MemoryRecord], home: Path, *, overwrite: bool = False,
                 heap: str = "1g", off_heap: str = "1g", lib_dir: Path | None = None
                 ) -> InitialLoad:
    """Load ``records`` (from :func:`read_initial`) into ``home``'s database, whose server is
    stopped, with Neo4j's import tool; the CSVs go to a folder in ``home`` (in the system's
    temporary folder when ``home``'s path holds a comma or the like), deleted after.

    Args:
        records: checked records, in file order. home: the Neo4j home (the launcher's).
        overwrite: replace the files of an existing database, which the caller has found
            empty (:func:`check_empty`); without it a home holding a database is refused.
        heap, off_heap: the tool's JVM heap and off-heap memory (``"1g"``). lib_dir: the
            Neo4j jars (default: the launcher's).

    Raises:
        StoreNotEmptyError: ``home`` holds a database and ``overwrite`` is False (nothing is
            written).
        StoreError: the import tool failed (a server still runs on ``home``, ...).
        DatabaseUnavailableError: no Java, or the jars cannot be fetched.
    """
    if has_database(home) and not overwrite:
        raise StoreNotEmptyError(
            f"{home} holds a database already: an initial load fills a new store only")
    home.mkdir(parents=True, exist_ok=True)
    # the tool reads comma-separated file lists and file patterns: a home whose path holds
    # other characters than these gets its CSVs in the system's temporary folder
    plain = re.fullmatch(r"[\w./-]+", str(home.absolute()), flags=re.ASCII) is not None
    folder = Path(tempfile.mkdtemp(prefix=".initial-load-", dir=home if plain else None))
    try:
        started = time.perf_counter()
        files = write_load_files(records, folder, at=utc_now())
        written = time.perf_counter()
        run_import_tool(home, files, overwrite=overwrite, heap=heap, off_heap=off_heap,
                        lib_dir=lib_dir)
        done = time.perf_counter()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return InitialLoad(files, files.records, files.scopes, files.relationships,
                       written - started, done - written)


def finish_initial(store: StoreBase, load: InitialLoad) -> None:
    """Complete a load once its server runs and a client connected to it (which applied the
    schema; ``store``: ``graphmem.client.store_of(memory)``): the empty lists a CSV cannot hold.

    Raises:
        GraphmemError: the database refused the statement.
    """
    finish_load(store, load.files)
