"""Loading the northwind scenario (shared/scenarios/northwind) for tests."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.write.policy import MemoryWriteDecision


def scenario_dir() -> Path:
    """``GRAPHMEM_NORTHWIND`` or ``../shared/scenarios/northwind`` beside the repository."""
    override = os.environ.get("GRAPHMEM_NORTHWIND")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2] / "shared" / "scenarios" / "northwind"


def lines(name: str) -> list[dict[str, Any]]:
    with (scenario_dir() / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load(memory: Memory) -> dict[str, MemoryWriteDecision]:
    """Records through the write path in file order, then operations.jsonl."""
    decisions = {}
    for obj in lines("records.jsonl"):
        decision = memory.write(obj, by="northwind-loader",
                                now=datetime.fromisoformat(obj["created_at"]))
        decisions[obj["id"]] = decision
    for op in lines("operations.jsonl"):
        assert op["op"] == "retract", op
        memory.retract(op["id"], by=op["by"], reason=op["reason"],
                       at=datetime.fromisoformat(op["at"]))
    return decisions
