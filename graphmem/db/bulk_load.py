"""An empty store's initial load through Neo4j's offline import tool (``neo4j-admin database
import full``), for a store graphmem runs itself (docs/operations.md#initial-load).

The records are the online import's: each is checked by the same rules
(:class:`EmptyStoreChecks`: an empty store holds nothing to conflict with) and becomes the same
``records/create`` row (:func:`graphmem.db.codec.record_row`); the CSV columns are that row's keys,
typed by its values. Beside the records go what the online path derives from them, each as its
Cypher makes it: the ``Scope`` and ``ScopeVersion`` of each scope (``scopes_merge``; the records'
``stamp`` and ``sepoch`` and the version's ``rev`` as ``records/create`` counts them, in file
order), the ``Assertion`` groups (``assertions_link``), the edges ``IN_SCOPE``, ``SUPERSEDES``,
``DERIVED_FROM`` (with ``ord``), ``EVIDENCED_BY``, ``ASSERTS`` and the thread chains' ``NEXT``
(``edges/*``), and the ``GraphmemMigration`` versions an empty store records when it is first
opened (:data:`graphmem.db.migrations.MIGRATIONS`): data written by this code needs none of them.

The rows are written in parts, a part a stretch of the file (:mod:`graphmem.db.bulk_parts`).
A CSV cell cannot hold an empty list (the tool stores none): a record's empty ``supersedes``,
``derived_from`` and ``evidence_ids`` are stored as no property, which every reader takes for
an empty list (:func:`graphmem.db.codec.record_from_props`; docs/operations.md#initial-load).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from graphmem.db.base import StoreBase
from graphmem.db.codec import content_bound
from graphmem.db.index_key import index_key
from graphmem.db.launch_settings import heap_flags
from graphmem.db.launcher import JVM_FLAGS, ensure_jars, java_executable
from graphmem.db.records import Lineage, RecordWrites, check_record_bounds
from graphmem.db.reserved import check_reserved_scope
from graphmem.errors import StoreError
from graphmem.limits import InputLimits
from graphmem.models import MemoryRecord

__all__ = ["ARRAY_DELIMITER", "EmptyStoreChecks", "LoadFiles", "census",
           "finish_load", "row_cells", "run_import_tool", "tool_memory"]

#: Between the elements of a list cell: a control character, which no id holds
#: (:func:`graphmem.fields.id_problem`) and JSON (a scope's pairs) escapes.
ARRAY_DELIMITER = "\x1f"
#: Java's main class of ``neo4j-admin`` (jar ``neo4j-command-line``, among the launcher's).
ADMIN_TOOL = "org.neo4j.cli.AdminTool"


@dataclass
class EmptyStoreChecks:
    """What :func:`graphmem.write.imports.read_records` checks, against an empty store: each
    record's bounds and reserved scope keys as :meth:`RecordWrites.check_new_record`, the file's
    ids and lineage as :meth:`RecordWrites.check_batch_lineage`, and, as
    :meth:`RecordWrites.check_existing` with nothing stored, that every reference names a record
    of the file (DanglingReferenceError otherwise).

    Args:
        limits: the bounds of user-supplied values. max_content_bytes: UTF-8 bytes per content.

    Raises:
        ValidationError: ``max_content_bytes`` is no positive int.
    """

    limits: InputLimits
    max_content_bytes: int

    def __post_init__(self) -> None:
        content_bound(self.max_content_bytes)

    def check_new_record(self, record: MemoryRecord) -> None:
        """Raises ContentTooLargeError, ValidationError (nothing is written)."""
        check_record_bounds(record, self.max_content_bytes, self.limits)
        check_reserved_scope(record.scope, adapter=None, record_id=record.id)

    @staticmethod
    def check_batch_lineage(records: Sequence[Lineage]) -> None:
        """Raises ValidationError, LineageCycleError: see RecordWrites.check_batch_lineage."""
        RecordWrites.check_batch_lineage(records)

    @staticmethod
    def check_lineage(ids: Sequence[str], linked: Sequence[Lineage]) -> None:
        """Raises ValidationError, LineageCycleError: see RecordWrites.check_lineage."""
        RecordWrites.check_lineage(ids, linked)

    @staticmethod
    def check_import(records: Sequence[Lineage]) -> None:
        """Raises DanglingReferenceError: a reference names no record of ``records``."""
        EmptyStoreChecks.check_file([r.id for r in records], records)

    @staticmethod
    def check_file(ids: Sequence[str], linked: Sequence[Lineage]) -> None:
        """:meth:`check_import` of a file given as its ids and the records that
        :func:`graphmem.db.records.linked` holds (what the parts of a load send).

        Raises:
            DanglingReferenceError: a reference names no record of the file.
        """
        RecordWrites.check_existing(linked, dict.fromkeys(ids, ""), {})


@dataclass
class _Table:
    """One CSV input of the tool: a header file and body files (rows holding a line break
    apart, the only ones the tool must parse as multi-line). A closed table pickles (a part
    of a load written in another process sends its tables back)."""

    folder: Path
    name: str
    kind: str  # "nodes" or "relationships"
    label: str
    header: list[str] = field(default_factory=list)
    rows: int = 0
    written: set[str] = field(default_factory=set)  # "body" and/or "multi"
    _open: dict[str, IO[str]] = field(default_factory=dict)

    def path(self, part: str) -> Path:
        return self.folder / f"{self.name}.{part}.csv"

    def write(self, cells: Iterable[str]) -> None:
        self.write_line(",".join(cells))

    def write_line(self, line: str) -> None:
        """Write one row, its cells joined already."""
        part = "multi" if "\n" in line or "\r" in line else "body"
        fh = self._open.get(part)
        if fh is None:
            fh = self._open[part] = self.path(part).open("w", encoding="utf-8", newline="")
            self.written.add(part)
        fh.write(line + "\n")
        self.rows += 1

    def close(self) -> None:
        for fh in self._open.values():
            fh.close()
        self._open = {}
        self.path("header").write_text(",".join(self.header) + "\n", encoding="utf-8")

    def arguments(self) -> tuple[list[str], list[Path]]:
        """The tool's options for this table, and its multi-line files."""
        options = []
        multi = []
        for part in ("body", "multi"):
            if part in self.written:
                files = f"{self.path('header')},{self.path(part)}"
                options.append(f"--{self.kind}={self.label}={files}")
                if part == "multi":
                    multi.append(self.path(part))
        return options, multi


