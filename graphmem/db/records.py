"""Record writes (docs/spec/records.md): validation of a batch (size, duplicate ids, cycles,
dangling or erased references), idempotent creation, and streamed imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar

from neo4j import ManagedTransaction

from graphmem.db.codec import (
    END_OF_STREAM,
    assertion_group,
    coerce_record,
    paused_gc,
    record_fingerprint,
    record_row,
    scope_key,
    scope_pairs,
    thread_key,
)
from graphmem.db.reserved import check_reserved_scope
from graphmem.db.slots import WriteSlots
from graphmem.errors import (
    ConstraintViolationError,
    ContentTooLargeError,
    DanglingReferenceError,
    LineageCycleError,
    RecordConflictError,
    ValidationError,
)
from graphmem.limits import InputLimits
from graphmem.models import MemoryRecord


class Lineage(Protocol):
    """What the batch and reference checks read of a record: a :class:`MemoryRecord`, or the
    :class:`graphmem.db.bulk_parts.RecordRefs` an initial load's parts send."""

    @property
    def id(self) -> str: ...
    @property
    def tenant(self) -> str: ...
    @property
    def thread(self) -> str | None: ...
    @property
    def position(self) -> int | None: ...
    @property
    def supersedes(self) -> tuple[str, ...]: ...
    @property
    def derived_from(self) -> tuple[str, ...]: ...
    @property
    def evidence_ids(self) -> tuple[str, ...]: ...


L = TypeVar("L", bound=Lineage)


def check_record_bounds(record: MemoryRecord, max_content_bytes: int, limits: InputLimits
                        ) -> None:
    """:meth:`RecordWrites.check_record` without a store (an offline initial load checks
    each record as an online import does: :mod:`graphmem.db.bulk_load`).

    Args:
        record: a validated record. max_content_bytes: the content bound, in UTF-8 bytes.
        limits: the bounds of provenance and metadata (:mod:`graphmem.limits`).

    Raises:
        ContentTooLargeError, ValidationError: the record breaks a bound.
    """
    size = len(record.content.encode("utf-8"))
    if size > max_content_bytes:
        raise ContentTooLargeError(
            f"content of {record.id!r} is {size} bytes; the maximum is "
            f"{max_content_bytes}", record_ids=[record.id],
        )
    limits.check_record(record)


