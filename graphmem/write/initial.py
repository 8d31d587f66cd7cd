"""An empty store's initial load, offline (docs/operations.md#initial-load): a JSON Lines file
checked exactly as :func:`graphmem.write.imports.import_jsonl` checks it, written as CSV and
loaded by Neo4j's import tool into a stopped server's home (:mod:`graphmem.db.bulk_load`); the
server then starts on the loaded store, the client's connection applies the schema, and
:func:`finish_initial` completes what CSV cannot hold. The result is the graph the online
import makes of the same file (``tests/integration/write/test_initial_load.py`` compares them).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from graphmem.db.base import StoreBase
from graphmem.db.bulk_load import EmptyStoreChecks, LoadFiles, census, finish_load, run_import_tool
from graphmem.db.bulk_parts import (
    LoadPart,
    PartSummary,
    SharedTables,
    load_files,
    merge_parts,
    write_load_files,
    write_shared_tables,
)
from graphmem.db.codec import DEFAULT_MAX_CONTENT_BYTES, paused_gc
from graphmem.errors import GraphmemError, StoreError, StoreNotEmptyError, ValidationError
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import MemoryRecord
from graphmem.write.imports import checked_records, read_records

__all__ = ["PART_BYTES", "InitialLoad", "check_empty", "discard", "finish_initial",
           "has_database", "import_prepared", "load_initial", "prepare_initial", "read_initial"]

#: The least of the file a part reads (a process of its own costs about a second to start).
PART_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class InitialLoad:
    """What was loaded: ``records``, ``scopes``, ``relationships`` counts, and the seconds
    spent reading, checking and writing the CSVs (``csv_s``) and in the import tool
    (``tool_s``)."""

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


def _folder(home: Path) -> Path:
    """A new folder for a load's CSVs: in ``home`` (created), or in the system's temporary
    folder when ``home``'s path holds other characters than the tool's comma-separated file
    lists and file patterns allow."""
    plain = re.fullmatch(r"[\w./-]+", str(home.absolute()), flags=re.ASCII) is not None
    try:
        home.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".initial-load-", dir=home if plain else None))
    except OSError as exc:
        raise StoreError(f"cannot make a folder for the load in {home}: "
                         f"{exc.strerror or exc}") from None


def discard(files: LoadFiles) -> None:
    """Remove a load's CSV folder (after :func:`import_prepared`, or instead of it)."""
    shutil.rmtree(files.folder, ignore_errors=True)


def load_initial(records: list[MemoryRecord], home: Path, *, overwrite: bool = False,
                 heap: str | None = None, off_heap: str | None = None,
                 lib_dir: Path | None = None) -> InitialLoad:
    """Load ``records`` (from :func:`read_initial`) into ``home``'s database, whose server is
    stopped, with Neo4j's import tool, as one part (:func:`prepare_initial` reads a file in
    parts, in processes of their own); the CSVs go to a folder in ``home`` (in the system's
    temporary folder when ``home``'s path holds a comma or the like), deleted after.

    Args:
        records: checked records, in file order. home: the Neo4j home (the launcher's).
        overwrite: replace the files of an existing database, which the caller has found
            empty (:func:`check_empty`); without it a home holding a database is refused.
        heap, off_heap: the tool's JVM heap and off-heap memory (``"3g"``; default: sized
            to the machine, :func:`graphmem.db.bulk_load.tool_memory`). lib_dir: the Neo4j
            jars (default: the launcher's).

    Raises:
        StoreNotEmptyError: ``home`` holds a database and ``overwrite`` is False (nothing is
            written).
        StoreError: the import tool failed (a server still runs on ``home``, ...).
        DatabaseUnavailableError: no Java, or the jars cannot be fetched.
    """
    _refuse_loaded(home, overwrite)
    folder = _folder(home)
    try:
        started = time.perf_counter()
        files = write_load_files(records, folder, at=utc_now())
        return import_prepared(files, home, overwrite=overwrite, heap=heap, off_heap=off_heap,
                               lib_dir=lib_dir, csv_s=time.perf_counter() - started)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _refuse_loaded(home: Path, overwrite: bool) -> None:
    if has_database(home) and not overwrite:
        raise StoreNotEmptyError(
            f"{home} holds a database already: an initial load fills a new store only")


