"""Episodes in a thread, one turn at a time, for the thread tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.models import MemoryKind, MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)


def turn(rid: str, content: str, position: int | None, thread: str | None = "chat-1",
         **over: Any) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.EPISODIC, content=content, created_at=T0,
                        scope={"tenant": "t"}, provenance={"source": "chat"},
                        thread=thread, position=position, **over)
