"""Inspector page latency: how long ``graphmem ui`` pages take to answer at a large store.

Starts a :class:`graphmem.db.server.EphemeralServer`, bulk-loads ``--size`` records from
:mod:`bench.generate` (the scale benchmark's seeded store; the probe user sees ~9,000 of
them), starts the inspector (``graphmem ui`` of this checkout, in a subprocess, as a user would) on
127.0.0.1 for that user (tenant ``t000`` confined to ``project=atlas, user=u000``, clearance
confidential) and times, over real HTTP, after
``--warmup`` unmeasured requests, ``--reps`` requests of each page: the records list (first
page, its third page, and each filter: tenant, scope pair, kind, status (retracted, expired,
every status), authority, creation time), a record page, the lineage page and its graph
data, a retrieval, a deletion preview and the reports page (the funnel and fault charts of
``docs/evaluation/report.json``). Target (docs/ui.md): p50 <= 300 ms.

``--home DIR`` keeps the store in DIR (Neo4j home) and, when DIR already holds one loaded by
an earlier run of the same size, reuses it instead of loading again. ``--before DIR`` also
serves the inspector of another checkout of graphmem (for example ``git archive`` of the
base commit unpacked in DIR) on the same database,
and times both inspectors in the same run, alternating request by request, so the machine's
load weighs on both alike. The 1-minute load average is recorded before and after.

Run from the repo root (results in ``bench/results/ui_pages.json`` and a ``.txt`` table)::

    python -m bench.ui_pages --size 100000 [--home /tmp/ui-store] [--before /tmp/ui-before]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.generate import NOW, StoreSpec, generate
from graphmem.client import Memory
from graphmem.db.server import EphemeralServer

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "ui_pages.json"
TARGET_MS = 300.0
PROBE = {"tenant": "t000", "project": "atlas", "user": "u000"}
REPORT = ROOT / "docs" / "evaluation" / "report.json"
"""The evaluation report the reports page charts (its funnel and fault suite)."""
LOADED = "graphmem-bench-ui.json"
"""The file, in a kept ``--home``, that names what an earlier run loaded there."""


def batches(size: int, batch: int, seen: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The generated store in batches; the probe user's records are kept in ``seen``."""
    it = generate(StoreSpec(total=size))
    while chunk := [r for _, r in zip(range(batch), it, strict=False)]:
        seen.extend(r for r in chunk if r["scope"] == PROBE)
        yield chunk


def _get(url: str) -> float:
    """Milliseconds one GET of ``url`` takes (it must answer 200)."""
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as reply:
        reply.read()
        if reply.status != 200:
            raise RuntimeError(f"{url}: {reply.status}")
    return (time.perf_counter() - start) * 1000


def figures(samples: list[float]) -> dict[str, float]:
    """p50/p95/max in milliseconds of ``samples``."""
    samples = sorted(samples)
    return {"p50_ms": round(statistics.median(samples), 1),
            "p95_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.95))], 1),
            "max_ms": round(samples[-1], 1), "n": len(samples)}


def third_page(base: str) -> str:
    """The path of the records list's third page, following its "Next page" links."""
    path = "/records"
    for _ in range(2):
        with urllib.request.urlopen(base + path, timeout=120) as reply:
            found = re.search(r'class="next" href="([^"]+)"', reply.read().decode())
        if found is None:
            raise RuntimeError("the records list has fewer than three pages")
        path = html.unescape(found.group(1))
    return path