def import_prepared(files: LoadFiles, home: Path, *, overwrite: bool = False,
                    heap: str | None = None, off_heap: str | None = None,
                    lib_dir: Path | None = None, csv_s: float = 0.0) -> InitialLoad:
    """Run Neo4j's import tool on the CSVs of :func:`prepare_initial` (or of
    :func:`load_initial`) into ``home``'s database, whose server is stopped; the files stay
    (:func:`discard` removes them). ``csv_s``: the seconds their writing took, for the
    answer. Other arguments and errors: :func:`load_initial`'s."""
    _refuse_loaded(home, overwrite)
    started = time.perf_counter()
    run_import_tool(home, files, overwrite=overwrite, heap=heap, off_heap=off_heap,
                    lib_dir=lib_dir)
    return InitialLoad(files, files.records, files.scopes, files.relationships, csv_s,
                       time.perf_counter() - started)


def finish_initial(store: StoreBase, load: InitialLoad) -> None:
    """Complete a load once its server runs and a client connected to it (which applied the
    schema; ``store``: ``graphmem.client.store_of(memory)``): the store's index key
    (``load``: what was loaded).

    Raises:
        GraphmemError: the database refused the statement.
    """
    finish_load(store)


# ------------------------------------------------------------------ reading in parts


@dataclass(frozen=True)
class _Span:
    """A stretch of the file a part reads: bytes [start, end), its first line's number."""

    part: int
    start: int
    end: int
    first_line: int