@dataclass
class LoadFiles:
    """The CSV files of a load (:func:`graphmem.db.bulk_parts.write_load_files`, or the parts
    of :func:`graphmem.write.initial.prepare_initial`) and what they hold."""

    folder: Path
    tables: list[_Table]
    records: int
    scopes: int
    relationships: int


def _cell(value: Any) -> str:
    """A CSV cell the tool reads back as ``value``: None is an empty cell (no property), a
    string is quoted (an empty one is then an empty string), quotes are doubled."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        if not value:
            return ""  # no empty list in CSV: no property, which readers take for one
        if any(ARRAY_DELIMITER in v for v in value):
            raise StoreError(f"a list element holds U+001F: {value!r}")
        return '"' + ARRAY_DELIMITER.join(value).replace('"', '""') + '"'
    return '"' + str(value).replace('"', '""') + '"'


def row_cells(values: Sequence[Any]) -> str:
    """A row of :func:`_cell` cells, joined: the common values (text, None, bools, ints) made
    here without a call each (a load makes about 38 a record)."""
    return ",".join([
        '"' + v.replace('"', '""') + '"' if (t := type(v)) is str else "" if v is None
        else ("true" if v else "false") if t is bool else str(v) if t is int else _cell(v)
        for v in values])


def tool_memory(physical: int | None = None) -> str:
    """The import tool's heap, and its off-heap memory, on a machine with ``physical`` bytes
    of memory (default: this one's; 1 GiB when it cannot be read): an eighth of it, between 1
    and 4 GiB, in MiB (``"2944m"`` on 23 GiB): the import tool is faster with more
    (docs/performance.md)."""
    if physical is None:
        try:
            physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, OSError, ValueError):  # no sysconf (Windows) or no such name
            physical = 0
    mib = min(4096, max(1024, physical // 8 >> 20))
    return f"{mib}m"


def run_import_tool(home: Path, files: LoadFiles, *, overwrite: bool, database: str = "neo4j",
                    heap: str | None = None, off_heap: str | None = None,
                    timeout_s: float = 3600, lib_dir: Path | None = None) -> None:
    """Run ``neo4j-admin database import full`` (the launcher's jars) on ``home``'s database.

    The server of ``home`` must be stopped (the tool refuses a store in use). ``overwrite``:
    replace an existing database's files (the caller has made sure it was empty). ``heap``,
    ``off_heap``: the tool's memory (``"3g"``, ``"768m"``; default :func:`tool_memory`).
    ``lib_dir``: the jars (:func:`ensure_jars`).

    Raises:
        DatabaseUnavailableError: no Java, or the jars cannot be fetched.
        StoreError: the tool failed (the tail of its output in the message, all of it in
            ``home/logs/import.log``).
    """
    lib_dir = ensure_jars(lib_dir)
    (home / "conf").mkdir(parents=True, exist_ok=True)
    (home / "logs").mkdir(parents=True, exist_ok=True)
    options: list[str] = []
    multi: list[Path] = []
    for t in files.tables:
        opts, more = t.arguments()
        options += opts
        multi += more
    if multi:
        options += ["--multiline-fields-format=v2",
                    "--multiline-fields=" + ",".join(str(p) for p in multi)]
    sized = tool_memory()
    cmd = [java_executable(), *heap_flags(heap or sized), *JVM_FLAGS, "-cp",
           str(lib_dir / "*"), ADMIN_TOOL,
           "database", "import", "full", *options, "--array-delimiter=U+001F",
           "--bad-tolerance=0", f"--overwrite-destination={str(overwrite).lower()}",
           f"--max-off-heap-memory={off_heap or sized}",
           f"--report-file={files.folder / 'import.report'}", database]
    env = {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}
    log = home / "logs" / "import.log"
    with log.open("w", encoding="utf-8") as out:
        try:
            code = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT, timeout=timeout_s,
                                  check=False).returncode
        except subprocess.TimeoutExpired:
            code = None
    if code != 0:
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:])
        raise StoreError(f"the Neo4j import tool failed (exit {code}); see {log}:\n{tail}")


def census(store: StoreBase) -> int:
    """How many nodes the store's database holds besides its ``GraphmemMigration`` versions
    and its ``GraphmemKey`` (``load/census``): 0 for a store an initial load may fill."""
    rows = store.read("load/census")
    return int(rows[0]["nodes"]) if rows else 0


def finish_load(store: StoreBase) -> None:
    """After the loaded store's server started and a client applied the schema: make the
    store's index key (:func:`graphmem.db.index_key.index_key`), which an empty store makes
    when first opened (its ``cue_digest`` migration, which the load recorded as reached).

    Args:
        store: a :class:`graphmem.db.base.StoreBase` of the loaded database.

    Raises:
        GraphmemError: a statement failed (translated driver error).
    """
    index_key(store)
