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

The files are streamed, one row at a time. A CSV cell cannot hold an empty list (the tool
stores none): :func:`finish_load` gives those properties their empty lists once the server runs
(``load/lists_fill``).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import IO, Any

from graphmem.db.base import StoreBase
from graphmem.db.codec import (
    TIME_PROPS,
    assertion_group,
    record_fingerprint,
    record_row,
    scope_pairs,
)
from graphmem.db.index_key import index_key
from graphmem.db.launcher import JVM_FLAGS, ensure_jars, heap_flags, java_executable
from graphmem.db.migrations import MIGRATIONS
from graphmem.db.records import RecordWrites, check_record_bounds
from graphmem.db.reserved import check_reserved_scope
from graphmem.errors import StoreError
from graphmem.limits import InputLimits
from graphmem.models import MemoryRecord

__all__ = ["ARRAY_DELIMITER", "EmptyStoreChecks", "LoadFiles", "census", "finish_load",
           "run_import_tool", "write_load_files"]

#: Between the elements of a list cell: a control character, which no id holds
#: (:func:`graphmem.fields.id_problem`) and JSON (a scope's pairs) escapes.
ARRAY_DELIMITER = "\x1f"
#: Java's main class of ``neo4j-admin`` (jar ``neo4j-command-line``, among the launcher's).
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
_TYPES = {bool: "boolean", int: "long", float: "double", str: "string", list: "string[]"}


@dataclass
class EmptyStoreChecks:
    """What :func:`graphmem.write.imports.read_records` checks, against an empty store: each
    record's bounds and reserved scope keys as :meth:`RecordWrites.check_new_record`, the file's
    ids and lineage as :meth:`RecordWrites.check_batch_lineage`, and, as
    :meth:`RecordWrites.check_existing` with nothing stored, that every reference names a record
    of the file (DanglingReferenceError otherwise).

    Args:
        limits: the bounds of user-supplied values. max_content_bytes: UTF-8 bytes per content.
    """

    limits: InputLimits
    max_content_bytes: int

    def check_new_record(self, record: MemoryRecord) -> None:
        """Raises ContentTooLargeError, ValidationError (nothing is written)."""
        check_record_bounds(record, self.max_content_bytes, self.limits)
        check_reserved_scope(record.scope, adapter=None, record_id=record.id)

    @staticmethod
    def check_batch_lineage(records: Sequence[MemoryRecord]) -> None:
        """Raises ValidationError, LineageCycleError: see RecordWrites.check_batch_lineage."""
        RecordWrites.check_batch_lineage(records)

    @staticmethod
    def check_import(records: Sequence[MemoryRecord]) -> None:
        """Raises DanglingReferenceError: a reference names no record of ``records``."""
        RecordWrites.check_existing(records, {r.id: "" for r in records}, {})


@dataclass
class _Table:
    """One CSV input of the tool: a header file and body files (rows holding a line break
    apart, the only ones the tool must parse as multi-line)."""

    folder: Path
    name: str
    kind: str  # "nodes" or "relationships"
    label: str
    header: list[str] = field(default_factory=list)
    rows: int = 0
    _plain: IO[str] | None = None
    _multi: IO[str] | None = None

    def path(self, part: str) -> Path:
        return self.folder / f"{self.name}.{part}.csv"

    def write(self, cells: Iterable[str]) -> None:
        line = ",".join(cells)
        multi = "\n" in line or "\r" in line
        if multi:
            if self._multi is None:
                self._multi = self.path("multi").open("w", encoding="utf-8", newline="")
            self._multi.write(line + "\n")
        else:
            if self._plain is None:
                self._plain = self.path("body").open("w", encoding="utf-8", newline="")
            self._plain.write(line + "\n")
        self.rows += 1

    def close(self) -> None:
        for fh in (self._plain, self._multi):
            if fh is not None:
                fh.close()
        self.path("header").write_text(",".join(self.header) + "\n", encoding="utf-8")

    def arguments(self) -> tuple[list[str], list[Path]]:
        """The tool's options for this table, and its multi-line files."""
        options = []
        multi = []
        for part, fh in (("body", self._plain), ("multi", self._multi)):
            if fh is not None:
                files = f"{self.path('header')},{self.path(part)}"
                options.append(f"--{self.kind}={self.label}={files}")
                if part == "multi":
                    multi.append(self.path(part))
        return options, multi


