"""The deletion benchmark's steps run against today's queries (bench/deletion_walk.py): its
walk, plan, plan reading and apply on a small diamond-rich DAG. A query whose parameters
changed broke the benchmark once without any test noticing (docs/performance.md)."""

from __future__ import annotations

from bench.deletion_walk import layered, load, measure, plan_operators
from graphmem.client import Memory


def test_the_deletion_benchmark_runs_on_a_small_dag(memory: Memory) -> None:
    load(memory, layered(200))
    out = measure(memory, "s200-root", 200, apply=True, runs=1)
    assert out["counts"]["DELETE"] == 201 and out["verified"] is True
    assert out["walk_server_s"] >= 0 and len(out["walk_runs_s"]) == 1
    operators = plan_operators(memory)
    assert any(op.startswith("VarLengthExpand") for op in operators), operators
