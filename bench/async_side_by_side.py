"""The two async paths' event-loop gaps, two code trees side by side in one run.

Runs :mod:`bench.async_client` (20 concurrent ``AsyncMemory.retrieve`` against 20 threads on
``Memory``) and :mod:`bench.langgraph_async_paths` (20 concurrent ``GraphmemStore.asearch``)
in subprocesses, alternating a "before" tree (``--before``, e.g. another checkout's root:
its ``graphmem`` package and ``cypher/`` are used, with this tree's benchmarks) and this
tree, ``--rounds`` times, the first tree reversed every round so a drifting load falls on
both, all against one Neo4j (``NEO4J_URI``'s, else a throwaway server). Each benchmark
records the ticker alone on the idle loop in the same process, so the machine's own noise
is beside every figure; the load average is read after each run.

Writes ``bench/results/async-side-by-side-<date>.json`` and ``.txt``::

    python -m bench.async_side_by_side --before /work/main --rounds 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings

HERE = Path(__file__).resolve().parents[1]
RESULTS = HERE / "bench" / "results"

RUN = """
import sys
from pathlib import Path
import importlib
bench = importlib.import_module(sys.argv[1])
bench.RESULTS = Path(sys.argv[2])
if sys.argv[1] == "bench.async_client":
    bench.main(sys.argv[3:])
else:
    bench.main()
"""


def _tree_path(before: Path, scratch: Path) -> Path:
    """A folder whose ``graphmem`` and ``cypher`` are ``before``'s and ``bench`` this tree's."""
    root = scratch / "before-tree"
    root.mkdir()
    (root / "graphmem").symlink_to(before / "graphmem")
    (root / "cypher").symlink_to(before / "cypher")
    (root / "bench").symlink_to(HERE / "bench")
    return root


def _run(module: str, path: Path, out: Path, env: dict[str, str], extra: list[str]
         ) -> dict[str, Any]:
    out.mkdir(parents=True)
    # run from the tree's root: ``python -c`` puts the working directory first on sys.path,
    # ahead of PYTHONPATH, so run from this tree a "before" run imported this tree's graphmem
    done = subprocess.run([sys.executable, "-c", RUN, module, str(out), *extra],
                          env={**env, "PYTHONPATH": str(path)}, cwd=path,
                          capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{module} failed: {done.stderr[-2000:]}")
    found = sorted(out.glob("*.json"))
    data: dict[str, Any] = json.loads(found[-1].read_text())
    data["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
    return data


def _retrieve_row(tree: str, data: dict[str, Any]) -> dict[str, Any]:
    mine = [r for r in data["rows"] if r["side"] == "AsyncMemory"]
    threads = [r for r in data["rows"] if r["side"] == "Memory, 20 threads"]
    return {"tree": tree, "bench": "retrieve",
            "async_max_gap_ms": max(r["max_gap_ms"] for r in mine),
            "async_gaps_ms": [r["max_gap_ms"] for r in mine],
            "threads_max_gap_ms": max(r["max_gap_ms"] for r in threads),
            "async_p99_gap_ms": max(r["p99_gap_ms"] for r in mine),
            "threads_p99_gap_ms": max(r["p99_gap_ms"] for r in threads),
            "async_per_s": statistics.median(r["throughput_per_s"] for r in mine),
            "threads_per_s": statistics.median(r["throughput_per_s"] for r in threads),
            "throughput_ratio": data["targets"]["throughput_ratio"],
            "idle_max_gap_ms": data["idle_loop"]["max_gap_ms"],
            "load": data["load_avg_after"]}


def _asearch_row(tree: str, data: dict[str, Any]) -> dict[str, Any]:
    paths = data["paths"]
    worker = paths["worker thread (GraphmemStore.asearch)"]
    return {"tree": tree, "bench": "asearch", "asearch_max_gap_ms": worker["gap_max"],
            "asearch_median_gap_ms": worker["gap_p50"], "asearch_wall_ms": worker["wall_p50"],
            "idle_max_gap_ms": paths["ticker alone"]["gap_max"],
            "idle_median_gap_ms": paths["ticker alone"]["gap_p50"],
            "load": data["load_avg_after"]}


def table(rows: list[dict[str, Any]], before: str, at: str) -> str:
    """The runs as two Markdown tables (one per benchmark), in the order run."""
    lines = [f"Async paths, before ({before}) and after (this tree), alternating, one Neo4j "
             f"({at})", "", "20 concurrent retrieve (bench.async_client):", "",
             "| round | tree | AsyncMemory largest gap ms (per rep) | Memory 20 threads largest "
             "gap ms | p99 gap ms async, threads | AsyncMemory / threads throughput | "
             "retrievals/s async, threads | ticker alone ms | load after |",
             "|--:|---|--:|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        if r["bench"] == "retrieve":
            lines.append(
                f"| {r['round']} | {r['tree']} | {r['async_max_gap_ms']:.1f} "
                f"({', '.join(f'{g:.0f}' for g in r['async_gaps_ms'])}) | "
                f"{r['threads_max_gap_ms']:.1f} | {r.get('async_p99_gap_ms', 0):.0f}, "
                f"{r.get('threads_p99_gap_ms', 0):.0f} | {r['throughput_ratio']:.2f} | "
                f"{r['async_per_s']:.0f}, {r['threads_per_s']:.0f} | "
                f"{r['idle_max_gap_ms']:.1f} | {r['load'][0]:.1f} |")
    lines += ["", "20 concurrent asearch (bench.langgraph_async_paths, 10 rounds each):", "",
              "| round | tree | asearch largest gap ms, worst | median | wall p50 ms | "
              "ticker alone worst | median | load after |", "|--:|---|--:|--:|--:|--:|--:|---|"]
    for r in rows:
        if r["bench"] == "asearch":
            lines.append(
                f"| {r['round']} | {r['tree']} | {r['asearch_max_gap_ms']:.1f} | "
                f"{r['asearch_median_gap_ms']:.1f} | {r['asearch_wall_ms']:.0f} | "
                f"{r['idle_max_gap_ms']:.1f} | {r['idle_median_gap_ms']:.1f} | "
                f"{r['load'][0]:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reps", type=int, default=2, help="bench.async_client's --reps")
    parser.add_argument("--out", default=None, help="file stem under bench/results/")
    args = parser.parse_args(argv)
    at = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        settings = ConnectionSettings.from_env()
        if settings is None:
            settings = stack.enter_context(EphemeralServer(heap="1g")).settings
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
               "NEO4J_PASSWORD": settings.password, "NEO4J_DATABASE": settings.database}
        trees = {"before": _tree_path(args.before.resolve(), scratch), "after": HERE}
        for round_ in range(args.rounds):
            order = list(trees.items()) if round_ % 2 == 0 else list(trees.items())[::-1]
            for name, path in order:
                out = scratch / f"{round_}-{name}"
                data = _run("bench.async_client", path, out / "retrieve", env,
                            ["--reps", str(args.reps)])
                rows.append({"round": round_, **_retrieve_row(name, data)})
                data = _run("bench.langgraph_async_paths", path, out / "asearch", env, [])
                rows.append({"round": round_, **_asearch_row(name, data)})
                print(json.dumps(rows[-2:]), flush=True)
    text = table(rows, str(args.before), at.isoformat(timespec="seconds"))
    stem = args.out or f"async-side-by-side-{at:%Y%m%d}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(
        {"at": at.isoformat(timespec="seconds"), "before": str(args.before),
         "rounds": args.rounds, "rows": rows}, indent=2) + "\n")
    (RESULTS / f"{stem}.txt").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