def _spans(path: Path, parts: int) -> list[_Span]:
    """At most ``parts`` stretches of about equal size, each starting at a line, numbered by
    counting the line breaks before each."""
    try:
        size = path.stat().st_size
        starts = [0]
        with path.open("rb") as fh:
            for k in range(1, parts):
                at = max(size * k // parts, starts[-1])
                fh.seek(at)
                while True:  # to the start of the next line
                    block = fh.read(1 << 16)
                    found = block.find(b"\n")
                    if not block or found >= 0:
                        at = at + found + 1 if block else size
                        break
                    at += len(block)
                if at >= size:
                    break
                starts.append(at)
            firsts = [1]
            fh.seek(0)
            counted, line = 0, 1
            for start in starts[1:]:
                while counted < start:
                    block = fh.read(min(1 << 20, start - counted))
                    line += block.count(b"\n")
                    counted += len(block)
                firsts.append(line)
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
    ends = [*starts[1:], size]
    return [_Span(i, a, b, f) for i, (a, b, f) in enumerate(zip(starts, ends, firsts,
                                                                     strict=True))]


def _read_part(path: Path, span: _Span, folder: Path, checks: EmptyStoreChecks
               ) -> tuple[LoadPart, PartSummary]:
    """Read, check and write the edges of one stretch of the file (nodes wait: see
    :mod:`graphmem.db.bulk_parts`)."""
    part = LoadPart(folder, span.part)
    with paused_gc():
        for record in checked_records(checks, path, start=span.start, end=span.end,
                                      first_line=span.first_line):
            part.add(record)
    return part, part.summary()


def _part_process(conn: Connection, path: Path, span: _Span, folder: Path,
                  checks: EmptyStoreChecks) -> None:
    """A part's process: send the summary (or the error), then wait for the shared tables
    (None: stop) and send the node table."""
    try:
        try:
            part, summary = _read_part(path, span, folder, checks)
        except GraphmemError as exc:
            conn.send(("error", exc))
            return
        conn.send(("read", summary))
        shared = conn.recv()
        if shared is not None:
            conn.send(("nodes", part.write_nodes(shared)))
    except KeyboardInterrupt:  # Ctrl-C reached the whole group: the parent cleans up
        pass
    except Exception:  # a bug, or the disk full: the parent raises it as a StoreError
        with contextlib.suppress(OSError):  # unless it is gone (its pipe closed)
            conn.send(("crash", traceback.format_exc()))
    finally:
        conn.close()


class _Parts:
    """The processes reading the parts of a file (see :func:`prepare_initial`)."""

    def __init__(self, path: Path, spans: list[_Span], folder: Path,
                 checks: EmptyStoreChecks) -> None:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process holding threads
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        try:
            for span in spans:
                mine, theirs = ctx.Pipe()
                self.conns.append(mine)
                try:
                    proc = ctx.Process(target=_part_process, daemon=True,
                                       args=(theirs, path, span, folder, checks),
                                       name=f"graphmem-initial-load-{span.part}")
                    proc.start()
                finally:
                    theirs.close()
                self.procs.append(proc)
        except BaseException as exc:  # those started stop (Ctrl-C, no file descriptor left)
            self.close()
            if isinstance(exc, OSError):
                raise StoreError(f"cannot start a process to read the file: "
                                 f"{exc.strerror or exc}") from None
            raise

    def receive(self, conn: Connection, want: str) -> Any:
        try:
            what, value = conn.recv()
        except EOFError:
            raise StoreError("a process reading the file ended without an answer (a script "
                             "that loads keeps its work under `if __name__ == \"__main__\":`)"
                             ) from None
        if what == "error":
            raise value
        if what == "crash" or what != want:
            raise StoreError(f"a process reading the file failed:\n{value}")
        return value

    def summaries(self) -> list[PartSummary]:
        """Each part's summary, in file order; the first part's error (file order), if any."""
        answers: list[tuple[str, Any]] = []
        for conn in self.conns:
            try:
                answers.append(("read", self.receive(conn, "read")))
            except GraphmemError as exc:
                answers.append(("error", exc))
        for what, value in answers:
            if what == "error":
                raise value
        return [value for _, value in answers]

    def nodes(self, shared: SharedTables) -> list[Any]:
        for conn in self.conns:
            conn.send(shared)
        return [self.receive(conn, "nodes") for conn in self.conns]

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.send(None)  # a part still waiting stops
            conn.close()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()


class _InProcess:
    """One part, read in this process (the interface of :class:`_Parts`)."""

    def __init__(self, path: Path, span: _Span, folder: Path, checks: EmptyStoreChecks
                 ) -> None:
        self.part, self.summary = _read_part(path, span, folder, checks)

    def summaries(self) -> list[PartSummary]:
        return [self.summary]

    def nodes(self, shared: SharedTables) -> list[Any]:
        return [self.part.write_nodes(shared)]

    def close(self) -> None:
        """Nothing to stop."""


def prepare_initial(path: Path, home: Path, *, parts: int | None = None,
                    limits: InputLimits = DEFAULT_LIMITS,
                    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES) -> LoadFiles:
    """Read and check a JSON Lines file as :func:`read_initial` does and write its CSVs into a
    new folder of ``home`` (as :func:`load_initial` places it), in ``parts`` processes that
    each read a stretch of the file (default: one per CPU, each at least :data:`PART_BYTES`;
    one part is read in this process). The file-wide checks (duplicate ids, cycles,
    references) run here once the parts are read. Nothing is loaded: :func:`import_prepared`
    does, then :func:`discard`. The parts' processes are spawned (they import the caller's
    main module, as with any :mod:`multiprocessing` use): a script calling this keeps its
    work under ``if __name__ == "__main__":``.

    Raises:
        ValidationError (``file:line`` in the message: the first bad line of the file) and
            its subclasses (DanglingReferenceError, LineageCycleError); the folder is removed.
        StoreError: a process reading the file could not start or failed, or the load's
            folder or files could not be made (the folder is removed).
    """
    checks = EmptyStoreChecks(limits, max_content_bytes)
    if parts is None:
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
        parts = max(1, min(os.cpu_count() or 1, size // PART_BYTES))
    spans = _spans(path, parts)
    folder = _folder(home)
    try:
        running: _Parts | _InProcess = (_InProcess(path, spans[0], folder, checks)
                                        if len(spans) == 1 else
                                        _Parts(path, spans, folder, checks))
        try:
            summaries = running.summaries()
            ids = [i for s in summaries for i in s.ids]
            linked = [r for s in summaries for r in s.linked]
            with paused_gc():
                checks.check_lineage(ids, linked)
                checks.check_file(ids, linked)
            shared = merge_parts(summaries)
            nodes = running.nodes(shared)
        finally:
            running.close()
        return load_files(folder, summaries, nodes,
                          write_shared_tables(folder, summaries, shared, at=utc_now()))
    except BaseException as exc:
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, OSError):  # writing the CSVs: the disk full, the folder gone
            raise StoreError(f"cannot write the load's files in {folder}: "
                             f"{exc.strerror or exc}") from None
        raise
