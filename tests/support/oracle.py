"""An independent plain-Python statement of docs/spec/eligibility.md#eligible-and-active, to check
the Cypher against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.models import MemoryRecord, Principal, Status


@dataclass(frozen=True)
class Stored:
    """A record with its lifecycle flags. ``erased``: erased by a deletion request after its
    quarantine flag was set (so ``quarantined`` is also its state when it was erased)."""

    record: MemoryRecord
    quarantined: bool = False
    erased: bool = False


def eligible(s: Stored, principal: Principal, scope: dict[str, str]) -> bool:
    """Rules 1-3 of docs/spec/eligibility.md, and admitted (not quarantined; for an erased record,
    not quarantined when it was erased): what a successor needs to supersede
    (docs/spec/status.md#superseded)."""
    r = s.record
    return (
        r.scope["tenant"] in principal.tenants
        and scope["tenant"] in principal.tenants
        and r.sensitivity <= principal.clearance
        and all(scope.get(k) == v for k, v in r.scope.items())
        and not s.quarantined
    )


def effective(r: MemoryRecord, now: datetime) -> bool:
    """Section 4 rule 4: a successor counts once it exists and its validity has begun."""
    return r.created_at <= now and (r.valid_from is None or r.valid_from <= now)


def status(target: Stored, store: Sequence[Stored], principal: Principal,
           scope: dict[str, str], now: datetime) -> tuple[Status, set[str]]:
    r = target.record
    if r.scope["tenant"] not in principal.tenants or r.sensitivity > principal.clearance:
        return Status.UNAUTHORIZED, set()
    if not all(scope.get(k) == v for k, v in r.scope.items()):
        return Status.OUT_OF_SCOPE, set()
    if target.erased:
        return Status.ERASED, set()
    if target.quarantined:
        return Status.QUARANTINED, set()
    if r.retracted:
        return Status.RETRACTED, set()
    if now < r.created_at or (r.valid_from is not None and now < r.valid_from):
        return Status.NOT_YET_VALID, set()
    if r.expires_at is not None and now >= r.expires_at:
        return Status.EXPIRED, set()
    successors = {
        s.record.id for s in store
        if r.id in s.record.supersedes and eligible(s, principal, scope)
        and effective(s.record, now)
    }
    if successors:
        return Status.SUPERSEDED, successors
    return Status.ACTIVE, set()
