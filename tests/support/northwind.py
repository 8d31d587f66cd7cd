"""Loading the northwind scenario for tests: the copy shipped in the package
(``graphmem/demo/northwind``), or ``$GRAPHMEM_NORTHWIND`` when set."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.demo.run import default_scenario_dir
from graphmem.write.policy import MemoryWriteDecision


def scenario_dir() -> Path:
    """The packaged northwind scenario (``GRAPHMEM_NORTHWIND`` overrides it)."""
    return default_scenario_dir()


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
