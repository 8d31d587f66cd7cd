"""One proposal through the write policy and into the store, in one transaction
(docs/spec/write-path.md; writers into one scope run side by side, and a new record is one
statement).

A new record that no stored state can refuse (no duplicate, its references stored; the decision
then depends on the proposal alone) is stored in one statement, ``write/new.cypher``: one round
trip and one commit, where the transaction below takes four round trips; written while other
threads' writes are in flight, it is stored with them in one batch (group commit,
:mod:`graphmem.db.group_commit`). Anything else that statement finds (a stored id, a
duplicate, a missing node) writes nothing, and the full transaction decides.

The transaction runs ``write/check.cypher`` (lock the write's slots, then read the stored
ids, the active duplicates and the evidence the policy decides on), then either logs a
DISCARD or stores the record with ``records/write.cypher`` (record, edges, assertion group,
decision, and the record's stamp: its write slot's sequence, bumped under the lock
``write/check`` took; the scope's one ScopeVersion is not touched, so writers into one scope
do not queue on it, and a DISCARD moves no version). The nodes both only MATCH are created ahead of
the transaction (:mod:`graphmem.db.slots`). A threaded record takes the batch path
(``create_in_tx``), which relinks its thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graphmem.db.codec import (
    assertion_group,
    coerce_record,
    dedup_key,
    record_fingerprint,
    record_from_props,
    record_row,
    scope_key,
)
from graphmem.db.group_commit import write_new
from graphmem.db.records import batch_refs
from graphmem.db.slots import slot_keys, stamp_slot
from graphmem.db.store import Neo4jStore
from graphmem.errors import ConstraintViolationError
from graphmem.models import MemoryKind, MemoryRecord
from graphmem.write.policy import (
    PROCEDURE_EXEMPT_AUTHORITIES,
    MemoryWriteDecision,
    WriteDisposition,
    WritePolicy,
    decide,
)

__all__ = ["admit", "admitted_evidence"]


def admitted_evidence(rows: Iterable[dict[str, Any]], tenant: str) -> dict[str, MemoryRecord]:
    """The stored records that may support a proposal of ``tenant`` (docs/spec/write-path.md), by
    id.

    Args:
        rows: stored properties (``records/get`` rows) of the ids a proposal names.
        tenant: the proposal's tenant.

    Only admitted evidence counts: not quarantined (a quarantined episode is stored for audit,
    never eligible, so three poisoned "verified" episodes must not lift a procedure over the
    bar), not pending recompute, not erased, and of the proposal's own tenant.
    """
    return {props["id"]: record_from_props(props) for props in rows
            if not props.get("erased") and not props.get("quarantined")
            and not props.get("pending_recompute") and props.get("tenant") == tenant}


def admit(store: Neo4jStore, policy: WritePolicy, proposal: MemoryRecord | dict[str, Any], *,
          by: str, at: datetime, superseded: str | None = None) -> MemoryWriteDecision:
    """Decide ``proposal`` with the write policy and store it, atomically (see
    :func:`graphmem.write.lifecycle.write_record`, which delegates here). A persisted record
    that lists ``supersedes`` logs a "superseded" transition on each of them, by ``by``, in
    the same transaction, with the reason ``superseded`` (default: that the record is their
    successor).

    Raises:
        ValidationError and subclasses (also for a ``by`` that is not a string),
        RecordConflictError: nothing is written.
    """
    store.limits.check_notes(non_empty=False, by=by)  # else a bare ValueError while packing
    record = coerce_record(proposal)
    store.check_new_record(record)
    fingerprint = record_fingerprint(record)
    dedup = dedup_key(record)  # the content's normalisation, once per write (not four times)
    slots = slot_keys(record, dedup)
    params: dict[str, Any] = {
        "slots": slots, "ids": sorted({record.id} | batch_refs([record])),
        "scope_key": scope_key(record.scope), "dedup_key": dedup, "now": at,
        "skew_ms": policy.clock_skew_ms, "evidence_ids": list(record.evidence_ids),
    }

    def check(tx: ManagedTransaction) -> None:
        checked = store.run(tx, "write/check", write={**params, "slots": []})[0]
        existing = {row["id"]: row for row in checked["existing"]}
        store.check_thread_slots(tx, store.check_existing(
            [record], {record.id: fingerprint}, existing))

    if store.needs_write_nodes([record]):
        # A refused proposal must leave nothing behind: check it before creating its scope's
        # nodes (once per store object and scope; the write transaction checks again).
        store.transaction("write_check", check)
        store.ensure_write_nodes([record])

    # This call's own id, stored on the decision it logs with a record: a statement repeated
    # after its commit's acknowledgement was lost (the connection dropped) finds the record
    # it stored, which must not be taken for another's (a DISCARD of a duplicate).
    token = uuid.uuid4().hex
    superseded = superseded or f"successor {record.id} lists it in supersedes"
    fast = _decided_without_stored_state(record, policy)
    if fast is not None:
        # The agent loop's write (a new record, no duplicate): one statement, one round trip
        # and one commit (write/new.cypher). Anything else it finds writes nothing, and the
        # two-statement transaction below decides.
        try:
            if write_new(store, {**params, **_store_params(record, fingerprint, fast, by=by,
                                                           at=at, token=token,
                                                           superseded=superseded,
                                                           dedup=dedup)}):
                return fast
        except ConstraintViolationError:
            pass  # a concurrent writer created this id first: decide from what is stored

    def work(tx: ManagedTransaction) -> MemoryWriteDecision:
        checked = store.run(tx, "write/check", write=params)[0]
        if checked["locked"] < len(slots):  # lock nodes deleted since ensured
            store.create_slots_in_tx(tx, record)
            checked = store.run(tx, "write/check", write=params)[0]
        existing = {row["id"]: row for row in checked["existing"]}
        if fast is not None and token in (existing.get(record.id) or {}).get("tokens", ()):
            return fast  # stored by write_new above, though its acknowledgement was lost
        todo = store.check_existing([record], {record.id: fingerprint}, existing)
        if not todo:
            return _log(tx, MemoryWriteDecision(
                record.id, WriteDisposition.DISCARD, "identical record already stored"))
        store.check_thread_slots(tx, todo)
        evidence = admitted_evidence(checked["evidence"], record.tenant)
        decision = decide(record, policy=policy, duplicate_ids=checked["duplicates"],
                          evidence=evidence)
        if decision.disposition is WriteDisposition.DISCARD:
            return _log(tx, decision)
        quarantined = decision.disposition is WriteDisposition.QUARANTINE
        if record.thread is not None:
            store.create_in_tx(tx, [record], quarantined=quarantined,
                               fingerprints={record.id: fingerprint})
            for old in () if quarantined else record.supersedes:  # as record_store logs them
                store.log_transition(tx, old, "superseded", by, superseded, at)
            return _log(tx, decision)
        _store(tx, decision)
        return decision

    def _log(tx: ManagedTransaction, decision: MemoryWriteDecision) -> MemoryWriteDecision:
        store.run(tx, "write/decision_log", record_id=record.id, tenant=record.tenant,
                  disposition=decision.disposition.value, reason=decision.reason,
                  at=at, by=by)
        return decision

    def _store(tx: ManagedTransaction, decision: MemoryWriteDecision) -> None:
        write = _store_params(record, fingerprint, decision, by=by, at=at, token=token,
                              superseded=superseded, dedup=dedup)
        gkey = write["gkey"]
        rows = store.run(tx, "records/write", write=write)
        if not rows:  # its Scope was deleted since ensured: nothing written
            store.forget_write_nodes(record)
            store.merge_scopes_in_tx(tx, [record])
            rows = store.run(tx, "records/write", write=write)
        if gkey is not None and not rows[0]["grouped"]:  # the group was deleted since ensured
            store.forget_write_nodes(record)
            store.run(tx, "assertions_link", rows=[
                {"id": record.id, "gkey": gkey, "tenant": record.tenant, "key": record.asserts}])

    try:
        result: MemoryWriteDecision = store.transaction("write", work)
    except ConstraintViolationError:
        # A concurrent writer created this id first (with other content, or the same content
        # in another scope): decide again from what is stored now.
        result = store.transaction("write", work)
    return result


def _decided_without_stored_state(record: MemoryRecord, policy: WritePolicy
                                  ) -> MemoryWriteDecision | None:
    """The write policy's decision for ``record`` if no active duplicate is stored, when that
    decision depends on nothing else stored (docs/spec/write-path.md): None for a threaded record
    (its position is checked against the thread), a procedure that needs verified supporting
    episodes (their stored state counts), and a DISCARD (logged by the full transaction)."""
    if record.thread is not None or (record.kind is MemoryKind.PROCEDURAL
                                     and record.authority not in PROCEDURE_EXEMPT_AUTHORITIES):
        return None
    decision = decide(record, policy=policy)
    return None if decision.disposition is WriteDisposition.DISCARD else decision


def _store_params(record: MemoryRecord, fingerprint: str, decision: MemoryWriteDecision, *,
                  by: str, at: datetime, token: str, superseded: str, dedup: str
                  ) -> dict[str, Any]:
    """The parameters of ``cypher/parts/record_store.cypher`` for storing ``record`` with
    ``decision`` (PERSIST, or QUARANTINE: stored, never eligible) by the call ``token``;
    ``superseded``: the reason of the transition logged on each record it supersedes;
    ``fingerprint`` and ``dedup``: the record's fingerprint and dedup key."""
    slot, slot_index = stamp_slot(record, dedup)
    quarantined = decision.disposition is WriteDisposition.QUARANTINE
    return {"row": record_row(record, quarantined, fingerprint, dedup), "slot": slot,
            "slot_index": slot_index, "supersedes": list(record.supersedes),
            "derived_from": list(record.derived_from),
            "evidence_ids": list(record.evidence_ids),
            "gkey": None if record.asserts is None else assertion_group(record.tenant,
                                                                         record.asserts),
            "decision": {"tenant": record.tenant, "disposition": decision.disposition.value,
                         "reason": decision.reason, "at": at, "by": by, "token": token,
                         "superseded": superseded}}
