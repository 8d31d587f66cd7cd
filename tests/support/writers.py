"""Records for the write tests: many writers into one busy scope of tenant acme."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.models import Principal

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme", "project": "busy"}


def rec(rid: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid, "kind": "episodic", "content": f"observation {rid} about the deploy",
        "created_at": T0.isoformat(), "scope": SCOPE,
        "provenance": {"source": "test"}, "authority": "verified_outcome",
    }
    base.update(over)
    return base
