"""Deletion within a caller's reach (SPEC sections 3 and 7).

A bound caller (:class:`graphmem.db.access.Access` with a principal) plans, applies and
verifies only deletions that change nothing outside its reach: every entry of the plan (roots,
what the lineage walk reached, what cites them, what holds a redaction term) must be a record
or intention the principal may change. Lineage deletion must still reach derived records
wherever they are, so a plan that reaches further is refused as a whole, with a message that
names no id and no count: a principal with wider reach (a privacy team's, tenant-wide) makes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graphmem.db.access import Access, Reader
from graphmem.deletion.models import DeletionPlan, DeletionReport
from graphmem.errors import AuthorizationError, OutOfReachError, ValidationError

__all__ = ["WIDER_REACH", "check_plan", "check_report", "confine_subject"]

WIDER_REACH = ("this deletion reaches memories outside this caller's reach (other users', "
               "above its clearance, or shared ones it may read but not change); a principal "
               "with wider reach, such as the privacy team's tenant-wide one, must make it; "
               "nothing was done")


def confine_subject(access: Access, subject: Mapping[str, str]) -> dict[str, str]:
    """A bound caller's subject: its confinement's pairs added (``{}`` is the caller's own
    scope), and its tenant when the principal has exactly one.

    Raises:
        AuthorizationError: the subject contradicts the confinement.
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
    return dict(sorted(confined.items()))


def _check_ids(store: Reader, access: Access, ids: Iterable[str]) -> None:
    try:
        access.check_ids(store, ids, change=True)
    except OutOfReachError:
        raise AuthorizationError(WIDER_REACH) from None


def check_plan(store: Reader, access: Access, plan: DeletionPlan) -> None:
    """Refuse a plan with an entry or citing record the bound caller may not change.

    Raises:
        AuthorizationError: it has one (:data:`WIDER_REACH`).
    """
    if access.bound:
        _check_ids(store, access, [*(e.id for e in plan.entries),
                                   *(c.record_id for c in plan.dangling_citations)])


def check_report(store: Reader, access: Access, report: DeletionReport) -> None:
    """Refuse a request's report unless the bound caller may change every entry of it.

    Raises:
        OutOfReachError: it may not (as for an unknown request: nothing is told).
    """
    if not access.bound:
        return
    try:
        _check_ids(store, access, [*(e.id for e in report.entries),
                                   *(c.record_id for c in report.dangling_citations)])
    except AuthorizationError:
        raise OutOfReachError("this deletion request id names no request within this "
                              "caller's reach; nothing was done") from None
