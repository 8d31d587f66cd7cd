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

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from graphmem.db.codec import coerce_record, record_from_props
from graphmem.db.ops.admission import Declared, StoredEvidence, WriteOps
from graphmem.models import MemoryKind, MemoryRecord
from graphmem.write.policy import (
    PROCEDURE_EXEMPT_AUTHORITIES,
    MemoryWriteDecision,
    WriteDisposition,
    WritePolicy,
    decide,
)

__all__ = ["IDENTICAL", "IDENTICAL_IDLE", "admit", "admitted_evidence"]

#: The reason of the DISCARD of a proposal stored already, identically, and in effect as the
#: write would have made it: the repeat of a call that took effect
#: (docs/spec/write-path.md#repeats).
IDENTICAL = "identical record already stored"
#: The reason when that stored record is not in effect so: quarantined (it supersedes nothing
#: until promoted: docs/spec/status.md#superseded), or not superseding what it lists.
IDENTICAL_IDLE = ("identical record already stored, but not in effect: quarantined, or not "
                  "superseding what it lists")


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
          by: str, at: datetime, superseded: str | None = None,
          declared: Sequence[Declared] = ()) -> MemoryWriteDecision:
    """Decide ``proposal`` with the write policy and store it, atomically (see
    :func:`graphmem.write.lifecycle.write_record`, which delegates here). A persisted record
    that lists ``supersedes`` logs a "superseded" transition on each of them, by ``by``, in
    the same transaction, with the reason ``superseded`` (default: that the record is their
    successor).

    A proposal stored already, identically, is a DISCARD: :data:`IDENTICAL` when the stored
    record is in effect as this write would have made it, else :data:`IDENTICAL_IDLE`.

    Args:
        store: the store's write operations. policy: the write policy. proposal: a record
        or its dict. by: who writes. at: aware UTC time of the decision.
        declared: transitions logged with a persisted record, in its transaction (and, once
        each, by the repeat of a call that took effect: :meth:`WriteOps.admit`).

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

    def identical(in_effect: bool) -> MemoryWriteDecision:
        return MemoryWriteDecision(record.id, WriteDisposition.DISCARD,
                                   IDENTICAL if in_effect else IDENTICAL_IDLE)

    return store.admit(record, by=by, at=at,
                       superseded=superseded or f"successor {record.id} lists it in supersedes",
                       skew_ms=policy.clock_skew_ms,
                       fast=_decided_without_stored_state(record, policy),
                       decide=on_stored, identical=identical, declared=declared)


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
