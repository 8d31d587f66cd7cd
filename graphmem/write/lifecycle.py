"""Writes through the policy and the declared lifecycle transitions (docs/spec/write-path.md).

Each function takes the store (and the write policy where it decides) and runs its checks and
its storage in one transaction, so a refused or failed write leaves nothing behind.
:class:`graphmem.Memory` delegates here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.db.codec import coerce_record
from graphmem.db.ops.admission import Declared, WriteOps
from graphmem.errors import PolicyError, ValidationError
from graphmem.models import MemoryKind, MemoryRecord
from graphmem.write.admission import IDENTICAL, admit, admitted_evidence
from graphmem.write.policy import (
    MemoryWriteDecision,
    WriteDisposition,
    WritePolicy,
    verified_episodes,
)

__all__ = ["consolidate", "promote", "promote_procedure", "supersede",
           "write_record"]

Proposal = MemoryRecord | dict[str, Any]


def write_record(store: WriteOps, policy: WritePolicy, proposal: Proposal, *, by: str,
                 at: datetime, superseded: str | None = None,
                 declared: Sequence[Declared] = ()) -> MemoryWriteDecision:
    """Run a proposal through the write policy, atomically with its storage.

    DISCARD stores nothing but the decision; QUARANTINE stores the record for audit, never
    eligible; PERSIST stores it. Concurrent identical writes into one scope are serialised on
    their write slot, so only one of them persists (:mod:`graphmem.write.admission`). A
    persisted record that lists ``supersedes`` logs a "superseded" transition on each of them
    in the same transaction (docs/spec/write-path.md: a declared transition with who, why and when).

    Args:
        store: the store's write operations. policy: the write policy. proposal: a record
        or its dict.
        by: who writes. at: aware UTC time of the decision. superseded: the reason of those
        transitions (default: that the record is their successor). declared: other
        transitions logged with a persisted record, in the same transaction.

    Raises:
        ValidationError and subclasses, RecordConflictError: nothing is written.
    """
    return admit(store, policy, proposal, by=by, at=at, superseded=superseded,
                 declared=declared)


def promote(store: WriteOps, record_id: str, *, by: str, reason: str) -> None:
    """Promote a quarantined record after explicit review (the only way out;
    docs/spec/write-path.md).

    Raises:
        PolicyError: the record is not quarantined. RecordNotFoundError.
        ValidationError: ``by`` or ``reason`` is not a non-empty string.
    """
    store.limits.check_notes([record_id], by=by, reason=reason)
    if not store.state(record_id).quarantined:
        raise PolicyError("only a quarantined record can be promoted", record_ids=[record_id])
    store.set_quarantine(record_id, False, by=by, reason=reason)


def supersede(store: WriteOps, policy: WritePolicy, old_ids: Sequence[str],
              new_record: Proposal, *, by: str, reason: str) -> MemoryWriteDecision:
    """Write ``new_record`` as the successor of ``old_ids`` (docs/spec/write-path.md).

    The new record must list every old id in ``supersedes`` (or list none, and they are
    added). A repeat of a call that took effect (a retry, a second worker: the successor is
    stored identically and supersedes them) returns the DISCARD "identical record already
    stored" and logs nothing twice (docs/spec/write-path.md#repeats).

    Raises:
        PolicyError: the write policy does not persist it, or it is stored already but not
            in effect (quarantined). RecordNotFoundError: an old id. RecordConflictError:
            another record is stored with the successor's id.
        ValidationError: ``by`` or ``reason`` is not a non-empty string.
    """
    return _succeed(store, policy, old_ids, new_record, by=by, reason=reason)


def _succeed(store: WriteOps, policy: WritePolicy, old_ids: Sequence[str],
             new_record: Proposal, *, by: str, reason: str,
             declared: Sequence[Declared] = ()) -> MemoryWriteDecision:
    """:func:`supersede`, logging also the transitions ``declared``, in the successor's
    transaction."""
    store.limits.check_notes(list(old_ids), by=by, reason=reason)
    record = coerce_record(new_record)
    missing = [i for i in old_ids if i not in record.supersedes]
    if missing:
        record = record.model_copy(update={"supersedes": (*record.supersedes, *missing)})
        record = coerce_record(record.model_dump())
    for old in old_ids:
        store.get(old)
    decision = write_record(store, policy, record, by=by, at=store.clock(),
                            superseded=f"{reason} (successor {record.id})",
                            declared=declared)
    if not _took_effect(decision):
        raise PolicyError(f"successor not persisted: {decision.reason}", record_ids=[record.id])
    return decision


def _took_effect(decision: MemoryWriteDecision) -> bool:
    """Whether a lifecycle call's write took effect: persisted now, or the repeat of a call
    that did (stored identically already, in effect: docs/spec/write-path.md#repeats)."""
    return decision.disposition is WriteDisposition.PERSIST or (
        decision.disposition is WriteDisposition.DISCARD and decision.reason == IDENTICAL)


def consolidate(store: WriteOps, policy: WritePolicy, ids: Sequence[str], *,
                into: Proposal, by: str, reason: str) -> MemoryWriteDecision:
    """Replace duplicates with one record carrying ``derived_from`` lineage to them.

    ``into`` gets ``derived_from`` and ``supersedes`` set to ``ids`` (merged with its own), so
    the duplicates stop being active once it is effective (docs/spec/write-path.md). The
    "consolidated" transition of each id commits with it, in one transaction; a repeat is
    as :func:`supersede`'s.

    Raises:
        ValidationError: fewer than two ids, or ``by`` or ``reason`` is not a non-empty
            string. PolicyError, RecordNotFoundError.
    """
    store.limits.check_notes(list(ids), by=by, reason=reason)
    if len(ids) < 2:
        raise ValidationError("consolidate needs at least two records", record_ids=ids)
    record = coerce_record(into)
    for i in ids:
        store.get(i)
    merged = record.model_dump()
    merged["derived_from"] = tuple(dict.fromkeys((*record.derived_from, *ids)))
    merged["supersedes"] = tuple(dict.fromkeys((*record.supersedes, *ids)))
    return _succeed(store, policy, ids, merged, by=by, reason=reason, declared=[
        Declared(i, "consolidated", f"{reason} (into {record.id})", record.id) for i in ids])


def promote_procedure(store: WriteOps, policy: WritePolicy, episode_ids: Sequence[str],
                      procedure: Proposal, *, by: str, reason: str) -> MemoryWriteDecision:
    """Promote episodes into a procedure once the bar is met (docs/spec/write-path.md).

    The "promoted_procedure" transition commits with the procedure, in one transaction; a
    repeat of a call that took effect returns the DISCARD "identical record already stored"
    and logs it once (docs/spec/write-path.md#repeats).

    Raises:
        PolicyError: fewer than ``policy.min_verified_episodes`` verified episodes (admitted
            ones of the procedure's tenant: :func:`graphmem.write.admission.
            admitted_evidence`), or the policy does not persist the procedure (or it is
            stored already, quarantined).
        ValidationError: not procedural, or ``by`` or ``reason`` is not a non-empty string.
    """
    store.limits.check_notes(list(episode_ids), by=by, reason=reason)
    record = coerce_record(procedure)
    if record.kind is not MemoryKind.PROCEDURAL:
        raise ValidationError("promote_procedure writes a procedural record",
                              record_ids=[record.id])
    episodes = admitted_evidence(store.get_props(list(episode_ids)).values(), record.tenant)
    verified = verified_episodes(list(episodes.values()))
    if len(verified) < policy.min_verified_episodes:
        raise PolicyError(
            f"{len(verified)} verified episodes; the bar is {policy.min_verified_episodes}",
            record_ids=list(episode_ids))
    merged = record.model_dump()
    merged["evidence_ids"] = tuple(dict.fromkeys((*record.evidence_ids, *episode_ids)))
    merged["derived_from"] = tuple(dict.fromkeys((*record.derived_from, *episode_ids)))
    decision = write_record(store, policy, merged, by=by, at=store.clock(),
                            declared=[Declared(record.id, "promoted_procedure", reason)])
    if not _took_effect(decision):
        raise PolicyError(f"procedure not persisted: {decision.reason}", record_ids=[record.id])
    return decision

