"""Inspector page latency: how long ``graphmem ui`` pages take to answer at a large store.

Starts a fresh :class:`graphmem.db.server.EphemeralServer`, bulk-loads ``--size`` records
from :mod:`bench.generate` (the scale benchmark's seeded store; the probe user sees ~9,000 of
them), starts the inspector on 127.0.0.1 for that user (tenant ``t000`` confined to
``project=atlas, user=u000``, clearance confidential) and times, over real HTTP, after
``--warmup`` unmeasured requests, ``--reps`` requests of each page: the records list (first
page, a later page, a kind filter), a record page, the lineage page and its graph data, a
retrieval and a deletion preview. Target (docs/ui.md): p50 <= 300 ms.

Run from the repo root (results in ``bench/results/ui_pages.json``)::

    python -m bench.ui_pages --size 100000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn

from bench.generate import StoreSpec, generate
from graphmem.client import Memory
from graphmem.db.server import EphemeralServer
from graphmem.ui.app import create_app
from graphmem.ui.config import UiConfig

RESULTS = Path(__file__).parent / "results" / "ui_pages.json"
TARGET_MS = 300.0


def batches(size: int, batch: int, seen: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The generated store in batches; the probe user's records are kept in ``seen``."""
    it = generate(StoreSpec(total=size))
    while chunk := [r for _, r in zip(range(batch), it, strict=False)]:
        seen.extend(r for r in chunk if r["scope"] == {"tenant": "t000", "project": "atlas",
                                                        "user": "u000"})
        yield chunk


def timed(url: str, reps: int, warmup: int) -> dict[str, float]:
    """p50/p95/max in milliseconds of ``reps`` GETs of ``url`` (each must answer 200)."""
    samples = []
    for i in range(warmup + reps):
        start = time.perf_counter()
        with urllib.request.urlopen(url, timeout=120) as reply:
            reply.read()
            if reply.status != 200:
                raise RuntimeError(f"{url}: {reply.status}")
        if i >= warmup:
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 1),
            "p95_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.95))], 1),
            "max_ms": round(samples[-1], 1), "n": len(samples)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args(argv)
    seen: list[dict[str, Any]] = []
    with EphemeralServer() as server:
        memory = Memory.connect(server.settings, start_if_needed=False)
        try:
            start = time.perf_counter()
            for _ in memory.put_stream(batches(args.size, args.batch, seen)):
                pass
            import_s = time.perf_counter() - start
            print(f"imported {args.size:,} records in {import_s:.0f} s")
            derived = next((r["id"] for r in seen if r.get("derived_from")), seen[0]["id"])
            plain = seen[len(seen) // 2]["id"]
            config = UiConfig.build(tenants=["t000"], clearance="confidential",
                                    scope={"project": "atlas", "user": "u000"})
            app = create_app(memory, config)
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            base = f"http://127.0.0.1:{sock.getsockname()[1]}"
            ui = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
            thread = threading.Thread(target=ui.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()
            while not ui.started:
                time.sleep(0.05)
            pages = {
                "records": "/records", "records_page_3": "/records?start=100",
                "records_kind": "/records?kind=episodic",
                "record": f"/records/{plain}", "record_derived": f"/records/{derived}",
                "lineage_page": f"/lineage/{derived}",
                "lineage_data": f"/api/lineage/{derived}?direction=both&depth=2",
                "retrieval": "/retrieval?goal=invoice+refund+for+acme&budget=4000",
                "deletion_preview": f"/deletion/plan?roots={plain}",
            }
            try:
                figures = {name: timed(base + path, args.reps, args.warmup)
                           for name, path in pages.items()}
            finally:
                ui.should_exit = True
                thread.join(30)
                sock.close()
        finally:
            memory.close()
    for name, figure in figures.items():
        mark = "ok" if figure["p50_ms"] <= TARGET_MS else "OVER"
        print(f"{name:18} p50 {figure['p50_ms']:8.1f} ms  p95 {figure['p95_ms']:8.1f} ms  {mark}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "size": args.size, "records_in_the_user_scope": len(seen), "import_s": round(import_s, 1),
        "target_p50_ms": TARGET_MS, "pages": figures,
        "machine": {"python": platform.python_version(), "cpus": len(os.sched_getaffinity(0))},
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, indent=2) + "\n")
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
