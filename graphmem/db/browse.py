"""Browsing what a caller can see (docs/spec/eligibility.md#eligible-and-active): the newest
eligible records, a page at a time, and how many records are within reach (part of
:class:`~graphmem.db.store.Neo4jStore`). Eligibility is the candidates query's
(``cypher/records/recent.cypher`` and ``cypher/records/reach_counts.cypher`` put in the same
parts); :class:`~graphmem.db.access.ScopeQuery` checks the principal and scope.
"""

from __future__ import annotations

from datetime import datetime

from graphmem.db.access import ScopeQuery
from graphmem.db.base import StoreBase
from graphmem.db.codec import record_from_props
from graphmem.errors import ValidationError
from graphmem.models import MemoryRecord, Principal

__all__ = ["MAX_PAGE", "Browsing"]

MAX_PAGE = 200
"""Most records one page of :meth:`Browsing.recent` returns."""


class Browsing(StoreBase):
    """The newest eligible records and the counts within a caller's reach."""

    def recent(self, principal: Principal, scope: dict[str, str], now: datetime,
               *, limit: int = 20, offset: int = 0) -> list[MemoryRecord]:
        """The eligible ACTIVE records for ``principal`` in ``scope`` at ``now``, newest first
        (``created_at``, then id, both descending), skipping ``offset`` and at most ``limit``.

        Raises:
            ValidationError: ``limit`` outside 1..:data:`MAX_PAGE`, a negative ``offset``, or
                as :meth:`ScopeQuery.build`.
            AuthorizationError: the scope's tenant is not one of the principal's.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"limit must be an integer from 1 to {MAX_PAGE}")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValidationError("offset must be a non-negative integer")
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        rows = self.read("records/recent", skip=offset, limit=limit, **params)
        return [record_from_props(row["record"]) for row in rows]

    def reach_counts(self, principal: Principal, scope: dict[str, str],
                     now: datetime) -> dict[str, int]:
        """How many records ``principal`` sees in ``scope`` at ``now`` (erased ones left out):
        ``records`` (all), ``eligible`` (ACTIVE and eligible), ``quarantined``, ``retracted``.

        Raises:
            as :meth:`recent` (but for ``limit``/``offset``).
        """
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        row = self.read("records/reach_counts", **params)[0]
        return {key: int(row[key]) for key in ("records", "eligible", "quarantined", "retracted")}