class RecordWrites(WriteSlots):
    """Writing records: checks and creation in one transaction, batches and streams."""

    def check_record(self, record: MemoryRecord) -> None:
        """Store-level rules that the model alone cannot check: content size, and the
        bounds of :attr:`limits` (provenance, metadata; :mod:`graphmem.limits`).

        Raises:
            ContentTooLargeError, ValidationError: nothing is written.
        """
        check_record_bounds(record, self.max_content_bytes, self.limits)

    def check_new_record(self, record: MemoryRecord, *, adapter: str | None = None) -> None:
        """:meth:`check_record`, for a record about to be created by ``adapter`` (None: the
        client, MCP, an import): its scope holds no key another adapter reserves
        (:mod:`graphmem.db.reserved`).

        Raises:
            ContentTooLargeError, ValidationError: nothing is written.
        """
        self.check_record(record)
        check_reserved_scope(record.scope, adapter=adapter, record_id=record.id)

    @staticmethod
    def check_batch_lineage(records: Sequence[Lineage]) -> None:
        """Reject duplicate ids, and cycles inside one batch of ``derived_from``
        (LineageCycleError) or ``supersedes`` (ValidationError) references.

        Stored records cannot point at a record not yet written, so a new batch can only
        close a cycle among its own members.
        """
        RecordWrites.check_lineage([r.id for r in records], [r for r in records if linked(r)])

    @staticmethod
    def check_lineage(ids: Sequence[str], linked: Sequence[Lineage]) -> None:
        """:meth:`check_batch_lineage` of a batch given as its ids and those of its records
        that :func:`linked` holds (no other can be on a cycle or hold a thread position).

        Raises:
            ValidationError, LineageCycleError: as :meth:`check_batch_lineage`.
        """
        if len(set(ids)) != len(ids):
            dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
            raise ValidationError("a batch names the same id twice", record_ids=dupes)
        in_batch = {r.id: r for r in linked}
        cycle = _find_cycle(in_batch, "derived_from")
        if cycle:
            raise LineageCycleError("derived_from would form a cycle", record_ids=cycle)
        cycle = _find_cycle(in_batch, "supersedes")
        if cycle:
            raise ValidationError("supersedes would form a cycle", record_ids=cycle)
        slots: dict[tuple[str, str, int], str] = {}
        for r in linked:
            if r.thread is not None and r.position is not None:
                other = slots.setdefault((r.tenant, r.thread, r.position), r.id)
                if other != r.id:
                    raise ValidationError(
                        f"thread {r.thread!r} position {r.position} is given twice",
                        record_ids=sorted({other, r.id}))

    def _existing(self, tx: ManagedTransaction, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        rows = self.run(tx, "records/existing", ids=sorted(set(ids)))
        return {row["id"]: row for row in rows}

    def prepare_in_tx(
        self, tx: ManagedTransaction, records: Sequence[MemoryRecord],
        fingerprints: Mapping[str, str] | None = None,
    ) -> list[MemoryRecord]:
        """Check ids and references inside ``tx``; return the records still to create.

        Raises:
            RecordConflictError: an id exists with a different fingerprint.
            ValidationError: a new record's thread position is held by a stored record.
            DanglingReferenceError: a referenced id is neither stored nor in the batch, or
                names an erased record (only its tombstone remains).
        """
        existing = self._existing(tx, {r.id for r in records} | batch_refs(records))
        if fingerprints is None:  # only a stored id's is compared (an import's first check)
            fingerprints = {r.id: record_fingerprint(r) if r.id in existing else ""
                            for r in records}
        todo = self.check_existing(records, fingerprints, existing)
        self.check_thread_slots(tx, todo)
        return todo

    @staticmethod
    def check_existing(
        records: Sequence[L], fingerprints: Mapping[str, str],
        existing: Mapping[str, Mapping[str, Any]],
    ) -> list[L]:
        """The records of a batch still to create, given the stored ``existing`` rows
        (``records/existing``: id, fingerprint, erased) of its ids and references.

        Raises:
            RecordConflictError, DanglingReferenceError: as :meth:`prepare_in_tx`.
        """
        refs = batch_refs(records)
        conflicting = sorted(
            rid for rid in fingerprints
            if rid in existing and existing[rid]["fingerprint"] != fingerprints[rid]
        )
        if conflicting:
            raise RecordConflictError(
                "these ids already exist with different content", record_ids=conflicting
            )
        batch_ids = set(fingerprints)
        dangling = sorted(ref for ref in refs if (ref not in existing and ref not in batch_ids)
                          or (ref in existing and existing[ref]["erased"]))
        if dangling:
            raise DanglingReferenceError(
                "supersedes/derived_from/evidence_ids name ids not in the store",
                record_ids=dangling,
            )
        return [r for r in records if r.id not in existing]

    def check_thread_slots(self, tx: ManagedTransaction, todo: Sequence[MemoryRecord]) -> None:
        """Raise ValidationError if a thread position of ``todo`` is held by a stored record.

        The error names the positions and the writer's own ids, never the record holding a
        position: it may be another user's, whose id a confined writer must not learn
        (docs/spec/eligibility.md#confinement)."""
        slots = [{"tenant": r.tenant, "thread": r.thread, "position": r.position,
                  "thread_key": thread_key(r.tenant, r.thread)}
                 for r in todo if r.thread is not None]
        if slots:
            taken = self.run(tx, "records/thread_taken", slots=slots)
            if taken:
                raise ValidationError(
                    "thread positions already taken by a stored record: " + ", ".join(
                        f"{row['thread']!r}@{row['position']}" for row in taken),
                    record_ids=sorted({r.id for r in todo if r.thread is not None}))

    def create_in_tx(
        self, tx: ManagedTransaction, records: Sequence[MemoryRecord], *,
        quarantined: bool = False, fingerprints: Mapping[str, str] | None = None,
        rows: Mapping[str, dict[str, Any]] | None = None,
    ) -> dict[str, str]:
        """Create nodes and edges for already-prepared records (same transaction); returns
        the element id of each node made, by record id.

        Scopes first, then record nodes, then each edge type: every in-batch reference
        exists by the time its edge is created, whatever the order of ``records``.
        ``fingerprints`` and ``rows`` (by id) are what :meth:`prepare_batch` computed already.
        Datetimes travel as ISO-8601 strings and become Neo4j datetimes in Cypher: the
        driver's own datetime packing costs more than the rest of a record.
        """
        scopes = {scope_key(r.scope): r for r in records}
        self.merge_scopes_in_tx(tx, [r for key, r in scopes.items()
                                     if "s" + key not in self.ensured
                                     and "v" + key not in self.ensured])
        fps = fingerprints or {}
        ready = rows or {}
        table = [ready.get(r.id) or record_row(r, quarantined, fps.get(r.id)) for r in records]
        first = self.run(tx, "records/create", rows=table)[0]
        made = dict(zip(first["ids"], first["nodes"], strict=True))
        if len(made) < len(table):  # a Scope or ScopeVersion was deleted since ensured
            missing = [row for row in table if row["props"]["id"] not in made]
            keys = {row["scope_key"] for row in missing}
            self.merge_scopes_in_tx(tx, [r for key, r in scopes.items() if key in keys])
            again = self.run(tx, "records/create", rows=missing)[0]
            made.update(zip(again["ids"], again["nodes"], strict=True))
        for name, field in (("edges/supersedes", "supersedes"),
                            ("edges/derived_from", "derived_from"),
                            ("edges/evidenced_by", "evidence_ids")):
            edges = [{"src": r.id, "dst": dst, "ord": i}
                     for r in records for i, dst in enumerate(getattr(r, field))]
            if edges:
                self.run(tx, name, edges=edges)
        threads = sorted({(r.tenant, r.thread) for r in records if r.thread is not None})
        if threads:
            self.run(tx, "edges/next", threads=[{"tenant": t, "thread": th,
                                                 "thread_key": thread_key(t, th)}
                                                for t, th in threads])
        groups = [{"id": r.id, "gkey": assertion_group(r.tenant, r.asserts), "tenant": r.tenant,
                   "key": r.asserts} for r in records if r.asserts is not None]
        if groups:
            self.run(tx, "assertions_link", rows=groups)
        return made

    def merge_scopes_in_tx(self, tx: ManagedTransaction, records: Sequence[MemoryRecord]) -> None:
        """Create the Scope and ScopeVersion nodes of ``records`` inside ``tx`` if missing."""
        if records:
            self.ensured.difference_update(
                p + scope_key(r.scope) for r in records for p in ("s", "v"))
            self.run(tx, "scopes_merge", scopes=[
                {"key": scope_key(r.scope), "tenant": r.tenant, "pairs": scope_pairs(r.scope)}
                for r in records])

    # -- writes ---------------------------------------------------------------------

    def prepare_batch(
        self, records: Iterable[MemoryRecord | dict[str, Any]], *, quarantined: bool = False
    ) -> PreparedBatch:
        """Validate a batch and compute its rows, without touching the database.

        Raises:
            ValidationError (and subclasses): a record breaks docs/spec/records.md, a content is
                too large, or the batch repeats an id or has a lineage cycle.
        """
        with paused_gc():  # many small acyclic objects; a bulk import holds many more
            batch = [coerce_record(r) for r in records]
            for r in batch:
                self.check_new_record(r)
            self.check_batch_lineage(batch)
            return self.prepare_checked(batch, quarantined=quarantined)

    @staticmethod
    def prepare_checked(records: Sequence[MemoryRecord], *, quarantined: bool = False
                        ) -> PreparedBatch:
        """The fingerprints and rows of records that passed :meth:`prepare_batch`'s checks
        already (an import validates its whole file first: :mod:`graphmem.write.imports`),
        without touching the database."""
        with paused_gc():
            batch = list(records)
            fingerprints = {r.id: record_fingerprint(r) for r in batch}
            rows = {r.id: record_row(r, quarantined, fingerprints[r.id]) for r in batch}
            return PreparedBatch(batch, fingerprints, rows, quarantined)

    def write_prepared(self, prepared: PreparedBatch) -> list[str]:
        """Write a prepared batch in one transaction: everything or nothing.

        Returns the ids created (identical re-writes are no-ops and are left out).

        The transaction knows its own commit (:meth:`StoreBase.transaction`): a run of it
        keeps the element ids of the nodes it made, and a run again after a commit whose
        acknowledgement was lost (``IncompleteCommit``) that finds them stored returns the
        ids that run created, changing nothing, where the call raised
        :class:`~graphmem.errors.DatabaseUnavailableError` (outcome unknown) and its repeat
        reported nothing created.

        Raises:
            RecordConflictError, DanglingReferenceError: nothing is written.
        """
        made: dict[str, str] = {}  # record id -> element id of the node a run of work made
        ran: list[str] = []  # the ids that run created, in the batch's order

        def work(tx: ManagedTransaction) -> list[str]:
            if made:  # a run before this one made them: did its commit land?
                first = next(iter(made))
                stored = self._existing(tx, [first]).get(first)
                if stored is not None and stored["node"] == made[first]:
                    return list(ran)  # the transaction is atomic: all of them did
                made.clear()
            todo = self.prepare_in_tx(tx, prepared.records, prepared.fingerprints)
            ran[:] = [r.id for r in todo]
            if todo:
                made.update(self.create_in_tx(
                    tx, todo, quarantined=prepared.quarantined,
                    fingerprints=prepared.fingerprints, rows=prepared.rows))
            return list(ran)

        try:
            created: list[str] = self.transaction("put_many", work, knows_its_commit=True)
        except ConstraintViolationError:
            # A concurrent writer created one of these ids first: decide again from what is
            # stored now (identical -> no-op, different -> RecordConflictError).
            made.clear()
            created = self.transaction("put_many", work, knows_its_commit=True)
        # committed: their Scope and ScopeVersion nodes exist (records/create MATCHes them)
        self.ensured.update("v" + scope_key(r.scope) for r in prepared.records)
        return created

    def put_many(
        self, records: Iterable[MemoryRecord | dict[str, Any]], *, quarantined: bool = False
    ) -> list[str]:
        """Write records without policy, all in one transaction: everything or nothing.

        Args:
            records: records (or dicts validated into records), any iterable (read once).
            quarantined: store them as quarantined (audit only, never eligible).

        Returns:
            The ids actually created (identical re-writes are no-ops and are left out).

        Raises:
            ValidationError (and subclasses), RecordConflictError: nothing is written.
        """
        return self.write_prepared(self.prepare_batch(records, quarantined=quarantined))

    def put_stream(
        self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]], *,
        quarantined: bool = False, checked: bool = False,
    ) -> Iterator[list[str]]:
        """Write batches in order, one transaction each, preparing the next batch (validation,
        fingerprints, rows) in a worker thread while the server writes the current one.

        Yields the ids created by each batch once it is committed. A batch that fails
        raises when its turn comes; the batches before it stay written (as with a loop of
        :meth:`put_many`), nothing of it or after it is. ``checked``: the batches hold
        :class:`MemoryRecord` instances that passed :meth:`prepare_batch`'s checks already,
        together (:func:`graphmem.write.imports.read_records`), and are not checked again.
        """
        it = iter(batches)
        prepare = partial(self.prepare_checked if checked else self.prepare_batch,
                          quarantined=quarantined)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-prepare") as pool:
            def submit() -> Future[PreparedBatch] | None:
                batch = next(it, END_OF_STREAM)
                if batch is END_OF_STREAM:
                    return None
                if batch is None or isinstance(batch, str | bytes | Mapping) or not isinstance(
                        batch, Iterable):
                    raise ValidationError(f"put_stream: a batch is {type(batch).__name__}, "
                                          "not a sequence of records")
                return pool.submit(prepare, batch)

            pending = submit()
            while pending is not None:
                prepared = pending.result()
                try:
                    pending = submit()
                except BaseException:
                    self.write_prepared(prepared)  # what the producer handed over is written
                    raise
                yield self.write_prepared(prepared)

    def put(self, record: MemoryRecord | dict[str, Any]) -> bool:
        """Write one record without policy (docs/spec/records.md). True if created, False if
        no-op."""
        return bool(self.put_many([record]))



