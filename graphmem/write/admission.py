"""One proposal through the write policy and into the store, in one transaction
(docs/spec/write-path.md; writers into one scope run side by side, and a new record is one
statement).

The policy decides here; the store admits (:meth:`graphmem.db.ops.admission.WriteOps.admit`):
a new record that no stored state can refuse (no duplicate, its references stored; the
decision then depends on the proposal alone) is stored in one statement, group-committed with
other threads' writes; anything else is decided inside the write's transaction, on what it
reads under the write's slot locks (:class:`~graphmem.db.ops.admission.StoredEvidence`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graphmem.db.codec import coerce_record, record_from_props
from graphmem.db.ops.admission import StoredEvidence, WriteOps
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


def admit(store: WriteOps, policy: WritePolicy, proposal: MemoryRecord | dict[str, Any], *,
          by: str, at: datetime, superseded: str | None = None) -> MemoryWriteDecision:
    """Decide ``proposal`` with the write policy and store it, atomically (see
    :func:`graphmem.write.lifecycle.write_record`, which delegates here). A persisted record
    that lists ``supersedes`` logs a "superseded" transition on each of them, by ``by``, in
    the same transaction, with the reason ``superseded`` (default: that the record is their
    successor).

    Args:
        store: the store's write operations. policy: the write policy. proposal: a record
        or its dict. by: who writes. at: aware UTC time of the decision.

    Raises:
        ValidationError and subclasses (also for a ``by`` that is not a string),
        RecordConflictError: nothing is written.
    """
    store.limits.check_notes(non_empty=False, by=by)  # else a bare ValueError while packing
    record = coerce_record(proposal)
    store.check_new_record(record)

    def on_stored(stored: StoredEvidence) -> MemoryWriteDecision:
        return decide(record, policy=policy, duplicate_ids=stored.duplicates,
                      evidence=admitted_evidence(stored.evidence, record.tenant))

    def identical(reason: str) -> MemoryWriteDecision:
        return MemoryWriteDecision(record.id, WriteDisposition.DISCARD, reason)

    return store.admit(record, by=by, at=at,
                       superseded=superseded or f"successor {record.id} lists it in supersedes",
                       skew_ms=policy.clock_skew_ms,
                       fast=_decided_without_stored_state(record, policy),
                       decide=on_stored, identical=identical)


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