@dataclass
class LoadFiles:
    """The CSV files of a load (:func:`write_load_files`) and what they hold."""

    folder: Path
    tables: list[_Table]
    records: int
    scopes: int
    relationships: int
    #: the record properties that hold lists (filled by :func:`finish_load` where empty)
    list_props: list[str]


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
            return ""  # no empty list in CSV: finish_load gives it
        if any(ARRAY_DELIMITER in v for v in value):
            raise StoreError(f"a list element holds U+001F: {value!r}")
        return '"' + ARRAY_DELIMITER.join(value).replace('"', '""') + '"'
    return '"' + str(value).replace('"', '""') + '"'


def _record_columns(row: dict[str, Any]) -> list[str]:
    """A row's columns: its properties, its times (which ``record_row`` moves out of the
    properties when set), its stamp."""
    return [*(k for k in row["props"] if k not in TIME_PROPS), *TIME_PROPS, "stamp", "sepoch"]


def write_load_files(records: Iterable[MemoryRecord], folder: Path, *, at: datetime
                     ) -> LoadFiles:
    """Write the node and relationship CSVs of ``records`` (validated, in file order) into
    ``folder`` (created), one row at a time.

    Args:
        records: records that passed :class:`EmptyStoreChecks` together. folder: a new folder.
        at: aware UTC instant stamped on the ``GraphmemMigration`` nodes.

    Returns:
        the files, for :func:`run_import_tool`.

    Raises:
        StoreError: a column met values of two types (a record row that changed shape).
    """
    folder.mkdir(parents=True, exist_ok=True)

    def table(name: str, kind: str, label: str, header: list[str]) -> _Table:
        return _Table(folder, name, kind, label, header)

    rec = table("nodes", "nodes", "Record", [])
    edges = {name: table(name.lower(), "relationships", name,
                         [":START_ID(Record)", f":END_ID({end})", *extra])
             for name, end, extra in (("IN_SCOPE", "Scope", []), ("SUPERSEDES", "Record", []),
                                      ("DERIVED_FROM", "Record", ["ord:long"]),
                                      ("EVIDENCED_BY", "Record", []),
                                      ("ASSERTS", "Assertion", []), ("NEXT", "Record", []))}
    scopes: dict[str, tuple[str, list[str], int]] = {}  # key -> (tenant, pairs, records)
    versions: dict[str, str] = {}  # key -> epoch
    groups: dict[str, tuple[str, str]] = {}
    threads: dict[tuple[str, str], list[tuple[int, str]]] = {}
    columns: list[str] = []
    list_props: list[str] = []
    types: dict[str, str] = {}
    count = 0
    for record in records:
        row = record_row(record, False, record_fingerprint(record))
        key = row["scope_key"]
        tenant, pairs, made = scopes.get(key) or (record.tenant, scope_pairs(record.scope), 0)
        scopes[key] = (tenant, pairs, made + 1)
        epoch = versions.setdefault(key, str(uuid.uuid4()))
        values = {**row["props"], **row["times"], "stamp": made + 1, "sepoch": epoch}
        if not columns:
            columns = _record_columns(row)
            list_props = [k for k, v in row["props"].items() if isinstance(v, list)]
            types.update((k, "string[]") for k in list_props)
        if len(values) != len(columns):
            raise StoreError(f"record {record.id!r} has columns {sorted(values)}, "
                             f"the load's are {sorted(columns)}")
        for name in columns:
            value = values[name]
            if value is not None and name not in TIME_PROPS:
                kind = _TYPES[type(value)]
                if types.setdefault(name, kind) != kind:
                    raise StoreError(f"column {name} holds a {kind} and a {types[name]}")
        rec.write(_cell(values[name]) for name in columns)
        count += 1
        edges["IN_SCOPE"].write((_cell(record.id), _cell(key)))
        for ref in record.supersedes:
            edges["SUPERSEDES"].write((_cell(record.id), _cell(ref)))
        for i, ref in enumerate(record.derived_from):
            edges["DERIVED_FROM"].write((_cell(record.id), _cell(ref), _cell(i)))
        for ref in record.evidence_ids:
            edges["EVIDENCED_BY"].write((_cell(record.id), _cell(ref)))
        if record.asserts is not None:
            gkey = assertion_group(record.tenant, record.asserts)
            groups.setdefault(gkey, (record.tenant, record.asserts))
            edges["ASSERTS"].write((_cell(record.id), _cell(gkey)))
        if record.thread is not None and record.position is not None:
            threads.setdefault((record.tenant, record.thread), []).append(
                (record.position, record.id))
    for chain in threads.values():
        chain.sort()
        for (_, a), (_, b) in pairwise(chain):
            edges["NEXT"].write((_cell(a), _cell(b)))
    rec.header = [("id:ID(Record)" if name == "id" else
                   f"{name}:{'datetime' if name in TIME_PROPS else types.get(name, 'string')}")
                  for name in columns]
    scope_t = table("scopes", "nodes", "Scope",
                    ["key:ID(Scope)", "tenant:string", "pairs:string[]", "epoch:string"])
    version_t = table("versions", "nodes", "ScopeVersion",
                      ["key:ID(ScopeVersion)", "epoch:string", "tenant:string", "rev:long"])
    for key, (tenant, pairs, made) in scopes.items():
        scope_t.write(map(_cell, (key, tenant, pairs, str(uuid.uuid4()))))
        version_t.write(map(_cell, (key, versions[key], tenant, made)))
    group_t = table("assertions", "nodes", "Assertion",
                    ["gkey:ID(Assertion)", "tenant:string", "key:string"])
    for gkey, (tenant, asserted) in groups.items():
        group_t.write(map(_cell, (gkey, tenant, asserted)))
    migration_t = table("migrations", "nodes", "GraphmemMigration",
                        ["name:ID(GraphmemMigration)", "version:long", "at:datetime"])
    for name, version, _ in MIGRATIONS:
        migration_t.write(map(_cell, (name, version, at.isoformat())))
    tables = [rec, scope_t, version_t, group_t, migration_t, *edges.values()]
    for t in tables:
        t.close()
    return LoadFiles(folder, tables, count, len(scopes),
                     sum(t.rows for t in edges.values()), list_props)


