"""``explain`` answers with the write decision where the record cannot (docs/spec/status.md and
docs/spec/write-path.md).

A proposal the write policy discarded leaves no record, only its write decision; a
quarantined one is a record whose reason is in its decision. :meth:`WriteDecisions.explain`
answers for both: DISCARDED with the decision's reason (instead of RecordNotFoundError),
and QUARANTINED with the reason it was quarantined. A decision out of the caller's reach (the
proposal's tenant, scope and sensitivity, as a record's: docs/spec/eligibility.md#confinement)
explains exactly as a record out of reach does, and one of the caller's other tenant
OUT_OF_SCOPE, as a record's would; neither says more. To a caller bound to a principal, an id
that names nothing explains the same way too: a refused id and an unknown one look alike.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphmem.db.access import decision_within
from graphmem.db.eligibility import Eligibility, caller_explanation
from graphmem.errors import RecordNotFoundError
from graphmem.models import Explanation, Principal, Status

__all__ = ["WriteDecisions"]


class WriteDecisions(Eligibility):
    """:meth:`explain` with the write decision of discarded and quarantined proposals."""

    def explain(
        self, record_id: str, principal: Principal, scope: dict[str, str], now: datetime,
        *, bound: bool = False,
    ) -> Explanation:
        """Why ``record_id`` is or is not retrievable for this caller now (docs/spec/status.md), or,
        for a proposal the write policy discarded, that it was and why (docs/spec/write-path.md).

        Args:
            bound: the caller is a client bound to ``principal``: an id naming nothing
                explains as one out of reach instead of raising.

        Raises:
            RecordNotFoundError: no record and no write decision with this id (not when
                ``bound``).
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
        """
        try:
            explanation = super().explain(record_id, principal, scope, now)
        except RecordNotFoundError:
            decision = self._last_decision(record_id)
            if decision is None or decision["disposition"] != "DISCARD":
                if bound:
                    return caller_explanation(record_id, Status.UNAUTHORIZED, principal)
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
    readable: checked before). A decision logged before its scope and sensitivity were kept
    is answered as it was then to a principal with no confinement (by its tenant alone), and
    as out of reach to a confined one: its scope is not known."""
    if not decision_within(principal, decision):
        return caller_explanation(record_id, Status.UNAUTHORIZED, principal)
    if decision["tenant"] != scope.get("tenant"):
        return caller_explanation(record_id, Status.OUT_OF_SCOPE, principal)
    return Explanation(record_id=record_id, status=Status.DISCARDED,
                       detail=f"the write policy discarded this proposal (by "
                              f"{decision['by']}): {decision['reason']}",
                       write_decision=decision["disposition"])
