"""What the lifecycle tests share (tests/integration/write/test_lifecycle*.py): a tenant-wide
record of tenant acme written at :data:`T0`, and its status as ``explain`` gives it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.client import Memory
from graphmem.models import Principal, Status

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme"}


def rec(rid: str, **over: Any) -> dict[str, Any]:
    """A semantic record ``rid`` of tenant acme at :data:`T0`, with ``over`` on top."""
    base: dict[str, Any] = {"id": rid, "kind": "semantic", "content": f"content of {rid}",
                            "created_at": T0.isoformat(), "scope": SCOPE,
                            "provenance": {"source": "test"}, "authority": "verified_outcome"}
    base.update(over)
    return base


def status(memory: Memory, rid: str, now: datetime = T0 + timedelta(days=10)) -> Status:
    """``rid``'s status for :data:`ACME` in :data:`SCOPE` at ``now``."""
    return memory.explain(rid, principal=ACME, scope=SCOPE, now=now).status
