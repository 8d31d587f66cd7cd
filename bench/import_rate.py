"""Bulk-import rate, side by side: this tree's code against another's (default ``/work/main``).

The store of :mod:`bench.generate` (``--sizes`` records, references pointing backwards) is
written once to a JSON Lines file; then, for each of ``--rounds`` rounds and in alternating
order, each code imports it into a fresh :class:`graphmem.db.server.EphemeralServer` in a
process of its own (``PYTHONPATH`` set to that code's root), in each ``--modes``:

* ``jsonl``: :meth:`graphmem.Memory.import_jsonl` (what ``graphmem import FILE`` runs): the
  whole file read and validated, checked against the store, then written in batches of
  ``--batch``; the rate counts all of it;
* ``stream``: :meth:`graphmem.Memory.put_stream` of the file's lines as dicts (validated batch
  by batch while the previous one is written);
* ``prepare``: the client's share of ``stream`` alone, without a server (validation, checks,
  fingerprints and rows of each batch);
* ``initial``: ``graphmem import --initial``'s offline load into a new home
  (:mod:`graphmem.write.initial`), end to end: the file read and checked, the CSVs written, the
  import tool, the server's start on the loaded store, the client's connection (schema) and the
  load's finish.

This machine's speed drifts by 2-3x within minutes (two cores shared with other work), so the
figure to quote is the ratio within a round; the load average is printed beside each run. A
table goes to the console and the JSON to ``bench/results/import-rate-YYYYMMDD.json``::

    python -m bench.import_rate --sizes 100000
    python -m bench.import_rate --sizes 20000 --modes jsonl --rounds 1   # quick
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
RESULTS = HERE / "bench" / "results"


def child(mode: str, path: Path, batch: int, heap: str, pagecache_mb: int) -> dict[str, Any]:
    """One import into a fresh server with whatever ``graphmem`` is on ``sys.path``; the
    figures as a JSON-able dict. Only public names that every version has are used."""
    from graphmem import Memory
    from graphmem.db.server import EphemeralServer

    load_before = os.getloadavg()[0]
    if mode == "initial":
        return {**initial_load(path, heap, pagecache_mb), "load_before": round(load_before, 2),
                "load_after": round(os.getloadavg()[0], 2)}
    if mode == "prepare":
        return {**prepare_only(path, batch), "load_before": round(load_before, 2),
                "load_after": round(os.getloadavg()[0], 2)}
    with EphemeralServer(heap=heap, pagecache_mb=pagecache_mb, timeout_s=900) as server:
        memory = Memory.connect(server.settings, start_if_needed=False)
        try:
            started = time.perf_counter()
            if mode == "jsonl":
                created = len(memory.import_jsonl(path, batch_size=batch))
            else:
                lines = path.read_text(encoding="utf-8").splitlines()
                created = 0
                for ids in memory.put_stream(
                        [json.loads(line) for line in lines[i:i + batch]]
                        for i in range(0, len(lines), batch)):
                    created += len(ids)
            seconds = time.perf_counter() - started
        finally:
            memory.close()
    return {"mode": mode, "created": created, "seconds": round(seconds, 2),
            "records_per_s": round(created / seconds, 1),
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def initial_load(path: Path, heap: str, pagecache_mb: int) -> dict[str, Any]:
    """The offline initial load of ``path`` into a new home, timed step by step (``csv_s``:
    reading, checking and writing the CSVs, in parts where the code reads in parts; a code
    without them reads first, ``read_s``)."""
    from graphmem import Memory
    from graphmem.client import store_of
    from graphmem.db.server import EphemeralServer
    from graphmem.write import initial

    with tempfile.TemporaryDirectory(prefix="initial-load-") as tmp:
        home = Path(tmp) / "home"
        started = time.perf_counter()
        if hasattr(initial, "prepare_initial"):
            files = initial.prepare_initial(path, home)
            read = started
            prepared = time.perf_counter()
            try:
                load = initial.import_prepared(files, home, heap=heap, off_heap=heap,
                                               csv_s=prepared - started)
            finally:
                initial.discard(files)
        else:  # the code before the parts
            records = initial.read_initial(path)
            read = time.perf_counter()
            load = initial.load_initial(records, home, heap=heap, off_heap=heap)
        loaded = time.perf_counter()
        with EphemeralServer(home=home, heap=heap, pagecache_mb=pagecache_mb,
                             timeout_s=900) as server:
            up = time.perf_counter()
            memory = Memory.connect(server.settings, start_if_needed=False)
            try:
                schema = time.perf_counter()
                finish_initial = initial.finish_initial
                finish_initial(store_of(memory), load)
                seconds = time.perf_counter() - started
                finish = time.perf_counter() - schema
            finally:
                memory.close()
    return {"mode": "initial", "created": load.records, "seconds": round(seconds, 2),
            "records_per_s": round(load.records / seconds, 1),
            "read_s": round(read - started, 2), "csv_s": round(load.csv_s, 2),
            "tool_s": round(load.tool_s, 2), "start_s": round(up - loaded, 2),
            "schema_s": round(schema - up, 2), "finish_s": round(finish, 2)}


def prepare_only(path: Path, batch: int) -> dict[str, Any]:
    """The client's share alone, no server: what ``put_stream`` does to each batch before
    sending it (validation, checks, fingerprints, rows), over the file's lines as dicts."""
    from graphmem.db.records import RecordWrites
    from graphmem.limits import DEFAULT_LIMITS

    writes = RecordWrites.__new__(RecordWrites)  # no driver: only the pure preparation runs
    writes.limits = DEFAULT_LIMITS
    writes.max_content_bytes = 64 * 1024
    lines = path.read_text(encoding="utf-8").splitlines()
    started = time.perf_counter()
    for i in range(0, len(lines), batch):
        writes.prepare_batch([json.loads(line) for line in lines[i:i + batch]])
    seconds = time.perf_counter() - started
    return {"mode": "prepare", "created": len(lines), "seconds": round(seconds, 2),
            "records_per_s": round(len(lines) / seconds, 1)}


