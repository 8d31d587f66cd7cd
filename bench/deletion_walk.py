"""Deletion walk benchmark: walk and plan time against descendant count (docs/spec/deletion.md).

For each size N (10^3, 10^4, 10^5 by default; 10^6 with ``--max 1000000``) the store holds one
root record and N descendants in layers: layer 1 derives from the root, and every later node
derives from two random nodes of the layer above, so the DAG is full of diamonds and the number
of root-to-leaf paths explodes with depth. Records are validated and stored with the store's
own properties, 5,000 per transaction, through ``cypher/bench/records_bulk.cypher``: loading
is not what is measured here (bench/scale.py measures imports).

Measured per size:

* ``walk``: :func:`graphmem.deletion.walk_descendants`, the one Cypher walk (planned as
  ``VarLengthExpand(Pruning,BFS)``; it also collects the walked records' citations and
  retrieval selections) plus moving its one-row result into Python: the median of 3 runs
  after one warm-up; ``in Neo4j`` is the server's share (available + consumed);
* ``plan``: the whole :func:`graphmem.deletion.plan_deletion` from the root (walk,
  dispositions, citations, retrievals, the pydantic plan and its digest), once; of it,
  ``plan_walk_query_s`` is its walk query (``DeletionOps.walk``: Cypher and decoding) and
  ``plan_after_query_s`` the rest (the Python planning);
* ``apply`` (``--apply``): :func:`graphmem.deletion.apply_deletion` of that plan in batches.

``--redact TERM`` plans with ``redact_terms=[TERM]``, so planning, applying and verifying
also scan the tenant's graph for the term.

Then the 60-chained-diamond lattice (181 records, 2^60 paths): walk and plan.

Prints a rich table and writes JSON under ``bench/results/``. Run from the repo root::

    python -m bench.deletion_walk                 # 10^3 .. 10^5, a few minutes on 2 cores
    python -m bench.deletion_walk --max 1000000   # up to 10^6 (loading dominates)

Neo4j: ``NEO4J_URI`` when set (the database must be empty; the benchmark empties it again at
the end), else a throwaway :class:`graphmem.db.server.EphemeralServer`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest.mock import patch

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

import graphmem
from graphmem.client import Memory, store_of
from graphmem.db import catalogue as cypher
from graphmem.db.codec import coerce_record, record_row, scope_key, scope_pairs
from graphmem.db.ops.deletion import DeletionOps
from graphmem.db.settings import ConnectionSettings
from graphmem.deletion import apply_deletion, plan_deletion, walk_descendants

RESULTS = Path(__file__).resolve().parent / "results"
CREATED = "2026-01-01T00:00:00+00:00"
console = Console()


@contextmanager
def database(heap: str, pagecache_mb: int) -> Iterator[tuple[ConnectionSettings, str]]:
    env = ConnectionSettings.from_env()
    if env is not None:
        yield env, "NEO4J_URI"
        return
    from graphmem.db.server import EphemeralServer

    with console.status("starting a throwaway Neo4j ..."), \
            EphemeralServer(heap=heap, pagecache_mb=pagecache_mb) as server:
        yield server.settings, f"EphemeralServer(heap={heap}, pagecache={pagecache_mb} MiB)"


def wipe(memory: Memory) -> None:
    """Empty the database: the benchmark's records in batches first, then the rest."""
    while store_of(memory).write("bench/records_wipe", tenant="bench", limit=10_000)[0]["deleted"]:
        pass
    while store_of(memory).write("wipe_batch", limit=20_000)[0]["deleted"]:
        pass


def record(rid: str, parents: list[str]) -> dict[str, Any]:
    """A minimal record of the benchmark tenant."""
    return {"id": rid, "kind": "semantic", "content": f"summary {rid}", "created_at": CREATED,
            "scope": {"tenant": "bench"}, "derived_from": parents}


