"""Semantic records for the pure tests of the write policy, ranking and conflict resolution."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.models import MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(rid: str, **over: Any) -> MemoryRecord:
    base: dict[str, Any] = {"id": rid, "kind": "semantic", "content": f"content {rid}",
                            "created_at": T0, "scope": {"tenant": "t"},
                            "provenance": {"source": "agent"}, "authority": "verified_outcome"}
    base.update(over)
    return MemoryRecord.model_validate(base)
