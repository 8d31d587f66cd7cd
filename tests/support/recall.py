"""Dated records in threads for the tests of dates and thread context in retrieve."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.models import MemoryKind, MemoryRecord

NOW = datetime(2026, 2, 1, tzinfo=UTC)


def rec(rid: str, content: str, position: int | None = None, *, thread: str | None = "chat",
        at: datetime = datetime(2026, 1, 5, tzinfo=UTC), **over: Any) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.EPISODIC, content=content, created_at=at,
                        scope={"tenant": "t"}, provenance={"source": "chat"},
                        thread=thread if position is not None else None, position=position,
                        **over)