def layered(n: int, seed: int = 7) -> list[list[dict[str, Any]]]:
    """Layers of a diamond-rich DAG with ``n`` descendants under ``s{n}-root`` (ids carry the
    size, so every size lives in one store and nothing is wiped between them)."""
    rng = random.Random(seed)
    width = max(2, min(1000, n // 10))
    layers: list[list[dict[str, Any]]] = [[record(f"s{n}-root", [])]]
    made = 0
    while made < n:
        size = min(width, n - made)
        above = [r["id"] for r in layers[-1]]
        layer = []
        for i in range(size):
            rid = f"s{n}-d{len(layers)}-{i}"
            parents = rng.sample(above, 2) if len(above) >= 2 else above[:]
            layer.append(record(rid, parents))
        layers.append(layer)
        made += size
    return layers


def lattice(diamonds: int) -> list[list[dict[str, Any]]]:
    layers: list[list[dict[str, Any]]] = [[record("t0", [])]]
    for i in range(diamonds):
        layers.append([record(f"l{i}", [f"t{i}"]), record(f"r{i}", [f"t{i}"])])
        layers.append([record(f"t{i + 1}", [f"l{i}", f"r{i}"])])
    return layers


def load(memory: Memory, layers: list[list[dict[str, Any]]], batch: int = 5000) -> float:
    """Bulk-create the layers in order, ``batch`` records per transaction; returns seconds.

    Records are validated (:class:`graphmem.MemoryRecord`) and stored with the store's own
    properties, but through ``cypher/bench/records_bulk.cypher``, not the write path: the
    benchmark measures the walk, and the import benchmark (bench/scale.py) measures writing.
    """
    records = [r for layer in layers for r in layer]
    scope = {"tenant": "bench"}
    store_of(memory).write("scopes_merge", scopes=[{"key": scope_key(scope), "tenant": "bench",
                                                "pairs": scope_pairs(scope)}])
    started = time.perf_counter()
    with Progress("loading", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("load", total=len(records))
        for start in range(0, len(records), batch):
            chunk = records[start:start + batch]
            rows = [dict(record_row(coerce_record(r), False, None), parents=r["derived_from"])
                    for r in chunk]
            store_of(memory).write("bench/records_bulk", rows=rows, scope_key=scope_key(scope))
            bar.advance(task, len(chunk))
    return time.perf_counter() - started


def measure(memory: Memory, root: str, expected: int, *, apply: bool, runs: int = 3,
            redact: tuple[str, ...] = ()) -> dict[str, Any]:
    walk_descendants(store_of(memory), [root])  # warm-up: plan caching, page cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        rows = walk_descendants(store_of(memory), [root])
        times.append(time.perf_counter() - started)
        if len(rows) != expected:
            raise AssertionError(f"walk found {len(rows)} descendants, expected {expected}")
    queried: list[float] = []  # the plan's own walk query (Cypher and decoding), timed apart
    walk_query = DeletionOps.walk

    def timed(ops: DeletionOps, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return walk_query(ops, *args, **kwargs)
        finally:
            queried.append(time.perf_counter() - started)

    started = time.perf_counter()
    with patch.object(DeletionOps, "walk", autospec=True, side_effect=timed):
        plan = plan_deletion(store_of(memory), roots=[root], requested_by="bench",
                             reason="benchmark", redact_terms=redact)
    plan_s = time.perf_counter() - started
    if len(plan.entries) != expected + 1:
        raise AssertionError(f"plan has {len(plan.entries)} entries, expected {expected + 1}")
    _, summary, _ = store_of(memory).driver.execute_query(
        cypher.query("deletion/walk"),
        cypher.arguments("deletion/walk", {"roots": [root], "pattern": None}),
        database_=store_of(memory).database)
    server_ms = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
    out: dict[str, Any] = {
        "descendants": expected, "walk_s": statistics.median(times), "walk_runs_s": times,
        "walk_server_s": server_ms / 1000, "plan_s": plan_s, "counts": plan.counts(),
        "plan_walk_query_s": sum(queried), "plan_after_query_s": plan_s - sum(queried),
        "plan_version": plan.version,
    }
    out["walk_us_per_descendant"] = out["walk_s"] / max(expected, 1) * 1e6
    if apply:
        started = time.perf_counter()
        report = apply_deletion(store_of(memory), plan, batch_size=5000, check_stale=False)
        out["apply_s"] = time.perf_counter() - started
        out["verified"] = report.verification.passed
    return out


def plan_operators(memory: Memory) -> list[str]:
    _, summary, _ = store_of(memory).driver.execute_query(
        "EXPLAIN " + cypher.statement("deletion/walk"),
        cypher.arguments("deletion/walk", {"roots": ["t0"], "pattern": None}),
        database_=store_of(memory).database)

    def walk(node: dict[str, Any]) -> Iterator[str]:
        yield node["operatorType"]
        for child in node.get("children", []):
            yield from walk(child)

    assert summary.plan is not None, "EXPLAIN always returns a plan"
    return list(walk(summary.plan))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max", type=int, default=100_000,
                        help="largest descendant count (powers of ten from 10^3; default 10^5)")
    parser.add_argument("--sizes", type=int, nargs="*", help="explicit descendant counts")
    parser.add_argument("--apply", action="store_true", help="also time apply_deletion")
    parser.add_argument("--redact", metavar="TERM", action="append", default=[],
                        help="plan with this redaction term (repeatable)")
    parser.add_argument("--diamonds", type=int, default=60, help="lattice size (default 60)")
    parser.add_argument("--heap", default="2g", help="JVM heap of the throwaway server")
    parser.add_argument("--tag", default="",
                        help="name of the code measured, put in the file name and the JSON "
                             "(a side-by-side run of another checkout: PYTHONPATH=<it> python "
                             "bench/deletion_walk.py --tag main)")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    args = parser.parse_args()
    sizes = args.sizes or [10 ** k for k in range(3, 7) if 10 ** k <= args.max]

    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()  # other processes on the box slow every figure down
    with database(args.heap, args.pagecache_mb) as (settings, origin), \
            Memory.connect(settings, start_if_needed=False) as memory:
        if store_of(memory).counts():
            raise SystemExit("the database is not empty: point NEO4J_URI at an empty one, "
                             "or unset it to use a throwaway server")
        server = store_of(memory).driver.get_server_info().agent
        operators = plan_operators(memory)
        for n in sizes:
            layers = layered(n)
            load_s = load(memory, layers)
            row = measure(memory, f"s{n}-root", n, apply=args.apply,
                          redact=tuple(args.redact))
            row.update(shape="layered", depth=len(layers) - 1, load_s=load_s,
                       records_per_s=(n + 1) / load_s)
            results.append(row)
            console.print(f"{n:>9,} descendants: walk {row['walk_s']:.3f} s, "
                          f"plan {row['plan_s']:.3f} s ({row['plan_after_query_s']:.3f} s "
                          "after its walk query)", highlight=False)
        layers = lattice(args.diamonds)
        load_s = load(memory, layers)
        row = measure(memory, "t0", 3 * args.diamonds, apply=args.apply,
                      redact=tuple(args.redact))
        row.update(shape=f"lattice of {args.diamonds} chained diamonds",
                   depth=2 * args.diamonds, load_s=load_s, paths=f"2^{args.diamonds}")
        results.append(row)
        if origin == "NEO4J_URI":  # leave the database as empty as we found it
            with console.status("emptying the database ..."):
                wipe(memory)

    table = Table(title=f"Deletion walk ({server}, {os.cpu_count()} CPUs, load average "
                        f"{load_before[0]:.1f} -> {os.getloadavg()[0]:.1f})")
    for col in ("shape", "descendants", "depth", "walk s", "in Neo4j s", "µs/desc.",
                "plan s", "of it after query s", "apply s"):
        table.add_column(col, justify="right")
    for r in results:
        table.add_row(r["shape"], f"{r['descendants']:,}", str(r["depth"]),
                      f"{r['walk_s']:.3f}", f"{r['walk_server_s']:.3f}",
                      f"{r['walk_us_per_descendant']:.1f}", f"{r['plan_s']:.3f}",
                      f"{r['plan_after_query_s']:.3f}",
                      f"{r['apply_s']:.2f}" if "apply_s" in r else "-")
    console.print(table)
    console.print(f"walk plan operators: {', '.join(operators)}", highlight=False)

    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS / f"deletion_walk-{stamp}{'-' + args.tag if args.tag else ''}.json"
    out.write_text(json.dumps({
        "benchmark": "deletion_walk", "at": stamp, "neo4j": server, "database": origin,
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "processor": platform.processor(),
                    "load_average_before": load_before, "load_average_after": os.getloadavg()},
        "code": {"tag": args.tag, "graphmem": str(Path(graphmem.__file__).parent)},
        "walk_operators": operators, "redact_terms": args.redact, "results": results,
    }, indent=2) + "\n", encoding="utf-8")
    console.print(f"written to {out}", highlight=False)


if __name__ == "__main__":
    main()