def run_import_tool(home: Path, files: LoadFiles, *, overwrite: bool, database: str = "neo4j",
                    heap: str = "1g", off_heap: str = "1g", timeout_s: float = 3600,
                    lib_dir: Path | None = None) -> None:
    """Run ``neo4j-admin database import full`` (the launcher's jars) on ``home``'s database.

    The server of ``home`` must be stopped (the tool refuses a store in use). ``overwrite``:
    replace an existing database's files (the caller has made sure it was empty). ``heap``,
    ``off_heap``: the tool's memory (``"1g"``). ``lib_dir``: the jars (:func:`ensure_jars`).

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
    cmd = [java_executable(), *heap_flags(heap), *JVM_FLAGS, "-cp", str(lib_dir / "*"), ADMIN_TOOL,
           "database", "import", "full", *options, "--array-delimiter=U+001F",
           "--bad-tolerance=0", f"--overwrite-destination={str(overwrite).lower()}",
           f"--max-off-heap-memory={off_heap}",
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


def finish_load(store: StoreBase, files: LoadFiles) -> int:
    """After the loaded store's server started: give the list properties a CSV cell could not
    hold (empty lists) their empty list, as the online path stores them (``load/lists_fill``),
    and make the store's index key (:func:`graphmem.db.index_key.index_key`).

    Args:
        store: a :class:`graphmem.db.base.StoreBase` of the loaded database. files: the load's.

    Returns:
        the number of nodes visited.

    Raises:
        GraphmemError: a statement failed (translated driver error).
    """
    rows = store.write_once("load/lists_fill", record_keys=files.list_props,
                            scope_keys=["pairs"])
    # the store's index key, which an empty store makes when first opened (its cue_digest
    # migration, which the load recorded as reached)
    index_key(store)
    return int(rows[0]["nodes"]) if rows else 0
