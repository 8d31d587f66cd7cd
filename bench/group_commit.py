"""Group-commit benchmark: how many batches to keep in flight, side by side.

This machine's speed drifts by 2-3x within minutes (the CPU per write of one writer does),
so settings measured in separate runs, minutes apart, cannot be compared. This benchmark
measures them in one process, against one server and one store, in alternation: for each
of ``--reps`` repetitions, for each setting of ``--in-flight``
(:attr:`graphmem.db.group_commit.GroupCommit.max_in_flight`), one writer's throughput, then
8 writers' into one scope (each with its own ``Memory``; ``bench.agent_loop.writers_figure``,
``--rounds`` rounds of 1,600 writes each). The ratio that matters is taken within each
repetition: 8 writers with setting k over 8 writers with the first setting, and over the
one writer measured just before.

Results go to ``bench/results/group_commit.json`` and a table on the console::

    python -m bench.group_commit                                   # 10^5 store
    python -m bench.group_commit --total 20000 --visible 5000 --reps 4   # quick (tuning)
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.agent_loop import run_and_save, store_parser, writers_figure
from bench.generate import StoreSpec
from bench.scale import load, machine
from graphmem import Memory
from graphmem.client import store_of
from graphmem.db.group_commit import group_for
from graphmem.db.server import EphemeralServer

RESULTS = Path(__file__).resolve().parent / "results" / "group_commit.json"
WRITES = 1_600


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    """The measurements, as the JSON written: ``rows`` (one per repetition and setting) and
    ``summary`` (per setting: medians over the repetitions)."""
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    settings: list[int] = args.in_flight
    rows: list[dict[str, Any]] = []
    with EphemeralServer(heap=args.heap, pagecache_mb=args.pagecache_mb) as server:
        a = Memory.connect(server.settings, start_if_needed=False)
        clients = [Memory.connect(server.settings, start_if_needed=False, ensure_schema=False)
                   for _ in range(8)]
        try:
            load(a, StoreSpec(total=args.total, visible=args.visible, seed=args.seed), 2000,
                 console)
            group = group_for(store_of(clients[0]))
            # the JVM compiles the write path over the first few thousand writes (as in
            # bench.agent_loop): warm it with every setting and writer count first
            for k in settings:
                group.max_in_flight = k
                for n in (8, 1):
                    writers_figure(clients[:n], [{"tenant": "t001", "project": f"warm{k}-{n}"}],
                                   WRITES // n, now, f"warm{k}-{n}", server.pid, 1)
            for rep in range(args.reps):
                for k in settings:
                    group.max_in_flight = k
                    figures = {}
                    for n in (1, 8):
                        tag = f"r{rep}-k{k}-n{n}"
                        figures[n] = writers_figure(
                            clients[:n], [{"tenant": "t001", "project": tag}], WRITES // n, now,
                            tag, server.pid, args.rounds)
                    rows.append({"rep": rep, "in_flight": k, "one": figures[1],
                                 "eight": figures[8]})
                    console.print(f"rep {rep}, {k} in flight: 1 writer "
                                  f"{figures[1]['writes_per_s']}, 8 writers "
                                  f"{figures[8]['writes_per_s']} writes/s")
        finally:
            for c in clients:
                c.close()
            a.close()
    first = {r["rep"]: r["eight"]["writes_per_s"] for r in rows if r["in_flight"] == settings[0]}
    summary = []
    for k in settings:
        mine = [r for r in rows if r["in_flight"] == k]
        summary.append({
            "in_flight": k,
            "eight_writes_per_s_p50": statistics.median(r["eight"]["writes_per_s"] for r in mine),
            "eight_over_one_p50": round(statistics.median(
                r["eight"]["writes_per_s"] / r["one"]["writes_per_s"] for r in mine), 2),
            "eight_over_one_each": [round(r["eight"]["writes_per_s"] / r["one"]["writes_per_s"], 2)
                                    for r in mine],
            f"eight_over_{settings[0]}_in_flight_each": [
                round(r["eight"]["writes_per_s"] / first[r["rep"]], 2) for r in mine],
            "mean_batch_p50": statistics.median(r["eight"]["mean_batch"] or 1 for r in mine),
            "retries": sum(r["eight"]["retries"] + r["one"]["retries"] for r in mine),
            "errors": sum(r["eight"]["errors"] + r["one"]["errors"] for r in mine),
        })
    return {"total": args.total, "visible": args.visible, "reps": args.reps,
            "rounds": args.rounds, "rows": rows, "summary": summary, "machine": machine(),
            "date": datetime.now(UTC).isoformat(timespec="seconds")}


def table(result: dict[str, Any]) -> Table:
    """The summary as a console table."""
    first = result["summary"][0]["in_flight"]
    t = Table(title=f"group commit, 8 writers into one scope ({result['reps']} repetitions, "
                    f"{result['total']:,} records)")
    for col in ("in flight", "8 writers, writes/s p50", "8 over 1 writer, each rep",
                f"over {first} in flight, each rep", "mean batch", "retries / errors"):
        t.add_column(col)
    for s in result["summary"]:
        t.add_row(str(s["in_flight"]), f"{s['eight_writes_per_s_p50']:,.0f}",
                  " / ".join(map(str, s["eight_over_one_each"])),
                  " / ".join(map(str, s[f"eight_over_{first}_in_flight_each"])),
                  str(s["mean_batch_p50"]), f"{s['retries']} / {s['errors']}")
    return t


def main(argv: Sequence[str] | None = None) -> None:
    parser = store_parser(__doc__.splitlines()[0], RESULTS)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 2, 3])
    run_and_save(parser.parse_args(argv), run, table)


if __name__ == "__main__":
    main()
