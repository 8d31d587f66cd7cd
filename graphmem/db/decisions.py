"""``explain`` answers with the write decision where the record cannot (docs/spec/status.md and
docs/spec/write-path.md).

A proposal the write policy discarded leaves no record, only its write decision; a
quarantined one is a record whose reason is in its decision. :meth:`WriteDecisions.explain`
answers for both: DISCARDED with the decision's reason (instead of RecordNotFoundError),
and QUARANTINED with the reason it was quarantined. A decision of another tenant is
UNAUTHORIZED, of the caller's other tenant OUT_OF_SCOPE, as a record's would be, and says
nothing more.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphmem.db.eligibility import Eligibility
from graphmem.errors import RecordNotFoundError
from graphmem.models import Explanation, Principal, Status

__all__ = ["WriteDecisions"]


class WriteDecisions(Eligibility):
    """:meth:`explain` with the write decision of discarded and quarantined proposals."""

    def explain(
        self, record_id: str, principal: Principal, scope: dict[str, str], now: datetime
    ) -> Explanation:
        """Why ``record_id`` is or is not retrievable for this caller now (docs/spec/status.md), or,
        for a proposal the write policy discarded, that it was and why (docs/spec/write-path.md).

        Raises:
            RecordNotFoundError: no record and no write decision with this id.
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
        """
        try:
            explanation = super().explain(record_id, principal, scope, now)
        except RecordNotFoundError:
            decision = self._last_decision(record_id)
            if decision is None or decision["disposition"] != "DISCARD":
                raise
            return _discarded(record_id, decision, principal, scope)
        if explanation.status is not Status.QUARANTINED:
            return explanation
        decision = self._last_decision(record_id)
        if decision is None:
            return explanation
        return explanation.model_copy(update={
            "detail": f"{explanation.detail}; write decision {decision['disposition']}: "
                      f"{decision['reason']}",
            "write_decision": decision["disposition"]})

    def _last_decision(self, record_id: str) -> dict[str, Any] | None:
        rows = self.read("write/decision_last", id=record_id)
        return rows[0] if rows else None


def _discarded(record_id: str, decision: dict[str, Any], principal: Principal,
               scope: dict[str, str]) -> Explanation:
    """The explanation of a discarded proposal for this caller (the query scope's tenant is
    readable: checked before)."""
    if decision["tenant"] not in principal.tenants:
        return Explanation(record_id=record_id, status=Status.UNAUTHORIZED,
                           detail="another tenant's proposal")
    if decision["tenant"] != scope.get("tenant"):
        return Explanation(record_id=record_id, status=Status.OUT_OF_SCOPE,
                           detail="a proposal in another tenant of the caller")
    return Explanation(record_id=record_id, status=Status.DISCARDED,
                       detail=f"the write policy discarded this proposal (by "
                              f"{decision['by']}): {decision['reason']}",
                       write_decision=decision["disposition"])
