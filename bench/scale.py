"""Scale benchmark: import throughput and read latency as the store grows.

For every total size (``--sizes``, e.g. 10^4, 10^5, 10^6) this starts a fresh
:class:`graphmem.db.server.EphemeralServer` (``--heap``, ``--pagecache-mb``), bulk-loads a seeded
store from :mod:`bench.generate` through :meth:`graphmem.Memory.put_stream` in batches of
``--batch`` (each batch one transaction of ``UNWIND`` queries, the next one validated while
the server writes the current one) and measures, for a probe
scope that sees ~10^4 records at every size (after ``--warmup`` unmeasured calls,
``--reps`` measured ones):

* ``candidates`` p50/p95 (eligible ACTIVE records, decided in Cypher);
* ``retrieve`` p50/p95 (default BM25 ranker, a ``needs_prior_context`` decision state,
  end to end: candidates, ranking, conflicts, budget, attribution log);
* ``explain`` p50/p95 (records of the probe scope with mixed statuses, and other tenants');

and side by side, in the same process over the same records:

* **full scan**: plain Python applying docs/spec/eligibility.md#eligible-and-active to every record
  of the store, held in Python memory (what one gets without a database); its active set is checked
  against ``candidates``, and its status against ``explain``;
* **naive**: "store everything, rank by BM25 similarity alone" over the whole store; its
  index is built once (time reported apart), the figure is the per-query time; the share of
  its top 10 that the caller may not see (or that is not active) is reported as ``leak``.

Also the client's memory (``ru_maxrss`` of the whole process, which includes the baselines'
copies, and the ``tracemalloc`` peak of one ``retrieve``), the server's heap and page cache,
and a cProfile of one extra ``put_many`` batch (where import time goes).

Run from the repo root (results merge by size into ``bench/results/scale.json``)::

    python -m bench.scale --sizes 10000,100000
    python -m bench.scale --sizes 1000000 --baseline-reps 5
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import resource
import subprocess
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from graphmem.client import Memory, store_of
from graphmem.db.server import EphemeralServer
from graphmem.models import Principal, Sensitivity
from graphmem.read.steps import DecisionState, build_query

from .generate import NOW, PROBE_SCOPE, StoreSpec, generate

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "scale.json"
PRINCIPAL = Principal(tenants=frozenset({"t000"}), clearance=Sensitivity.CONFIDENTIAL)
SENS_RANK = {s.value: s.rank for s in Sensitivity}
GOALS = [
    ("refund the acme invoice after the plan downgrade", "check the billing history"),
    ("roll back the canary release on the cluster", "find the last rollout incident"),
    ("answer the hooli escalation about timeout errors", "recall the outage notes"),
    ("plan the schema migration and backup restore", "what broke the replica last time"),
    ("rotate the leaked token and audit access", "who approved the role change"),
    ("prepare the pricing launch for wonka", "churn feedback from the trial"),
]


# ----------------------------------------------------------------------------- the baselines


@dataclass(frozen=True)
class Row:
    """What the full scan needs of one record (kept compact so 10^6 fit in memory)."""

    id: str
    tenant: str
    scope: tuple[tuple[str, str], ...]
    sensitivity: int
    retracted: bool
    valid_from: float | None
    expires_at: float | None
    supersedes: tuple[str, ...]


def _ts(value: Any) -> float | None:
    return value.timestamp() if value is not None else None


def to_row(rec: dict[str, Any]) -> Row:
    return Row(
        id=rec["id"], tenant=rec["scope"]["tenant"], scope=tuple(sorted(rec["scope"].items())),
        sensitivity=SENS_RANK[rec.get("sensitivity", "normal")],
        retracted=bool(rec.get("retracted")), valid_from=_ts(rec.get("valid_from")),
        expires_at=_ts(rec.get("expires_at")), supersedes=tuple(rec.get("supersedes", ())),
    )


def full_scan(rows: Sequence[Row], principal: Principal, scope: dict[str, str],
              now: datetime) -> dict[str, str]:
    """docs/spec/eligibility.md#eligible-and-active applied to every record, in plain Python: id ->
    status.

    Same statement as ``tests/support/oracle.py`` (copied, not imported): authorization, scope,
    then lifecycle in precedence order; a record is SUPERSEDED by an eligible successor that
    is already valid. Two linear passes (successors first), no index.
    """
    tenants, clearance = principal.tenants, principal.clearance.rank
    query_items = set(scope.items())
    now_ts = now.timestamp()
    if scope["tenant"] not in tenants:
        return {r.id: "UNAUTHORIZED" for r in rows}

    def eligible(r: Row) -> bool:
        return (r.tenant in tenants and r.sensitivity <= clearance
                and all(item in query_items for item in r.scope))

    superseded: set[str] = set()
    for r in rows:
        if r.supersedes and eligible(r) and (r.valid_from is None or r.valid_from <= now_ts):
            superseded.update(r.supersedes)
    status: dict[str, str] = {}
    for r in rows:
        if r.tenant not in tenants or r.sensitivity > clearance:
            s = "UNAUTHORIZED"
        elif not all(item in query_items for item in r.scope):
            s = "OUT_OF_SCOPE"
        elif r.retracted:
            s = "RETRACTED"
        elif r.valid_from is not None and now_ts < r.valid_from:
            s = "NOT_YET_VALID"
        elif r.expires_at is not None and now_ts >= r.expires_at:
            s = "EXPIRED"
        elif r.id in superseded:
            s = "SUPERSEDED"
        else:
            s = "ACTIVE"
        status[r.id] = s
    return status


class NaiveBM25:
    """Store everything, rank by BM25 alone over the whole store (index built once)."""

    def __init__(self, ids: list[str], contents: list[str]) -> None:
        self.ids = ids
        self.stemmer = Stemmer.Stemmer("english")
        corpus = bm25s.tokenize(contents, stopwords="en", stemmer=self.stemmer,
                                return_ids=False, show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(corpus, show_progress=False)

    def top(self, query: str, k: int = 10) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer,
                                return_ids=False, show_progress=False)[0]
        known = [t for t in tokens if t in self.retriever.vocab_dict]
        if not known:
            return []
        scores = np.asarray(self.retriever.get_scores(known))
        best = np.argpartition(-scores, k)[:k]
        best = best[np.argsort(-scores[best])]
        return [self.ids[i] for i in best if scores[i] > 0]


# ----------------------------------------------------------------------------- measuring


def timed(fn: Callable[[int], Any], reps: int, warmup: int) -> list[float]:
    """Milliseconds of ``reps`` calls of ``fn(i)`` after ``warmup`` unmeasured ones."""
    for i in range(warmup):
        fn(i)
    out = []
    for i in range(reps):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2),
            "p95_ms": round(float(np.percentile(a, 95)), 2),
            "p99_ms": round(float(np.percentile(a, 99)), 2),
            "min_ms": round(float(a.min()), 2), "max_ms": round(float(a.max()), 2),
            "n": len(ms)}


def state(i: int) -> DecisionState:
    goal, subtask = GOALS[i % len(GOALS)]
    return DecisionState(memory_scope=dict(PROBE_SCOPE), goal=goal, subtask=subtask,
                         needs_prior_context=True)


def batches(it: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for rec in it:
        batch.append(rec)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def load(memory: Memory, spec: StoreSpec, batch_size: int, console: Console
         ) -> tuple[list[Row], list[str], list[str], dict[str, float]]:
    """Write the store; return scan rows, naive ids/contents and the import timings."""
    rows: list[Row] = []
    ids: list[str] = []
    contents: list[str] = []
    put_s = gen_s = 0.0
    columns = (TextColumn("[bold]import {task.fields[size]:,}"), BarColumn(),
               MofNCompleteColumn(), TextColumn("{task.fields[rate]:>8,.0f} rec/s"),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("import", total=spec.total, size=spec.total, rate=0.0)
        it = generate(spec)
        pending: list[list[dict[str, Any]]] = []

        def stream() -> Iterator[list[dict[str, Any]]]:
            nonlocal gen_s
            while True:
                t0 = time.perf_counter()
                batch = [r for _, r in zip(range(batch_size), it, strict=False)]
                gen_s += time.perf_counter() - t0
                if not batch:
                    return
                pending.append(batch)
                yield batch

        start = time.perf_counter()
        for created in memory.put_stream(stream()):
            batch = pending.pop(0)
            put_s = time.perf_counter() - start - gen_s
            if len(created) != len(batch):
                raise RuntimeError(f"put_stream created {len(created)} of {len(batch)}")
            for rec in batch:
                rows.append(to_row(rec))
                ids.append(rec["id"])
                contents.append(rec["content"])
            progress.update(task, advance=len(batch), rate=len(rows) / put_s)
            if not console.is_terminal and len(rows) % (batch_size * 4) == 0:
                console.print(f"  {len(rows):,} records, {len(rows) / put_s:,.0f} rec/s "
                              f"({put_s:.0f} s importing)")
    return rows, ids, contents, {"import_s": round(put_s, 2), "generate_s": round(gen_s, 2),
                                 "records_per_s": round(len(rows) / put_s, 1)}


def profile_batch(memory: Memory, batch_size: int) -> dict[str, Any]:
    """cProfile one extra batch (a fresh tenant-wide stream of t099) and sum where it goes."""
    spec = StoreSpec(total=batch_size, visible=0, seed=99)
    batch = [dict(r, id=f"prof-{r['id']}",
                  supersedes=tuple(f"prof-{x}" for x in r.get("supersedes", ())),
                  derived_from=tuple(f"prof-{x}" for x in r.get("derived_from", ())),
                  evidence_ids=tuple(f"prof-{x}" for x in r.get("evidence_ids", ())))
             for r in generate(spec)]
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    memory.put_many(batch)
    prof.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof)
    wanted = {"coerce_record": "client: validate records (pydantic)",
              "check_batch_lineage": "client: in-batch lineage check",
              "record_props": "client: record -> properties (json, sha256)",
              "prepare_in_tx": "tx: existing ids and fingerprints (query + hashing)",
              "create_in_tx": "tx: scopes, records, edges, assertion groups",
              "_existing": "server: records_existing query"}
    found: dict[str, float] = {}
    # pstats.Stats.stats (the raw table) is undocumented, so typeshed does not declare it
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (_, _, name), (_, _, _, cum, _) in raw.items():
        if name in wanted:
            found[wanted[name]] = round(found.get(wanted[name], 0.0) + cum, 3)
    return {"batch": len(batch), "wall_s": round(wall, 3),
            "records_per_s": round(len(batch) / wall, 1), "cumulative_s": found}


def measure_size(size: int, args: argparse.Namespace, console: Console) -> dict[str, Any]:
    spec = StoreSpec(total=size, visible=args.visible, seed=args.seed)
    console.rule(f"[bold]{size:,} records ({spec.visible:,} visible to the probe scope)")
    with EphemeralServer(heap=args.heap, pagecache_mb=args.pagecache_mb) as server:
        memory = Memory.connect(server.settings, start_if_needed=False)
        try:
            version = store_of(memory).driver.execute_query(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS v"
            )[0][0]["v"]
            rows, ids, contents, imp = load(memory, spec, args.batch, console)
            console.print(f"imported {len(rows):,} records at {imp['records_per_s']:,.0f} rec/s "
                          f"({imp['import_s']} s importing)")
            # The full scan over the store: the expected answer and a baseline.
            statuses = full_scan(rows, PRINCIPAL, PROBE_SCOPE, NOW)
            expected = {i for i, s in statuses.items() if s == "ACTIVE"}
            got = {r.id for r in memory.candidates(principal=PRINCIPAL, scope=PROBE_SCOPE,
                                                   now=NOW)}
            probe_items = set(PROBE_SCOPE.items())
            visible = sum(1 for r in rows if all(x in probe_items for x in r.scope))
            sample = [r.id for r in rows if all(x in probe_items for x in r.scope)][::97][:60]
            sample += [r.id for r in rows if r.tenant != "t000"][::997][:10]
            console.print(f"probe scope sees {visible:,} records, {len(got):,} active; "
                          f"full scan agrees: {got == expected}")

            stats = store_of(memory).answer_stats
            before = dict(stats)
            cand = timed(lambda i: memory.candidates(principal=PRINCIPAL, scope=PROBE_SCOPE,
                                                     now=NOW), args.reps, args.warmup)
            reused = stats["reused"] - before.get("reused", 0)

            def cold(i: int) -> None:  # what every call costs right after a write to the scope
                store_of(memory).forget_answers()
                memory.candidates(principal=PRINCIPAL, scope=PROBE_SCOPE, now=NOW)

            cand_cold = timed(cold, max(10, args.reps // 3), 2)

            def retr_cold_call(i: int) -> None:  # a whole retrieve right after a write to the scope
                store_of(memory).forget_answers()
                memory.retrieve(state(i), principal=PRINCIPAL, now=NOW)

            retr_cold = timed(retr_cold_call, max(10, args.reps // 3), 2)
            retr = timed(lambda i: memory.retrieve(state(i), principal=PRINCIPAL, now=NOW),
                         args.reps, args.warmup)
            expl_status: dict[str, str] = {}

            def explain(i: int) -> None:
                rid = sample[i % len(sample)]
                expl_status[rid] = memory.explain(rid, principal=PRINCIPAL, scope=PROBE_SCOPE,
                                                  now=NOW).status.value

            expl = timed(explain, args.reps * 2, args.warmup)
            explain_agrees = all(statuses[k] == v for k, v in expl_status.items())

            tracemalloc.start()
            memory.retrieve(state(0), principal=PRINCIPAL, now=NOW)
            _, retrieve_peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()

            scan = timed(lambda i: full_scan(rows, PRINCIPAL, PROBE_SCOPE, NOW),
                         args.baseline_reps, 1)
            t0 = time.perf_counter()
            naive = NaiveBM25(ids, contents)
            naive_index_s = time.perf_counter() - t0
            naive_ms = timed(lambda i: naive.top(build_query(state(i))), args.reps, args.warmup)
            leaked = [sum(1 for rid in naive.top(build_query(state(i))) if rid not in expected)
                      for i in range(len(GOALS))]
            prof = profile_batch(memory, args.batch) if args.profile else None
        finally:
            memory.close()
    gc.collect()
    result = {
        "size": size,
        "visible_to_probe": visible,
        "active_in_probe": len(expected),
        "status_counts": dict(Counter(statuses.values())),
        "candidates_match_full_scan": got == expected,
        "explain_matches_full_scan": explain_agrees,
        "import": imp,
        "candidates": summary(cand) | {"answers_reused": reused},
        "candidates_cold": summary(cand_cold),
        "retrieve_cold": summary(retr_cold),
        "retrieve": summary(retr),
        "explain": summary(expl),
        "full_scan": summary(scan),
        "naive_bm25": summary(naive_ms) | {"index_build_s": round(naive_index_s, 2),
                                           "leak_in_top10_mean": round(
                                               sum(leaked) / len(leaked), 2)},
        "ratios": {},
        "memory": {"client_ru_maxrss_mb": round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "retrieve_tracemalloc_peak_mb": round(retrieve_peak / 2**20, 1)},
        "server": {"neo4j": version, "heap": args.heap, "pagecache_mb": args.pagecache_mb,
                   "launcher": "graphmem.db.server.EphemeralServer"},
        "profile_one_batch": prof,
    }
    result["ratios"] = ratios(result)
    return result


def ratios(r: dict[str, Any]) -> dict[str, float]:
    """How many times slower each baseline is than graphmem (p50 over p50; < 1: faster)."""
    pairs = {"full_scan_over_candidates_p50": ("full_scan", "candidates"),
             "full_scan_over_candidates_cold_p50": ("full_scan", "candidates_cold"),
             "full_scan_over_retrieve_p50": ("full_scan", "retrieve"),
             "full_scan_over_retrieve_cold_p50": ("full_scan", "retrieve_cold"),
             "naive_over_retrieve_p50": ("naive_bm25", "retrieve")}
    return {name: float(f"{r[a]['p50_ms'] / r[b]['p50_ms']:.3g}")
            for name, (a, b) in pairs.items() if a in r and b in r}


# ----------------------------------------------------------------------------- output


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                            "platform": platform.platform()}
    with suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["mem_gb"] = round(int(line.split()[1]) / 2**20, 1)
        info["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    with suppress(OSError, subprocess.CalledProcessError):
        info["git_commit"] = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).resolve().parents[1],
            capture_output=True, text=True, check=True).stdout.strip()
    info["date"] = datetime.now(UTC).isoformat(timespec="seconds")
    return info


def table(results: list[dict[str, Any]]) -> Table:
    t = Table(title="graphmem at scale (probe scope ~10^4 records; ms, p50 / p95)")
    for col in ("records", "import rec/s", "candidates", "cand. cold", "retrieve",
                "retr. cold", "explain", "full scan p50", "naive p50", "scan/cand",
                "scan/cand cold", "scan/retrieve", "naive/retrieve", "naive leak@10", "exact"):
        t.add_column(col, justify="right")

    def cell(r: dict[str, Any], k: str) -> str:
        return f"{r[k]['p50_ms']:.1f} / {r[k]['p95_ms']:.1f}" if k in r else "-"

    def ratio(r: dict[str, Any], k: str) -> str:
        return f"{r['ratios'][k]:.3g}x" if k in r["ratios"] else "-"

    for r in results:
        t.add_row(
            f"{r['size']:,}", f"{r['import']['records_per_s']:,.0f}",
            *(cell(r, k) for k in ("candidates", "candidates_cold", "retrieve", "retrieve_cold",
                                   "explain")),
            f"{r['full_scan']['p50_ms']:.1f}", f"{r['naive_bm25']['p50_ms']:.1f}",
            *(ratio(r, k) for k in ("full_scan_over_candidates_p50",
                                    "full_scan_over_candidates_cold_p50",
                                    "full_scan_over_retrieve_p50", "naive_over_retrieve_p50")),
            f"{r['naive_bm25']['leak_in_top10_mean']:.1f}",
            "yes" if r["candidates_match_full_scan"] and r["explain_matches_full_scan"]
            else "NO",
        )
    return t


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000",
                        help="comma-separated total record counts (default: %(default)s)")
    parser.add_argument("--visible", type=int, default=9_000,
                        help="records the probe scope sees (default: %(default)s)")
    parser.add_argument("--batch", type=int, default=5_000, help="put_many batch size")
    parser.add_argument("--reps", type=int, default=30, help="measured calls per figure")
    parser.add_argument("--warmup", type=int, default=5, help="unmeasured calls first")
    parser.add_argument("--baseline-reps", type=int, default=10,
                        help="measured full scans per size (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache-mb", type=int, default=1024)
    parser.add_argument("--no-profile", dest="profile", action="store_false",
                        help="skip the cProfile of one extra put_many batch")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s]
    previous: dict[int, Any] = {}
    if args.out.exists():
        with suppress(ValueError, KeyError):
            previous = {r["size"]: r | {"ratios": ratios(r)}
                        for r in json.loads(args.out.read_text())["results"]}
    for size in sizes:
        previous[size] = measure_size(size, args, console)
        merged = [previous[k] for k in sorted(previous)]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"benchmark": "scale", "machine": machine(),
                                        "results": merged}, indent=2) + "\n")
        Console(width=240).print(table(merged))
    console.print(f"written {args.out}")


if __name__ == "__main__":
    main()
