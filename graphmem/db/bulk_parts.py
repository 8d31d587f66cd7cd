"""The CSV rows of an initial load (docs/operations.md#initial-load), written in parts.

A part is the records of one stretch of the input file, in file order: a process of its own
reads, checks and writes each part (:mod:`graphmem.write.initial`), or the caller writes the one
part of :func:`write_load_files`. A part writes its edges as it goes and keeps its node rows,
whose last two columns (the record's ``stamp`` in its scope and the scope version's ``sepoch``,
as ``records/create`` counts them in file order) depend on the parts before it; once every part
is read, :func:`merge_parts` numbers the scopes across the parts, and each part writes its node
rows with :meth:`LoadPart.write_nodes`. The tables that hold what the parts share (scopes,
versions, assertion groups, thread chains, migrations) are written once, by
:func:`write_shared_tables`.
"""

from __future__ import annotations

import uuid
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple

from graphmem.db.bulk_load import LoadFiles, _cell, _Table, row_cells
from graphmem.db.codec import (
    TIME_PROPS,
    assertion_group,
    record_fingerprint,
    record_row,
    scope_pairs,
)
from graphmem.db.migrations import MIGRATIONS
from graphmem.db.records import linked
from graphmem.errors import StoreError
from graphmem.models import MemoryRecord

__all__ = ["LoadPart", "PartSummary", "RecordRefs", "SharedTables", "load_files", "merge_parts",
           "write_load_files", "write_shared_tables"]

_TYPES = {bool: "boolean", int: "long", float: "double", str: "string", list: "string[]"}
#: The edges a part writes: (type, end label, extra columns). ``NEXT`` (thread chains, which
#: may cross parts) is written by :func:`write_shared_tables`.
_EDGES: tuple[tuple[str, str, list[str]], ...] = (
    ("IN_SCOPE", "Scope", []), ("SUPERSEDES", "Record", []),
    ("DERIVED_FROM", "Record", ["ord:long"]), ("EVIDENCED_BY", "Record", []),
    ("ASSERTS", "Assertion", []))


class RecordRefs(NamedTuple):
    """What the file-wide checks of a load read of a record (the lineage and thread rules of
    :meth:`graphmem.db.records.RecordWrites.check_batch_lineage` and the references of
    ``check_existing``): a part sends these, not its records, to the process that checks."""

    id: str
    tenant: str
    thread: str | None
    position: int | None
    supersedes: tuple[str, ...]
    derived_from: tuple[str, ...]
    evidence_ids: tuple[str, ...]

    @classmethod
    def of(cls, r: MemoryRecord) -> RecordRefs:
        """The refs of a record."""
        return cls(r.id, r.tenant, r.thread, r.position, r.supersedes, r.derived_from,
                   r.evidence_ids)


@dataclass
class PartSummary:
    """What a part read (:meth:`LoadPart.summary`), for :func:`merge_parts`.

    Attributes:
        columns: the node columns but the last two; types: each column's CSV type where a
            value was met.
        scopes: scope key -> (tenant, pairs, records of the part), in first-met order.
        groups: assertion group key -> (tenant, asserted key). threads: (tenant, thread,
            position, id) of each threaded record. ids: the records' ids, in file order.
            linked: the :class:`RecordRefs` of those :func:`graphmem.db.records.linked` holds
            (the file-wide checks need no other).
        tables: the part's edge tables (closed).
    """

    columns: list[str]
    types: dict[str, str]
    scopes: dict[str, tuple[str, list[str], int]]
    groups: dict[str, tuple[str, str]]
    threads: list[tuple[str, str, int, str]]
    ids: list[str]
    linked: list[RecordRefs]
    tables: list[_Table]


@dataclass(frozen=True)
class SharedTables:
    """What :func:`merge_parts` decides for every part: the node header, and per scope key
    its version's epoch and, per part, how many of its records earlier parts hold."""

    header: list[str]
    epochs: dict[str, str]
    offsets: list[dict[str, int]]


