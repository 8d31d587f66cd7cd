"""Procedures and their supporting episodes for the tests of the procedure bar."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.models import MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = {"tenant": "t", "repo": "r"}


def rec(rid: str, **over: Any) -> MemoryRecord:
    base: dict[str, Any] = {"id": rid, "kind": "procedural", "content": f"do {rid}",
                            "created_at": T0, "scope": SCOPE, "provenance": {"source": "agent"},
                            "authority": "verified_outcome"}
    base.update(over)
    return MemoryRecord.model_validate(base)


def episodes(n: int, authority: str = "verified_outcome") -> dict[str, MemoryRecord]:
    return {f"e{i}": rec(f"e{i}", kind="episodic", authority=authority) for i in range(n)}
