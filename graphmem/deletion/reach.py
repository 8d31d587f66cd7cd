"""Deletion within a caller's reach (docs/spec/eligibility.md and docs/spec/deletion.md).

A bound caller (:class:`graphmem.db.access.Access` with a principal) plans, applies and
verifies only deletions that change nothing outside its reach: every entry of the plan (roots,
what the lineage walk reached, what cites them, what holds a redaction term) must be a record
or intention the principal may change. Lineage deletion must still reach derived records
wherever they are, so a plan that reaches further is refused as a whole, with a message that
names no id and no count: a principal with wider reach (a privacy team's, tenant-wide) makes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, compress
from typing import TYPE_CHECKING, Any

from graphmem.db.access import Access, Reader
from graphmem.db.codec import scope_pairs
from graphmem.db.ops.deletion import DeletionOps
from graphmem.deletion.models import (
    DeletionPlan,
    DeletionReport,
    NodeType,
    PlanEntry,
    PlanReach,
    ReportEntry,
    RetrievalHit,
)
from graphmem.errors import AuthorizationError, OutOfReachError, ValidationError
from graphmem.models import Sensitivity

if TYPE_CHECKING:
    from graphmem.db.ops.deletion import ReachSource, TextSource
    from graphmem.db.store import Neo4jStore

__all__ = ["MADE_WIDER", "WIDER_REACH", "check_plan", "check_report", "confine_subject",
           "covers", "plan_reach", "reach_key", "retrieval_within", "retrievals_within",
           "text_reach"]

WIDER_REACH = ("this deletion reaches memories outside this caller's reach (other users', "
               "above its clearance, or shared ones it may read but not change); a principal "
               "with wider reach, such as the privacy team's tenant-wide one, must make it; "
               "nothing was done")

MADE_WIDER = ("this deletion plan was made with a wider reach than this caller's (by the "
              "operator or a principal that reaches more); the one that made it must apply "
              "it; nothing was done")


def plan_reach(access: Access) -> PlanReach | None:
    """The reach of a plan made through ``access``: None for the operator and for a principal
    that is confined to nothing and cleared for everything (the whole of its tenants), else
    the principal's clearance and confinement."""
    p = access.principal
    if p is None or (not p.scope and p.clearance is max(Sensitivity)):
        return None
    return PlanReach(clearance=p.clearance, scope=dict(p.scope))


def reach_key(reach: PlanReach) -> str:
    """The canonical JSON a request keeps its reach as (``reach_json``)."""
    return json.dumps(reach.model_dump(mode="json"), sort_keys=True)


def covers(access: Access, reach: PlanReach | None) -> bool:
    """True if the caller of ``access`` reaches at least as far as ``reach`` (the operator
    always; a bound caller only a reach within its own: cleared as high, confined as
    tightly)."""
    mine = plan_reach(access)
    if access.principal is None or mine is None:
        return True
    return reach is not None and reach.clearance <= mine.clearance and all(
        reach.scope.get(k) == v for k, v in mine.scope.items())


def retrieval_within(reach: PlanReach | None, logged: Mapping[str, Any]) -> bool:
    """True if a logged retrieval (its ``clearance`` and ``scope_json``) was made within
    ``reach``: cleared no higher, its query scope holding every pair of the confinement (as
    :meth:`Access.check_retrieval` decides for a bound caller). Always True for None."""
    if reach is None:
        return True
    try:
        scope = json.loads(str(logged.get("scope_json") or "{}"))
        clearance = Sensitivity(str(logged.get("clearance") or "normal"))
    except ValueError:
        return False
    return (isinstance(scope, dict) and clearance <= reach.clearance
            and all(scope.get(k) == v for k, v in reach.scope.items()))


def retrievals_within(source: ReachSource, reach: PlanReach | None, hits: Sequence[RetrievalHit]
                      ) -> tuple[RetrievalHit, ...]:
    """The logged retrievals among ``hits`` made within ``reach`` (all of them for None): a
    plan lists no other, so its caller learns no id, count or existence of them."""
    if reach is None or not hits:
        return tuple(hits)
    rows = source.retrieval_reach(sorted({h.retrieval_id for h in hits}))
    kept = {row["id"] for row in rows if retrieval_within(reach, row)}
    return tuple(h for h in hits if h.retrieval_id in kept)


def text_reach(source: TextSource, tenants: Sequence[str], reach: PlanReach | None
               ) -> dict[str, Any] | None:
    """The ``$reach`` parameter of ``cypher/deletion/tenant_text.cypher`` for ``reach``
    (None: the whole of the tenants' graph).

    Args:
        source: where the scan runs (statements of their own, or an erasure's transaction).
        tenants: the request's tenants. reach: the request's reach.
    """
    if reach is None:
        return None
    clearances = [s.value for s in Sensitivity if s <= reach.clearance]
    rows = source.tenant_retrievals(tenants, clearances)
    return {"pairs": scope_pairs(reach.scope), "max_rank": reach.clearance.rank,
            "retrievals": sorted(row["id"] for row in rows if retrieval_within(reach, row)),
            "request": reach_key(reach)}