@dataclass(frozen=True)
class PreparedBatch:
    """A validated batch with its fingerprints and ``records/create`` rows (by id)."""

    records: list[MemoryRecord]
    fingerprints: dict[str, str]
    rows: dict[str, dict[str, Any]]
    quarantined: bool



def linked(record: Lineage) -> bool:
    """True for a record that references others (supersedes, derived_from, evidence_ids) or
    sits in a thread: the only ones the batch checks look at beyond their ids."""
    return bool(record.supersedes or record.derived_from or record.evidence_ids
                or record.thread is not None)


def batch_refs(records: Iterable[Lineage]) -> set[str]:
    """Every id that records of a batch reference (supersedes, derived_from, evidence_ids)."""
    return {ref for r in records for ref in (*r.supersedes, *r.derived_from, *r.evidence_ids)}


def _find_cycle(in_batch: Mapping[str, Lineage], field: str) -> list[str]:
    """Ids on one cycle of ``field`` references among ``in_batch`` (empty if acyclic)."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for root, record in in_batch.items():
        if state.get(root) or not getattr(record, field):  # no reference: on no cycle
            continue
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(getattr(in_batch[root], field)))]
        state[root] = 1
        while stack:
            node, refs = stack[-1]
            nxt = next((p for p in refs if p in in_batch), None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [n for n, _ in stack]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(getattr(in_batch[nxt], field))))
    return []