def timed(bases: dict[str, str], paths: dict[str, str], reps: int, warmup: int
          ) -> dict[str, dict[str, float]]:
    """Figures of ``reps`` GETs of ``paths[label]`` on each of ``bases`` (label: base URL),
    the inspectors taking turns request by request."""
    samples: dict[str, list[float]] = {label: [] for label in bases}
    for i in range(warmup + reps):
        for label, base in bases.items():
            took = _get(base + paths[label])
            if i >= warmup:
                samples[label].append(took)
    return {label: figures(values) for label, values in samples.items()}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_inspector(checkout: Path, server: EphemeralServer) -> tuple[subprocess.Popen[bytes], str]:
    """``graphmem ui`` of ``checkout`` for the probe user on ``server``; (process, base URL)."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(checkout), "NEO4J_URI": server.uri,
           "NEO4J_PASSWORD": server.settings.password}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from graphmem.cli import main; main()", "ui", "--tenant",
         "t000", "--clearance", "confidential", "--scope", "project=atlas", "--scope", "user=u000",
         "--report", str(REPORT), "--port", str(port)],
        env=env, cwd=checkout, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            _get(base + "/")
            return proc, base
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the inspector of {checkout} did not start") from None
            time.sleep(0.2)


def load(memory: Memory, args: argparse.Namespace) -> tuple[list[dict[str, Any]], float | None]:
    """Load the generated store, or reuse the one a kept ``--home`` holds; (the probe
    user's records, seconds the load took or None when reused)."""
    marker = args.home / LOADED if args.home else None
    if marker is not None and marker.exists():
        saved = json.loads(marker.read_text())
        if saved["size"] == args.size:
            return saved["seen"], None
    seen: list[dict[str, Any]] = []
    start = time.perf_counter()
    for _ in memory.put_stream(batches(args.size, args.batch, seen)):
        pass
    took = time.perf_counter() - start
    seen = [{"id": r["id"], "derived_from": bool(r.get("derived_from"))} for r in seen]
    if marker is not None:
        marker.write_text(json.dumps({"size": args.size, "seen": seen}))
    return seen, took


def table(result: dict[str, Any]) -> str:
    """The result as a plain text table."""
    labels = sorted({label for by_label in result["pages"].values() for label in by_label},
                    key=["before", "after"].index)
    head = f"{'page':20}" + "".join(f"{label + ' p50':>14}{label + ' p95':>14}"
                                    for label in labels)
    lines = [f"graphmem ui pages at {result['size']:,} records, {result['at']}, "
             f"load average {result['load_before']} -> {result['load_after']} "
             f"on {result['machine']['cpus']} cpus; target p50 <= {TARGET_MS:.0f} ms", head]
    for name, by_label in result["pages"].items():
        lines.append(f"{name:20}" + "".join(
            f"{by_label[label]['p50_ms']:14.1f}{by_label[label]['p95_ms']:14.1f}"
            if label in by_label else f"{'-':>14}{'-':>14}" for label in labels))
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--after", type=Path, default=ROOT,
                        help="the checkout timed as 'after' (default: this one)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.home is not None:
        args.home.mkdir(parents=True, exist_ok=True)
    with EphemeralServer(home=args.home, heap="2g", pagecache_mb=512) as server:
        memory = Memory.connect(server.settings, start_if_needed=False)
        other: subprocess.Popen[bytes] | None = None
        try:
            seen, import_s = load(memory, args)
            print("reused the kept store" if import_s is None
                  else f"imported {args.size:,} records in {import_s:.0f} s")
            derived = next((r["id"] for r in seen if r["derived_from"]), seen[0]["id"])
            plain = seen[len(seen) // 2]["id"]
            bases: dict[str, str] = {}
            if args.before is not None:
                other, bases["before"] = start_inspector(args.before, server)
            ours, bases["after"] = start_inspector(args.after, server)
            # a window of the generated creation times (1 to 700 days before NOW)
            since, until = ((NOW - timedelta(days=d)).strftime("%Y-%m-%dT%H:%M")
                            for d in (400, 200))
            pages = {
                "records": "/records",
                "records_tenant": "/records?tenant=t000",
                "records_scope": "/records?scope=project%3Datlas",
                "records_kind": "/records?kind=episodic",
                "records_status": "/records?status=RETRACTED",
                "records_expired": "/records?status=EXPIRED",
                "records_any_status": "/records?status=any",
                "records_authority": "/records?authority=human_instruction",
                "records_time": f"/records?after={since}&before={until}",
                "record": f"/records/{plain}", "record_derived": f"/records/{derived}",
                "lineage_page": f"/lineage/{derived}",
                "lineage_data": f"/api/lineage/{derived}?direction=both&depth=2",
                "retrieval": "/retrieval?goal=invoice+refund+for+acme&budget=4000",
                "deletion_preview": f"/deletion/plan?roots={plain}",
                "reports": "/reports",
            }
            load_before = round(os.getloadavg()[0], 2)
            results: dict[str, dict[str, dict[str, float]]] = {}
            try:
                # the list's third page, as each inspector's "Next page" links reach it
                third = {label: third_page(base) for label, base in bases.items()}
                for name, path in {**pages, "records_page_3": ""}.items():
                    live = dict(bases)
                    paths = third if name == "records_page_3" else dict.fromkeys(live, path)
                    results[name] = timed(live, paths, args.reps, args.warmup)
                    print(name, {k: v["p50_ms"] for k, v in results[name].items()}, flush=True)
            finally:
                ours.terminate()
                ours.wait(30)
            load_after = round(os.getloadavg()[0], 2)
        finally:
            if other is not None:
                other.terminate()
                other.wait(30)
            memory.close()
    result = {
        "size": args.size, "records_in_the_user_scope": len(seen),
        "import_s": None if import_s is None else round(import_s, 1),
        "target_p50_ms": TARGET_MS, "load_before": load_before, "load_after": load_after,
        "pages": results,
        "machine": {"python": platform.python_version(), "cpus": len(os.sched_getaffinity(0))},
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    text = table(result)
    print(text)
    args.out.with_suffix(".txt").write_text(text)
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