def write_file(size: int, seed: int, folder: Path) -> Path:
    """The generated store of ``size`` records as JSON Lines (datetimes as ISO-8601)."""
    from bench.generate import StoreSpec, generate

    path = folder / f"store-{size}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for rec in generate(StoreSpec(total=size, seed=seed)):
            fh.write(json.dumps(rec, default=lambda v: v.isoformat()) + "\n")
    return path


def run_one(root: Path, mode: str, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`child` in a process whose ``graphmem`` is ``root``'s."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--file", str(path),
           "--batch", str(args.batch), "--heap", args.heap,
           "--pagecache-mb", str(args.pagecache_mb)]
    done = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the import with {root} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.import_rate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000", help="comma-separated record counts")
    parser.add_argument("--modes", default="jsonl,stream",
                        help="jsonl, stream, prepare and/or initial")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds per size")
    parser.add_argument("--before", type=Path, default=Path("/work/main"),
                        help="root of the code to compare with (default: %(default)s)")
    parser.add_argument("--after", type=Path, default=HERE,
                        help="root of the code measured (default: this tree; give a copy to "
                             "go on editing this one meanwhile)")
    parser.add_argument("--batch", type=int, default=5_000, help="records per transaction")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.file, args.batch, args.heap,
                               args.pagecache_mb)))
        return

    from rich.console import Console
    from rich.table import Table

    from bench.scale import machine

    console = Console(stderr=True)
    codes = {"before": args.before.resolve(), "now": args.after.resolve()}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="import-rate-") as tmp:
        for size in [int(s.replace("_", "")) for s in args.sizes.split(",") if s]:
            path = write_file(size, args.seed, Path(tmp))
            for rnd in range(args.rounds):
                order = list(codes) if rnd % 2 == 0 else list(reversed(codes))
                for mode in [m for m in args.modes.split(",") if m]:
                    pair: dict[str, dict[str, Any]] = {}
                    for name in order:
                        pair[name] = run_one(codes[name], mode, path, args)
                        console.print(f"{size:,} {mode} round {rnd + 1} {name}: "
                                      f"{pair[name]['records_per_s']:,.0f} rec/s (load "
                                      f"{pair[name]['load_before']} -> "
                                      f"{pair[name]['load_after']})")
                    rows.append({"size": size, "mode": mode, "round": rnd + 1,
                                 "order": order, **pair,
                                 "ratio_now_over_before": round(
                                     pair["now"]["records_per_s"]
                                     / pair["before"]["records_per_s"], 2)})
    table = Table(title="bulk import, records/s (same run, alternating; load = 1-min avg)")
    for col in ("records", "mode", "round", "before rec/s", "now rec/s", "now / before",
                "load before..after"):
        table.add_column(col, justify="right")
    for r in rows:
        loads = [r[k][w] for k in ("before", "now") for w in ("load_before", "load_after")]
        table.add_row(f"{r['size']:,}", r["mode"], str(r["round"]),
                      f"{r['before']['records_per_s']:,.0f}", f"{r['now']['records_per_s']:,.0f}",
                      f"{r['ratio_now_over_before']:.2f}x",
                      f"{min(loads):.1f}..{max(loads):.1f}")
    Console(width=160).print(table)
    out = args.out or RESULTS / f"import-rate-{datetime.now(UTC):%Y%m%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "import_rate", "machine": machine(),
                               "before": str(codes["before"]), "now": str(codes["now"]),
                               "batch": args.batch,
                               "rows": rows}, indent=2) + "\n")
    console.print(f"written {out}")


if __name__ == "__main__":
    main()
