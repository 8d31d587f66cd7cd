"""Loading JSON Lines scenario files (records, operations, intentions, queries).

The northwind scenario (``shared/scenarios/northwind``) is the first real input; its
format is SPEC section 2's field names, one JSON object per line.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.models import Principal
from graphmem.write.imports import iter_jsonl

__all__ = ["Expectation", "ScenarioQuery", "iter_jsonl"]


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
