"""Bad ids as the tests give them: each with the character a ValidationError must name."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ISSUE_INPUTS = [(" pad", "U+0020"), ("zw\u200b", "U+200B"), ("tab\tid", "U+0009")]


def record(rid: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": "c", "created_at": T0,
            "scope": {"tenant": "t"}}
