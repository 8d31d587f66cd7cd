"""The write path's operations (docs/spec/write-path.md): a proposal admitted and stored in one
transaction, declared transitions, and what the write path and imports read of stored records.

:class:`WriteOps` is what :mod:`graphmem.write` needs of the store; :class:`Neo4jWrites` runs it
on a :class:`~graphmem.db.store.Neo4jStore`. The write policy stays in the write path: an
admission takes it as two functions, one deciding on what is stored
(:class:`StoredEvidence`) inside the write's transaction, one making the DISCARD of an
identical stored record.

:meth:`Neo4jWrites.admit`: a new record that no stored state can refuse (``fast``: its decision
depends on the proposal alone) is stored in one statement, ``write/new.cypher``, group-committed
with other threads' writes (:mod:`graphmem.db.group_commit`); anything else that statement finds
writes nothing, and the transaction decides: ``write/check.cypher`` (lock the write's slots,
read the stored ids, the active duplicates and the evidence), then either logs a DISCARD or
stores the record with ``records/write.cypher`` (record, edges, assertion group, decision and
the record's stamp: its write slot's sequence, bumped under the lock ``write/check`` took). The
nodes both only MATCH are created ahead of the transaction (:mod:`graphmem.db.slots`). A
threaded record takes the batch path (``create_in_tx``), which relinks its thread. A write
that declares transitions (:class:`Declared`: a consolidation's, a promotion's) takes the
transaction, which logs them with the record. A record stored identically already is a DISCARD
whose ``write/identical.cypher`` says whether it is in effect, and logs then the declared
transitions a repeat of the call finds missing (docs/spec/write-path.md#repeats).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol, TypeVar, cast

from neo4j import ManagedTransaction

from graphmem.db.codec import (
    StoredState,
    assertion_group,
    dedup_key,
    record_fingerprint,
    record_row,
    scope_key,
    scope_pairs,
)
from graphmem.db.group_commit import write_new
from graphmem.db.records import batch_refs
from graphmem.db.slots import slot_keys, stamp_slot
from graphmem.db.store import Neo4jStore
from graphmem.errors import ConstraintViolationError
from graphmem.limits import InputLimits
from graphmem.models import MemoryRecord

__all__ = ["Declared", "Disposed", "Neo4jWrites", "StoredEvidence", "WriteOps"]


class Disposed(Protocol):
    """What an admission needs of a write decision: its disposition (``DISCARD``,
    ``QUARANTINE`` or ``PERSIST``) and its reason (one sentence, no record content)."""

    @property
    def disposition(self) -> str: ...

    @property
    def reason(self) -> str: ...


D = TypeVar("D", bound=Disposed)


class StoredEvidence(NamedTuple):
    """What the write policy decides on, read under the write's slot locks: the ids of the
    active records the proposal duplicates, and the stored properties (``records/get``'s) of
    the records it names as evidence."""

    duplicates: list[str]
    evidence: list[dict[str, Any]]


class Declared(NamedTuple):
    """A declared transition a write logs with the record it persists, in its transaction
    (docs/spec/write-path.md#lifecycle), by the write's ``by`` at its time: ``kind`` on
    ``record_id`` (the record itself, or one it replaces), with ``reason``; ``successor``: the
    record replacing ``record_id``, which the reason names, or None."""

    record_id: str
    kind: str
    reason: str
    successor: str | None = None


class WriteOps(Protocol):
    """What the write path (:mod:`graphmem.write`) needs of the store."""

    @property
    def limits(self) -> InputLimits:
        """The bounds of user-supplied values."""

    def clock(self) -> datetime:
        """The store's clock: aware UTC now."""

    def check_new_record(self, record: MemoryRecord) -> None:
        """Validate a record about to be created (sizes, reserved scope keys)."""

    def check_batch_lineage(self, records: Sequence[MemoryRecord]) -> None:
        """Reject duplicate ids and cycles inside one batch."""

    def check_import(self, records: Sequence[MemoryRecord]) -> None:
        """Check a batch to import against what is stored (conflicting ids, dangling
        references), writing nothing."""

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord]], *, checked: bool = False
                   ) -> Iterator[list[str]]:
        """Write batches without policy, one transaction each; the ids each created.
        ``checked``: every record passed :meth:`check_new_record` and the batches together
        :meth:`check_batch_lineage` already (they are not checked again)."""

    def get(self, record_id: str) -> MemoryRecord:
        """The record (RecordNotFoundError when missing or erased)."""

    def get_props(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored properties by id (missing ids absent)."""

    def state(self, record_id: str) -> StoredState:
        """Lifecycle flags of a record."""

    def set_quarantine(self, record_id: str, flag: bool, *, by: str, reason: str) -> None:
        """Quarantine a record or promote it out of quarantine, as a logged transition."""

    def admit(self, record: MemoryRecord, *, by: str, at: datetime, superseded: str,
              skew_ms: int, fast: D | None, decide: Callable[[StoredEvidence], D],
              identical: Callable[[bool], D], declared: Sequence[Declared] = ()) -> D:
        """Decide ``record`` and store it, atomically (see the module docstring).

        Args:
            record: a validated proposal. by: who writes. at: aware UTC time of the decision.
            superseded: the reason of the "superseded" transition logged on each record a
                stored record supersedes. skew_ms: the duplicate check's window, in ms.
            fast: the decision when no active duplicate is stored and nothing else stored
                can change it (None: the transaction decides).
            decide: the write policy on what is stored. identical: the DISCARD of a record
                stored identically already, told whether that record is in effect as this
                write would have made it (admitted, superseding what ``record`` lists: a
                repeat of a call that took effect; ``write/identical.cypher``).
            declared: transitions logged in the transaction when ``record`` persists, and
                when it is stored identically already and in effect, each not logged yet
                (so a repeated call logs none twice).

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
        """


class Neo4jWrites:
    """:class:`WriteOps` on a Neo4j store.

    Args:
        store: the store.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self._store = store

    @property
    def limits(self) -> InputLimits:
        """The store's input limits."""
        return self._store.limits

    def clock(self) -> datetime:
        """See :meth:`WriteOps.clock`."""
        return self._store.clock()

    def check_new_record(self, record: MemoryRecord) -> None:
        """See :meth:`WriteOps.check_new_record`."""
        self._store.check_new_record(record)

    def check_batch_lineage(self, records: Sequence[MemoryRecord]) -> None:
        """See :meth:`WriteOps.check_batch_lineage`."""
        self._store.check_batch_lineage(records)

    def check_import(self, records: Sequence[MemoryRecord]) -> None:
        """See :meth:`WriteOps.check_import`: one transaction that writes nothing."""
        store = self._store

        def work(tx: ManagedTransaction) -> None:
            store.prepare_in_tx(tx, records)

        store.transaction("import_precheck", work)

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord]], *, checked: bool = False
                   ) -> Iterator[list[str]]:
        """See :meth:`WriteOps.put_stream`."""
        return self._store.put_stream(batches, checked=checked)

    def get(self, record_id: str) -> MemoryRecord:
        """See :meth:`WriteOps.get`."""
        return self._store.get(record_id)

    def get_props(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """See :meth:`WriteOps.get_props`."""
        return self._store.get_props(ids)

    def state(self, record_id: str) -> StoredState:
        """See :meth:`WriteOps.state`."""
        return self._store.state(record_id)

    def set_quarantine(self, record_id: str, flag: bool, *, by: str, reason: str) -> None:
        """See :meth:`WriteOps.set_quarantine`."""
        self._store.set_quarantine(record_id, flag, by=by, reason=reason)

    def admit(self, record: MemoryRecord, *, by: str, at: datetime, superseded: str,
              skew_ms: int, fast: D | None, decide: Callable[[StoredEvidence], D],
              identical: Callable[[bool], D], declared: Sequence[Declared] = ()) -> D:
        """See :meth:`WriteOps.admit`."""
        store = self._store
        transitions = [t._asdict() for t in declared]
        fingerprint = record_fingerprint(record)
        dedup = dedup_key(record)  # the content's normalisation, once per write (not four)
        slots = slot_keys(record, dedup)
        params: dict[str, Any] = {
            "slots": slots, "ids": sorted({record.id} | batch_refs([record])),
            "scope_key": scope_key(record.scope), "dedup_key": dedup, "now": at,
            "skew_ms": skew_ms, "max_rank": record.sensitivity.rank,
            "evidence_ids": list(record.evidence_ids),
        }

        def check(tx: ManagedTransaction) -> None:
            checked = store.run(tx, "write/check", write={**params, "slots": []})[0]
            existing = {row["id"]: row for row in checked["existing"]}
            store.check_thread_slots(tx, store.check_existing(
                [record], {record.id: fingerprint}, existing))

        if store.needs_write_nodes([record]):
            # A refused proposal must leave nothing behind: check it before creating its
            # scope's nodes (once per store object and scope; the write transaction checks
            # again).
            store.transaction("write_check", check)
            store.ensure_write_nodes([record])

        # This call's own id, stored on the decision it logs with a record: a statement
        # repeated after its commit's acknowledgement was lost (the connection dropped) finds
        # the record it stored, which must not be taken for another's (a DISCARD of a
        # duplicate).
        token = uuid.uuid4().hex
        if fast is not None and not transitions:  # a declared transition: the transaction
            # The agent loop's write (a new record, no duplicate): one statement, one round
            # trip and one commit (write/new.cypher). Anything else it finds writes nothing,
            # and the two-statement transaction below decides.
            try:
                if write_new(store, {**params, **_store_params(
                        record, fingerprint, fast, by=by, at=at, token=token,
                        superseded=superseded, dedup=dedup)}):
                    return fast
            except ConstraintViolationError:
                pass  # a concurrent writer created this id first: decide from what is stored

        stored: list[D] = []  # the decision a run of work stored the record with

        def work(tx: ManagedTransaction) -> D:
            checked = store.run(tx, "write/check", write=params)[0]
            if checked["locked"] < len(slots):  # lock nodes deleted since ensured
                store.create_slots_in_tx(tx, record)
                checked = store.run(tx, "write/check", write=params)[0]
            existing = {row["id"]: row for row in checked["existing"]}
            if token in (existing.get(record.id) or {}).get("tokens", ()):
                # stored by this call, though the acknowledgement of its commit was lost:
                # by write_new above, or by an earlier run of this function
                return stored[-1] if stored else cast(D, fast)
            todo = store.check_existing([record], {record.id: fingerprint}, existing)
            if not todo:  # stored identically: a repeat of the call, if in effect
                twin = store.run(tx, "write/identical", record_id=record.id,
                                 supersedes=list(record.supersedes), declared=transitions,
                                 by=by, at=at)[0]
                return _log(tx, identical(twin["in_effect"]))
            store.check_thread_slots(tx, todo)
            decision = decide(StoredEvidence(checked["duplicates"], checked["evidence"]))
            if decision.disposition == "DISCARD":
                return _log(tx, decision)
            stored.append(decision)
            quarantined = decision.disposition == "QUARANTINE"
            if record.thread is not None:
                store.create_in_tx(tx, [record], quarantined=quarantined,
                                   fingerprints={record.id: fingerprint})
                for old in () if quarantined else record.supersedes:  # as record_store logs
                    store.log_transition(tx, old, "superseded", by, superseded, at,
                                         successor=record.id)
                _declare(tx, decision)
                return _log(tx, decision, own=True)
            _store(tx, decision)
            _declare(tx, decision)
            return decision

        def _declare(tx: ManagedTransaction, decision: D) -> None:
            for t in declared if decision.disposition == "PERSIST" else ():
                store.log_transition(tx, t.record_id, t.kind, by, t.reason, at,
                                     successor=t.successor)

        def _log(tx: ManagedTransaction, decision: D, *, own: bool = False) -> D:
            # the token only on the decision of the record this call stored: a DISCARD's
            # decision hangs off another's record, which must not be taken for this call's
            store.run(tx, "write/decision_log", record_id=record.id, tenant=record.tenant,
                      disposition=str(decision.disposition), reason=decision.reason,
                      at=at, by=by, pairs=scope_pairs(record.scope),
                      sensitivity_rank=record.sensitivity.rank,
                      token=token if own else None)
            return decision

        def _store(tx: ManagedTransaction, decision: D) -> None:
            write = _store_params(record, fingerprint, decision, by=by, at=at, token=token,
                                  superseded=superseded, dedup=dedup)
            gkey = write["gkey"]
            rows = store.run(tx, "records/write", write=write)
            if not rows:  # its Scope was deleted since ensured: nothing written
                store.forget_write_nodes(record)
                store.merge_scopes_in_tx(tx, [record])
                rows = store.run(tx, "records/write", write=write)
            if gkey is not None and not rows[0]["grouped"]:  # the group was deleted since
                store.forget_write_nodes(record)
                store.run(tx, "assertions_link", rows=[
                    {"id": record.id, "gkey": gkey, "tenant": record.tenant,
                     "key": record.asserts}])

        try:
            result: D = store.transaction("write", work, knows_its_commit=True)
        except ConstraintViolationError:
            # A concurrent writer created this id first (with other content, or the same
            # content in another scope): decide again from what is stored now.
            result = store.transaction("write", work, knows_its_commit=True)
        return result


def _store_params(record: MemoryRecord, fingerprint: str, decision: Disposed, *,
                  by: str, at: datetime, token: str, superseded: str, dedup: str
                  ) -> Mapping[str, Any]:
    """The parameters of ``cypher/parts/record_store.cypher`` for storing ``record`` with
    ``decision`` (PERSIST, or QUARANTINE: stored, never eligible) by the call ``token``;
    ``superseded``: the reason of the transition logged on each record it supersedes;
    ``fingerprint`` and ``dedup``: the record's fingerprint and dedup key."""
    slot, slot_index = stamp_slot(record, dedup)
    quarantined = decision.disposition == "QUARANTINE"
    return {"row": record_row(record, quarantined, fingerprint, dedup), "slot": slot,
            "slot_index": slot_index, "supersedes": list(record.supersedes),
            "derived_from": list(record.derived_from),
            "evidence_ids": list(record.evidence_ids),
            "gkey": None if record.asserts is None else assertion_group(record.tenant,
                                                                         record.asserts),
            "decision": {"tenant": record.tenant, "disposition": str(decision.disposition),
                         "reason": decision.reason, "at": at, "by": by, "token": token,
                         "superseded": superseded}}
