"""What a store holds, counted (``graphmem stats``): records by tenant, kind and
lifecycle status, intentions by status, deletion requests by state.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graphmem.db.base import StoreBase
from graphmem.db.codec import require_aware
from graphmem.models import Status

__all__ = ["CALLER_STATUSES", "RECORD_STATUSES", "store_stats"]

#: The statuses that depend on who asks (docs/spec/eligibility.md, rules 1-3): explain's, before any
# other.
CALLER_STATUSES = (Status.UNAUTHORIZED, Status.OUT_OF_SCOPE)
#: The statuses a record has whoever asks, in precedence order (:class:`Status`'s;
#: docs/status.md), as the strings ``stats/records`` counts records under.
RECORD_STATUSES: tuple[str, ...] = tuple(
    s.value for s in Status if s not in (*CALLER_STATUSES, Status.DISCARDED))


def store_stats(store: StoreBase, *, now: datetime, tenant: str | None = None
                ) -> dict[str, Any]:
    """Counts of what the store holds at ``now`` (aware UTC), for one tenant or all.

    Returns:
        ``{"tenant", "at", "records": {"total", "by_status", "rows": [{tenant, kind,
        status, n}]}, "intentions": {"total", "by_status", "rows"}, "deletion_requests":
        {"total", "by_state"}}``; statuses are those of :data:`RECORD_STATUSES`, each
        record counted once under the first that applies.

    Raises:
        NaiveDatetimeError: ``now`` has no timezone.
    """
    at = require_aware(now, "now")
    records = store.read("stats/records", tenant=tenant, now=at)
    intentions = store.read("stats/intentions", tenant=tenant)
    requests = store.read("stats/deletion_requests", tenant=tenant)
    by_status = dict.fromkeys(RECORD_STATUSES, 0)
    for row in records:
        by_status[row["status"]] += row["n"]
    intention_status: dict[str, int] = {}
    for row in intentions:
        intention_status[row["status"]] = intention_status.get(row["status"], 0) + row["n"]
    return {
        "tenant": tenant, "at": at.isoformat(),
        "records": {"total": sum(by_status.values()), "by_status": by_status,
                    "rows": records},
        "intentions": {"total": sum(intention_status.values()),
                       "by_status": intention_status, "rows": intentions},
        "deletion_requests": {"total": sum(r["n"] for r in requests),
                              "by_state": {r["state"]: r["n"] for r in requests}},
    }