def confine_subject(access: Access, subject: Mapping[str, str]) -> dict[str, str]:
    """A bound caller's subject: its confinement's pairs added (``{}`` is the caller's own
    scope), and its tenant when the principal has exactly one.

    Raises:
        AuthorizationError: the subject contradicts the confinement, or names a tenant that
            is not the principal's (refused before anything is read: a plan's answer must not
            tell whether another tenant holds such a subject).
        ValidationError: the subject is not a mapping.
    """
    if not isinstance(subject, Mapping):
        raise ValidationError("a deletion subject must be a scope (a mapping)")
    principal = access.principal
    if principal is None:
        return dict(subject)
    confined = principal.confine(subject)
    if "tenant" not in confined and len(principal.tenants) == 1:
        confined["tenant"] = next(iter(principal.tenants))
    if "tenant" in confined and confined["tenant"] not in principal.tenants:
        raise AuthorizationError(f"principal may not read tenant {confined['tenant']!r} "
                                 f"(may read: {sorted(principal.tenants)})")
    return dict(sorted(confined.items()))


def _check_ids(store: Reader, access: Access, entries: Iterable[PlanEntry | ReportEntry],
               citing: Iterable[str]) -> None:
    """Each entry judged by its own node (a record and an intention may share an id), and
    the citing records."""
    entries = list(entries)
    try:
        access.check_ids(store, [*(e.id for e in entries if e.node is NodeType.RECORD),
                                 *citing], change=True)
        access.check_ids(store, [e.id for e in entries if e.node is NodeType.INTENTION],
                         change=True, node="intention")
    except OutOfReachError:
        raise AuthorizationError(WIDER_REACH) from None


def check_plan(store: Neo4jStore, access: Access, plan: DeletionPlan) -> None:
    """Refuse a plan with an entry or citing record the bound caller may not change, a
    parent it names that the caller may not read, or a reach wider than the caller's; and,
    as a saved plan's digest is no secret (an edited plan can carry the digest of its edited
    content: docs/spec/deletion.md#plan-format), one whose tenants, subject or logged
    retrievals, which an apply redacts, are not all the caller's to change
    (docs/spec/eligibility.md#confinement).

    Raises:
        AuthorizationError: it has one (:data:`WIDER_REACH`), or was made wider
            (:data:`MADE_WIDER`).
    """
    if not access.bound:
        return
    if not covers(access, plan.reach):
        raise AuthorizationError(MADE_WIDER)
    _check_named(store, access, plan)
    columns = plan.columns
    try:
        access.check_ids(store, [*compress(columns.ids, map("r".__eq__, columns.nodes)),
                                 *(c.record_id for c in plan.dangling_citations)], change=True)
        access.check_ids(store, list(compress(columns.ids, map("i".__eq__, columns.nodes))),
                         change=True, node="intention")
    except OutOfReachError:
        raise AuthorizationError(WIDER_REACH) from None
    named = set(chain.from_iterable(columns.parents)).union(
        chain.from_iterable(columns.erased_parents))
    try:
        access.check_ids(store, named)
    except OutOfReachError:
        raise AuthorizationError(WIDER_REACH) from None


def _check_named(store: Neo4jStore, access: Access, plan: DeletionPlan) -> None:
    """The tenants (redacted by :func:`~graphmem.deletion.redaction.redact_tenant_text`),
    the subject and the logged retrievals (whose queries are redacted) of a bound caller's
    plan are within its reach: each tenant one of its principal's, the subject holding its
    confinement, each retrieval one it may change (:meth:`Access.check_retrieval`; an id
    that names no retrieval is refused too, as :meth:`Access.check_ids` refuses one).

    Raises:
        AuthorizationError: one is not (:data:`WIDER_REACH`).
    """
    principal = access.principal
    if principal is None:  # the operator's reach is everything
        return
    subject = plan.subject
    if not set(plan.tenants) <= principal.tenants or (subject is not None and not access.allows(
            subject.get("tenant"), min(Sensitivity), subject, change=True)):
        raise AuthorizationError(WIDER_REACH)
    wanted = sorted({h.retrieval_id for h in plan.retrievals})
    if not wanted:
        return
    rows = DeletionOps(store).retrieval_reach(wanted)
    try:
        for row in rows:
            access.check_retrieval(row)
    except OutOfReachError:
        raise AuthorizationError(WIDER_REACH) from None
    if len({row["id"] for row in rows}) != len(wanted):
        raise AuthorizationError(WIDER_REACH)


def check_report(store: Reader, access: Access, report: DeletionReport) -> None:
    """Refuse a request's report unless the bound caller may change every entry of it and
    the request was made within its reach (its verification looked no further).

    Raises:
        OutOfReachError: it may not (as for an unknown request: nothing is told).
    """
    if not access.bound:
        return
    try:
        if not covers(access, report.request.reach):
            raise AuthorizationError(MADE_WIDER)
        _check_ids(store, access, report.entries,
                   (c.record_id for c in report.dangling_citations))
    except AuthorizationError:
        raise OutOfReachError("this deletion request id names no request within this "
                              "caller's reach; nothing was done") from None
