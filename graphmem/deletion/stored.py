"""Deletion plans kept in the graph between review and apply (docs/spec/deletion.md), so that any
process of the same caller applies a plan by its digest.

:func:`store_plan` keeps a :class:`DeletionPlan` as a ``DeletionRequest`` in state
``planned`` (the node :func:`graphmem.deletion.apply_deletion` later takes over), with the
plan, who made it (an ``owner`` string the caller chooses, e.g. its principal) and an expiry.
The plan's redaction terms are not stored: each is replaced by a digest salted with the
request id, and :func:`load_plan` puts the caller's terms back, proving them by the plan's
own digest. A plan that names terms is therefore applied by a caller who gives them again
(or the plan as returned); the graph never holds them in clear text.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from graphmem.db.codec import to_native
from graphmem.db.ops.deletion import DeletionOps
from graphmem.db.store import Neo4jStore
from graphmem.deletion.models import DeletionPlan
from graphmem.deletion.reach import reach_key
from graphmem.errors import DeletionError

__all__ = ["load_plan", "store_plan"]


def store_plan(store: Neo4jStore, plan: DeletionPlan, *, owner: str, ttl_s: float,
               at: datetime | None = None) -> datetime:
    """Keep ``plan`` in the graph as a planned ``DeletionRequest``; return its expiry.

    Args:
        store: the store. plan: a plan from :func:`graphmem.deletion.plan_deletion`.
        owner: who may apply it (compared as a string by :func:`load_plan`).
        ttl_s: seconds after ``at`` it may still be applied. at: aware UTC (default: now).

    Raises:
        DeletionError: the plan's digest does not match its content.
        ConstraintViolationError: its request id is already stored.
    """
    if plan.digest != plan.compute_digest():
        raise DeletionError("the plan's digest does not match its content; plan again",
                            record_ids=[plan.request_id])
    expires = (at or store.clock()) + timedelta(seconds=ttl_s)
    DeletionOps(store).store_plan(
        request_id=plan.request_id, version=plan.version, digest=plan.digest,
        requested_by=plan.requested_by, reason=plan.reason, tenants=plan.tenants,
        redact_term_count=plan.term_count, planned_at=plan.planned_at, owner=owner,
        expires_at=expires, plan_json=plan.to_json(),  # its terms only as salted digests
        reach_json=reach_key(plan.reach) if plan.reach else None)
    return expires


def load_plan(store: Neo4jStore, digest: str, *, owner: str, terms: tuple[str, ...] = (),
              now: datetime | None = None) -> DeletionPlan:
    """The plan stored with this digest, for ``owner``, with its terms put back.

    Args:
        store: the store. digest: the plan's digest.
        owner: must equal the owner it was stored with.
        terms: the plan's redaction terms (needed when it names any; order free).
        now: aware UTC (default: the store clock), compared with the expiry.

    Returns:
        The plan, identical (by digest) to the one stored. A plan already applied is
        returned too: applying it again changes nothing and returns its report.

    Raises:
        DeletionError: no plan with this digest (or another owner's: the message is the
            same), an expired one, terms missing or not the plan's, or a stored plan whose
            content no longer matches its digest.
    """
    store.limits.check_label("digest", digest)
    stored = DeletionOps(store).request_by_digest(digest)
    if stored is None or stored.get("plan_owner") != owner or not stored.get("plan_json"):
        raise DeletionError("no stored plan with this digest for this caller; call "
                            "plan_deletion first")
    rid = str(stored["id"])
    if stored.get("state") == "planned":
        expires = stored.get("plan_expires_at")
        if expires is None or (now or store.clock()) >= to_native(expires):
            raise DeletionError("this deletion plan expired; plan again", record_ids=[rid])
    plan = DeletionPlan.from_json(str(stored["plan_json"]), store.limits)
    if terms:  # checked against the plan's term_checks when it is applied
        return plan.with_terms(terms)
    return plan