class LoadPart:
    """The rows of one part of a load, written into ``folder`` as tables named ``*-{part}``.

    Args:
        folder: the load's CSV folder (exists). part: the part's number (0, 1, ...).
    """

    def __init__(self, folder: Path, part: int) -> None:
        self.part = part
        self.nodes = _Table(folder, f"nodes-{part}", "nodes", "Record")
        self.edges = {name: _Table(folder, f"{name.lower()}-{part}", "relationships", name,
                                   [":START_ID(Record)", f":END_ID({end})", *extra])
                      for name, end, extra in _EDGES}
        self.columns: list[str] = []
        self._column_set: frozenset[str] = frozenset()
        self.types: dict[str, str] = {}
        self.rows: list[str] = []
        self.row_scopes = array("q")  # each row's scope, as its number in self.scopes
        self.scopes: dict[str, tuple[str, list[str], int]] = {}
        self._scope_numbers: dict[str, int] = {}
        self.groups: dict[str, tuple[str, str]] = {}
        self.threads: list[tuple[str, str, int, str]] = []
        self.ids: list[str] = []
        self.linked: list[RecordRefs] = []
        self._shapes: set[tuple[type, ...]] = set()

    def add(self, record: MemoryRecord) -> None:
        """Add a record (checked, next in file order): its node row kept, its edges written.

        Raises:
            StoreError: its row has other columns than the part's first, or a column met
                values of two types.
        """
        row = record_row(record, False, record_fingerprint(record))
        merged = {**row["props"], **row["times"]}  # a time is in one of them, or None in both
        if not self.columns:
            self.columns = [*(k for k in merged if k not in TIME_PROPS), *TIME_PROPS]
            self._column_set = frozenset(self.columns)
            self.types.update((k, "string[]") for k, v in merged.items() if isinstance(v, list))
        if merged.keys() != self._column_set:
            raise StoreError(f"record {record.id!r} has columns {sorted(merged)}, "
                             f"the load's are {sorted(self.columns)}")
        values = [merged[k] for k in self.columns]
        shape = tuple(map(type, values))
        if shape not in self._shapes:  # a few shapes in a file: each is checked once
            self._check_types(values)
            self._shapes.add(shape)
        self.rows.append(row_cells(values))
        key = row["scope_key"]
        number = self._scope_numbers.get(key)
        if number is None:
            number = self._scope_numbers[key] = len(self._scope_numbers)
            self.scopes[key] = (record.tenant, scope_pairs(record.scope), 0)
        tenant, pairs, made = self.scopes[key]
        self.scopes[key] = (tenant, pairs, made + 1)
        self.row_scopes.append(number)
        self._add_edges(record, key)
        self.ids.append(record.id)
        if linked(record):
            self.linked.append(RecordRefs.of(record))

    def _check_types(self, values: Sequence[Any]) -> None:
        for name, value in zip(self.columns, values, strict=True):
            if value is not None and name not in TIME_PROPS:
                kind = _TYPES[type(value)]
                if self.types.setdefault(name, kind) != kind:
                    raise StoreError(f"column {name} holds a {kind} and a {self.types[name]}")

    def _add_edges(self, record: MemoryRecord, key: str) -> None:
        rid = _cell(record.id)
        self.edges["IN_SCOPE"].write((rid, _cell(key)))
        for ref in record.supersedes:
            self.edges["SUPERSEDES"].write((rid, _cell(ref)))
        for i, ref in enumerate(record.derived_from):
            self.edges["DERIVED_FROM"].write((rid, _cell(ref), str(i)))
        for ref in record.evidence_ids:
            self.edges["EVIDENCED_BY"].write((rid, _cell(ref)))
        if record.asserts is not None:
            gkey = assertion_group(record.tenant, record.asserts)
            self.groups.setdefault(gkey, (record.tenant, record.asserts))
            self.edges["ASSERTS"].write((rid, _cell(gkey)))
        if record.thread is not None and record.position is not None:
            self.threads.append((record.tenant, record.thread, record.position, record.id))

    def summary(self) -> PartSummary:
        """What the part read, its edge tables closed (see :class:`PartSummary`)."""
        for t in self.edges.values():
            t.close()
        return PartSummary(self.columns, self.types, self.scopes,
                           self.groups, self.threads, self.ids, self.linked,
                           list(self.edges.values()))

    def write_nodes(self, shared: SharedTables) -> _Table:
        """Write the node rows, each with its stamp and its scope version's epoch, and close
        the node table (``shared``: :func:`merge_parts`'s answer)."""
        offsets = shared.offsets[self.part]
        keys = list(self.scopes)
        made = [offsets.get(k, 0) for k in keys]
        tails = [',"' + shared.epochs[k] + '"' for k in keys]
        write = self.nodes.write_line
        for text, number in zip(self.rows, self.row_scopes, strict=True):
            made[number] += 1
            write(f"{text},{made[number]}{tails[number]}")
        self.rows = []
        self.nodes.header = shared.header
        self.nodes.close()
        return self.nodes


