"""An independent plain-Python statement of SPEC sections 3-4, to check the Cypher against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graphmem.models import MemoryRecord, Principal, Status


@dataclass(frozen=True)
class Stored:
    record: MemoryRecord
    quarantined: bool = False


def eligible(s: Stored, principal: Principal, scope: dict[str, str]) -> bool:
    r = s.record
    return (
        r.scope["tenant"] in principal.tenants
        and scope["tenant"] in principal.tenants
        and r.sensitivity <= principal.clearance
        and all(scope.get(k) == v for k, v in r.scope.items())
        and not s.quarantined
    )


def status(target: Stored, store: Sequence[Stored], principal: Principal,
           scope: dict[str, str], now: datetime) -> tuple[Status, set[str]]:
    r = target.record
    if r.scope["tenant"] not in principal.tenants or r.sensitivity > principal.clearance:
        return Status.UNAUTHORIZED, set()
    if not all(scope.get(k) == v for k, v in r.scope.items()):
        return Status.OUT_OF_SCOPE, set()
    if target.quarantined:
        return Status.QUARANTINED, set()
    if r.retracted:
        return Status.RETRACTED, set()
    if r.valid_from is not None and now < r.valid_from:
        return Status.NOT_YET_VALID, set()
    if r.expires_at is not None and now >= r.expires_at:
        return Status.EXPIRED, set()
    successors = {
        s.record.id for s in store
        if r.id in s.record.supersedes and eligible(s, principal, scope)
        and (s.record.valid_from is None or s.record.valid_from <= now)
    }
    if successors:
        return Status.SUPERSEDED, successors
    return Status.ACTIVE, set()
