"""Records written in many scripts, for the tests of tokens and BM25 across scripts."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.models import MemoryKind, MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)


def rec(rid: str, content: str, tenant: str = "t") -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.EPISODIC, content=content, created_at=T0,
                        scope={"tenant": tenant}, provenance={"source": "agent"})
