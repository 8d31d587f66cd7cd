"""Deletion apply benchmark: the server's CPU seconds of applying a plan (docs/spec/deletion.md).

The store is :func:`bench.deletion_walk.layered` (one root, N descendants in diamond-rich layers),
loaded by :func:`bench.deletion_walk.load` into a throwaway Neo4j 5.26. Measured, each as wall
seconds, the server JVM's CPU seconds (``/proc/<pid>/stat``: utime + stime of the launcher and its
threads) and this process's CPU seconds:

* ``plan``: :func:`graphmem.deletion.plan_deletion` from the root (after one warm-up walk);
* ``apply``: :func:`graphmem.deletion.apply_deletion` in batches of ``--batch`` (no staleness
  check; the report verified; the disk purged);
* ``report``: the report rebuilt and verified again (:func:`graphmem.deletion.verify_deletion`),
  the share of the apply that reads it back.

The machine is shared, so wall times swing with its load: compare checkouts by running them at
the same time, each on its own server, and quote CPU seconds and same-run ratios::

    PYTHONPATH=/work/main python -m bench.deletion_apply --tag main &
    PYTHONPATH=$PWD python -m bench.deletion_apply --tag branch

Writes JSON under ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import graphmem
from bench.deletion_walk import layered, load
from graphmem.client import Memory, store_of
from graphmem.db.ephemeral import EphemeralServer
from graphmem.deletion import apply_deletion, plan_deletion, verify_deletion, walk_descendants

RESULTS = Path(__file__).resolve().parent / "results"
T = TypeVar("T")


def server_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(pid: int, out: dict[str, Any], name: str, work: Callable[[], T]) -> T:
    """Run ``work``; put its wall, server CPU and client CPU seconds in ``out`` under ``name``."""
    wall, cpu, mine = time.perf_counter(), server_cpu_s(pid), time.process_time()
    result = work()
    out[f"{name}_s"] = time.perf_counter() - wall
    out[f"{name}_server_cpu_s"] = server_cpu_s(pid) - cpu
    out[f"{name}_client_cpu_s"] = time.process_time() - mine
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="descendants (default 10^5)")
    parser.add_argument("--batch", type=int, default=5000, help="apply batch size")
    parser.add_argument("--tag", default="", help="name of the checkout measured")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    args = parser.parse_args()

    out: dict[str, Any] = {"benchmark": "deletion_apply", "size": args.size, "batch": args.batch,
                           "tag": args.tag, "graphmem": str(Path(graphmem.__file__).parent),
                           "load_before": os.getloadavg()}
    root = f"s{args.size}-root"
    with EphemeralServer(heap=args.heap, pagecache_mb=args.pagecache_mb, timeout_s=900) as server, \
            Memory.connect(server.settings, start_if_needed=False) as memory:
        store = store_of(memory)
        out["load_s"] = load(memory, layered(args.size))
        walk_descendants(store, [root])  # warm-up: plan caching, page cache
        plan = timed(server.pid, out, "plan", lambda: plan_deletion(
            store, roots=[root], requested_by="bench", reason="benchmark"))
        done = timed(server.pid, out, "apply", lambda: apply_deletion(
            store, plan, batch_size=args.batch, check_stale=False))
        again = timed(server.pid, out, "report",
                      lambda: verify_deletion(store, plan.request_id))
        out.update(verified=done.verification.passed and again.verification.passed,
                   counts=done.counts, changed=done.changed, entries=len(again.entries),
                   disk=done.disk.model_dump(mode="json") if done.disk else None)
    out["load_after"] = os.getloadavg()
    print(json.dumps({k: v for k, v in out.items() if k != "disk"}, indent=1, default=str))
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"deletion_apply-{stamp}{'-' + args.tag if args.tag else ''}.json"
    path.write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
