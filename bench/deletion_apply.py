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

Each phase's server CPU is also split by the JVM's threads (``*_threads_cpu_s``): ``worker``
(the Bolt workers running the statements), ``jit`` (the C1 and C2 compilers), ``gc`` (the
collector's threads) and ``other`` (threads are told apart by the first 15 characters of their
names, all Linux keeps). On a fresh server the first apply also pays the compilation
of the erasure's code paths; ``--warm N`` applies a plan of ``N`` other descendants first, on
the same server, so the measured apply runs on a warm JVM (both are reported).

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
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import graphmem
from bench.deletion_walk import layered, load
from graphmem.client import Memory, store_of
from graphmem.db.ephemeral import EphemeralServer
from graphmem.deletion import (
    DEFAULT_BATCH_SIZE,
    apply_deletion,
    plan_deletion,
    verify_deletion,
    walk_descendants,
)

RESULTS = Path(__file__).resolve().parent / "results"
T = TypeVar("T")


def server_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_THREAD_GROUPS = (("worker", re.compile(r"neo4j\.BoltWork")),
                  ("jit", re.compile(r"C[12] CompilerThre")),
                  ("gc", re.compile(r"GC Thread|G1 ")))


def threads_cpu_s(pid: int) -> dict[str, float]:
    """CPU seconds of process ``pid``'s live threads so far, by group (``worker``, ``jit``,
    ``gc``, ``other``: see the module docstring), from ``/proc/<pid>/task``."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text(encoding="utf-8").strip()
            fields = (task / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        group = next((g for g, pattern in _THREAD_GROUPS if pattern.match(name)), "other")
        ticks = int(fields[11]) + int(fields[12])
        out[group] = out.get(group, 0.0) + ticks / os.sysconf("SC_CLK_TCK")
    return out


def timed(pid: int, out: dict[str, Any], name: str, work: Callable[[], T]) -> T:
    """Run ``work``; put its wall, server CPU (in all and by thread group) and client CPU
    seconds in ``out`` under ``name``."""
    threads = threads_cpu_s(pid)
    wall, cpu, mine = time.perf_counter(), server_cpu_s(pid), time.process_time()
    result = work()
    out[f"{name}_s"] = time.perf_counter() - wall
    out[f"{name}_server_cpu_s"] = server_cpu_s(pid) - cpu
    out[f"{name}_client_cpu_s"] = time.process_time() - mine
    after = threads_cpu_s(pid)
    out[f"{name}_threads_cpu_s"] = {g: round(after.get(g, 0.0) - threads.get(g, 0.0), 2)
                                    for g in ("worker", "jit", "gc", "other")}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="descendants (default 10^5)")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH_SIZE,
                        help="apply batch size (default: the checkout's own)")
    parser.add_argument("--tag", default="", help="name of the checkout measured")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    parser.add_argument("--warm", type=int, default=0,
                        help="first apply a plan of this many other descendants (0: none)")
    args = parser.parse_args()

    out: dict[str, Any] = {"benchmark": "deletion_apply", "size": args.size, "batch": args.batch,
                           "warm": args.warm, "tag": args.tag,
                           "graphmem": str(Path(graphmem.__file__).parent),
                           "load_before": os.getloadavg()}
    root = f"s{args.size}-root"
    with EphemeralServer(heap=args.heap, pagecache_mb=args.pagecache_mb, timeout_s=900) as server, \
            Memory.connect(server.settings, start_if_needed=False) as memory:
        store = store_of(memory)
        out["load_s"] = load(memory, layered(args.size))
        if args.warm:  # a warm JVM: the erasure's code compiled by an apply on other records
            load(memory, layered(args.warm))
            first = plan_deletion(store, roots=[f"s{args.warm}-root"], requested_by="bench",
                                  reason="warm-up")
            timed(server.pid, out, "warm_apply", lambda: apply_deletion(
                store, first, batch_size=args.batch, check_stale=False))
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
