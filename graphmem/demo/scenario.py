"""Loading JSON Lines scenario files (records, operations, intentions, queries).

The northwind scenario (``shared/scenarios/northwind``) is the first real input; its
format is SPEC section 2's field names, one JSON object per line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import ValidationError
from graphmem.models import Principal

__all__ = ["Expectation", "ScenarioQuery", "iter_jsonl"]


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line.

    Raises:
        ValidationError: a line is not a JSON object (the line number is in the message).
    """
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValidationError(f"{path.name}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise ValidationError(f"{path.name}:{number}: expected a JSON object")
            yield number, obj


class Expectation(BaseModel):
    """What must hold for one scenario query (northwind README, 'What must hold')."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    must_include: tuple[str, ...] = ()
    must_exclude: dict[str, str] = Field(default_factory=dict)
    conflicts: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    retrieved: bool | None = None
    error: str | None = None


class ScenarioQuery(BaseModel):
    """One decision state of a scenario with the caller, time and expectations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    now: str
    principal: Principal
    state: dict[str, Any]
    expect: Expectation