def merge_parts(parts: Sequence[PartSummary]) -> SharedTables:
    """The header, epochs and stamp offsets the parts' node rows need (file order: part 0
    first).

    Raises:
        StoreError: two parts' rows have other columns, or a column met values of two types.
    """
    columns = next((p.columns for p in parts if p.columns), [])
    types: dict[str, str] = {}
    for p in parts:
        if p.columns and p.columns != columns:
            raise StoreError(f"the load's parts have columns {sorted(columns)} and "
                             f"{sorted(p.columns)}")
        for name, kind in p.types.items():
            if types.setdefault(name, kind) != kind:
                raise StoreError(f"column {name} holds a {kind} and a {types[name]}")
    header = [("id:ID(Record)" if name == "id" else
               f"{name}:{'datetime' if name in TIME_PROPS else types.get(name, 'string')}")
              for name in columns] + ["stamp:long", "sepoch:string"]
    epochs: dict[str, str] = {}
    seen: dict[str, int] = {}
    offsets: list[dict[str, int]] = []
    for p in parts:
        offsets.append({k: seen.get(k, 0) for k in p.scopes})
        for key, (_, _, made) in p.scopes.items():
            if key not in epochs:
                epochs[key] = str(uuid.uuid4())
            seen[key] = seen.get(key, 0) + made
    return SharedTables(header, epochs, offsets)


def write_shared_tables(folder: Path, parts: Sequence[PartSummary], shared: SharedTables, *,
                        at: datetime) -> list[_Table]:
    """Write the tables the parts share: ``Scope`` and ``ScopeVersion`` nodes (the version's
    ``rev``: the scope's records), ``Assertion`` groups, the thread chains' ``NEXT`` edges (in
    position order) and the ``GraphmemMigration`` versions (stamped ``at``, aware UTC)."""
    scopes: dict[str, tuple[str, list[str], int]] = {}
    groups: dict[str, tuple[str, str]] = {}
    threads: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for p in parts:
        for key, (tenant, pairs, made) in p.scopes.items():
            scopes[key] = (tenant, pairs, scopes[key][2] + made if key in scopes else made)
        for gkey, group in p.groups.items():
            groups.setdefault(gkey, group)
        for tenant, thread, position, rid in p.threads:
            threads.setdefault((tenant, thread), []).append((position, rid))

    def table(name: str, kind: str, label: str, header: list[str]) -> _Table:
        return _Table(folder, name, kind, label, header)

    scope_t = table("scopes", "nodes", "Scope",
                    ["key:ID(Scope)", "tenant:string", "pairs:string[]", "epoch:string"])
    version_t = table("versions", "nodes", "ScopeVersion",
                      ["key:ID(ScopeVersion)", "epoch:string", "tenant:string", "rev:long"])
    for key, (tenant, pairs, made) in scopes.items():
        scope_t.write(map(_cell, (key, tenant, pairs, str(uuid.uuid4()))))
        version_t.write(map(_cell, (key, shared.epochs[key], tenant, made)))
    group_t = table("assertions", "nodes", "Assertion",
                    ["gkey:ID(Assertion)", "tenant:string", "key:string"])
    for gkey, (tenant, asserted) in groups.items():
        group_t.write(map(_cell, (gkey, tenant, asserted)))
    next_t = table("next", "relationships", "NEXT", [":START_ID(Record)", ":END_ID(Record)"])
    for chain in threads.values():
        chain.sort()
        for (_, a), (_, b) in pairwise(chain):
            next_t.write((_cell(a), _cell(b)))
    migration_t = table("migrations", "nodes", "GraphmemMigration",
                        ["name:ID(GraphmemMigration)", "version:long", "at:datetime"])
    for name, version, _ in MIGRATIONS:
        migration_t.write(map(_cell, (name, version, at.isoformat())))
    tables = [scope_t, version_t, group_t, next_t, migration_t]
    for t in tables:
        t.close()
    return tables


def load_files(folder: Path, parts: Sequence[PartSummary], nodes: Sequence[_Table],
               shared: list[_Table]) -> LoadFiles:
    """The :class:`LoadFiles` of a load whose parts wrote ``nodes`` and whose shared tables
    are ``shared``."""
    edges = [t for p in parts for t in p.tables] + [t for t in shared
                                                    if t.kind == "relationships"]
    return LoadFiles(folder, [*nodes, *shared, *(t for p in parts for t in p.tables)],
                     records=sum(t.rows for t in nodes),
                     scopes=next(t.rows for t in shared if t.label == "Scope"),
                     relationships=sum(t.rows for t in edges))


def write_load_files(records: Iterable[MemoryRecord], folder: Path, *, at: datetime
                     ) -> LoadFiles:
    """Write the node and relationship CSVs of ``records`` (checked together by
    :class:`graphmem.db.bulk_load.EmptyStoreChecks`, in file order) into ``folder`` (created),
    as one part.

    Args:
        records: the records. folder: a new folder. at: aware UTC instant stamped on the
            ``GraphmemMigration`` nodes.

    Raises:
        StoreError: a column met values of two types (a record row that changed shape).
    """
    folder.mkdir(parents=True, exist_ok=True)
    part = LoadPart(folder, 0)
    for record in records:
        part.add(record)
    summary = part.summary()
    shared = merge_parts([summary])
    nodes = part.write_nodes(shared)
    return load_files(folder, [summary], [nodes],
                      write_shared_tables(folder, [summary], shared, at=at))

