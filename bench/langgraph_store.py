"""LangGraph stores side by side: ``InMemoryStore``, ``PostgresStore`` and ``GraphmemStore``.

One process, one run, the stores measured in alternation (this machine's speed drifts
within minutes: only ratios taken within a run compare). For each repetition and store,
p50 (and p90) milliseconds of:

- ``put``: 1,000 puts of new keys into one namespace, one at a time;
- ``get``: 1,000 gets of those keys;
- ``search50``: a search with a filter (``{"color": "red"}``, limit 10) in a namespace of 50;
- ``search1000``: the same in the namespace of 1,000;
- ``list_namespaces``: ``list_namespaces(prefix=(tenant,))`` over 60 namespaces;
- ``query50`` / ``query1000``: semantic search, ``search(ns, query=..., limit=10)`` on a store
  with ``index={"dims": 256, "embed": <a hashed bag of words>, "fields": ["text"]}``, in a
  namespace of 50 / 1,000 items (the embedding costs microseconds: the row measures the store).
  PostgresStore takes part only when pgvector is installed (``CREATE EXTENSION vector``
  works); else these rows compare with ``InMemoryStore`` only.

And the async twins (``AsyncPostgresStore`` for PostgreSQL), on the same data:

- ``loop_gap``: the largest gap (ms) between the ticks of a 5 ms ticker on the event loop
  while 20 concurrent ``asearch`` calls (filter, limit 10, each its own offset) run on the
  namespace of 1,000, the worst of 10 rounds (after one round that is not counted);
  ``loop_gap_p50`` the median of the 10 rounds' largest gaps, and ``loop_gap_idle`` the
  worst of 10 rounds of the ticker alone for as long (the machine's own noise);
- ``batch60k``: seconds to gather 60,000 async operations shaped as LangGraph's own
  ``test_large_batches_async`` (for 10 x 1,000 keys: ``aput``, ``aget``,
  ``alist_namespaces(max_depth=m+1)``, ``asearch`` of the tenant, ``aput`` again,
  ``adelete``), in the tenant's namespaces; given up after ``--batch-timeout`` seconds.

PostgreSQL comes from the Debian packages (``initdb``/``pg_ctl`` on PATH or in
``/usr/lib/postgresql/*/bin``): a throwaway cluster in a temporary directory, on a free port,
run as ``nobody`` when this process is root, stopped and deleted at the end. Without it the
PostgresStore column is left out. Neo4j is the server of ``NEO4J_URI`` (and ``NEO4J_USER``,
``NEO4J_PASSWORD``) when set (tenants ``t0``, ``t1``, ... are written there), else the
launcher's ephemeral server.

Writes ``bench/results/langgraph-store-<date>[-<tag>].json`` and ``.txt`` (the table)::

    python -m bench.langgraph_store            # --reps 3 --n 1000 [--tag async]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import glob
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from langgraph.store.base import BaseStore, IndexConfig, PutOp
from langgraph.store.memory import InMemoryStore

from graphmem import Memory, Principal
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings
from graphmem.integrations.langgraph import GraphmemStore

RESULTS = Path(__file__).resolve().parent / "results"
OPERATIONS = ("put", "get", "search50", "search1000", "list_namespaces")
SEMANTIC = ("query50", "query1000")
DIMS = 256


def embed(texts: Sequence[str]) -> list[list[float]]:
    """A deterministic embedding (each word adds 1 at the coordinate its digest picks)."""
    out = []
    for text in texts:
        vector = [0.0] * DIMS
        for word in text.lower().split():
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMS] += 1.0
        if not any(vector):
            vector[0] = 1.0
        out.append(vector)
    return out


INDEX: IndexConfig = {"dims": DIMS, "embed": embed, "fields": ["text"]}
ASYNC_MEASURES = ("loop_gap", "loop_gap_p50", "loop_gap_idle", "batch60k")
TICK_S = 0.005


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def postgres() -> Iterator[str | None]:
    """A throwaway PostgreSQL cluster's connection string (None: PostgreSQL missing)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        yield None
        return
    home = Path(tempfile.mkdtemp(prefix="lgbench-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        shutil.chown(home, "nobody")
        as_user = ["runuser", "-u", "nobody", "--"]
    data, port = home / "data", _free_port()
    try:
        subprocess.run([*as_user, initdb, "-D", str(data), "-A", "trust", "-U", "postgres"],
                       check=True, capture_output=True)
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-l", str(home / "log"), "-w", "-o",
                        f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=on",
                        "start"], check=True, capture_output=True)
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "fast", "stop"],
                           check=False, capture_output=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _timed(call: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - start) * 1000


def _value(i: int) -> dict[str, Any]:
    return {"text": f"memory number {i} about the project", "color": "red" if i % 3 else "blue",
            "n": i}


def measure(store: BaseStore, tenant: str, n: int) -> dict[str, list[float]]:
    """Each operation's timings (ms) on ``store``, in fresh namespaces of ``tenant``."""
    big, small = (tenant, "big"), (tenant, "small")
    out: dict[str, list[float]] = {op: [] for op in OPERATIONS}
    store.batch([PutOp(small, f"k{i}", _value(i)) for i in range(50)])
    for i in range(60):
        store.put((tenant, "ns", f"n{i}"), "k", {"i": i})
    out["put"] = [_timed(store.put, big, f"k{i}", _value(i)) for i in range(n)]
    out["get"] = [_timed(store.get, big, f"k{i}") for i in range(n)]
    for name, ns in (("search50", small), ("search1000", big)):
        out[name] = [_timed(store.search, ns, filter={"color": "red"}, limit=10)
                     for _ in range(200)]
    out["list_namespaces"] = [_timed(store.list_namespaces, prefix=(tenant,), limit=100)
                              for _ in range(200)]
    return out


def measure_semantic(store: BaseStore, tenant: str, n: int) -> dict[str, list[float]]:
    """``query50`` and ``query1000`` timings (ms) on an indexed ``store``."""
    out: dict[str, list[float]] = {}
    for name, size in (("query50", 50), ("query1000", n)):
        ns = (tenant, "semantic", name)
        for start in range(0, size, 100):
            store.batch([PutOp(ns, f"k{i}", _value(i))
                         for i in range(start, min(start + 100, size))])
        out[name] = [_timed(store.search, ns, query=f"memory number {i} about", limit=10)
                     for i in range(100)]
    return out


def _pgvector(pg_uri: str) -> bool:
    """Whether the PostgreSQL server has pgvector (``CREATE EXTENSION vector`` works)."""
    import psycopg

    try:
        with psycopg.connect(pg_uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error:
        return False
    return True


async def _largest_gap(work: Callable[[], Any]) -> float:
    """The largest gap (ms) between ticks of a ticker sleeping :data:`TICK_S` while
    ``work()`` (an awaitable factory) runs."""
    done = False
    gap = 0.0

    async def ticker() -> None:
        nonlocal gap
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gap = max(gap, (now - last) * 1000)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(TICK_S)  # the ticker runs before the work starts
    try:
        await work()
    finally:
        done = True
        await tick
    return gap


async def measure_async(store: BaseStore, tenant: str, timeout_s: float) -> dict[str, float]:
    """``loop_gap`` (ms) and ``batch60k`` (s; inf when given up) on ``store``, after
    :func:`measure` filled ``tenant``."""
    big = (tenant, "big")

    async def searches() -> None:
        found = await asyncio.gather(*(store.asearch(big, filter={"color": "red"}, limit=10,
                                                      offset=i) for i in range(20)))
        assert all(len(page) == 10 for page in found)

    await searches()  # warm: the first round also starts the worker and plans the query
    gaps: list[float] = []
    idle: list[float] = []
    for _ in range(10):
        start = time.perf_counter()
        gaps.append(await _largest_gap(searches))
        took = time.perf_counter() - start
        idle.append(await _largest_gap(functools.partial(asyncio.sleep, took)))
    coros: list[Any] = []
    for m in range(10):
        ns = (tenant, "foo", "bar", "baz", str(m % 2))
        for i in range(1000):
            coros += [store.aput(ns, f"key{i}", value={"foo": f"bar{i}"}),
                      store.aget(ns, f"key{i}"),
                      store.alist_namespaces(prefix=None, max_depth=m + 1),
                      store.asearch((tenant,)),
                      store.aput(ns, f"key{i}", value={"foo": f"bar{i}"}),
                      store.adelete(ns, f"key{i}")]
    start = time.perf_counter()
    try:
        results = await asyncio.wait_for(asyncio.gather(*coros), timeout_s)
        assert len(results) == 60_000
        batch = time.perf_counter() - start
    except TimeoutError:
        batch = float("inf")
    return {"loop_gap": max(gaps), "loop_gap_p50": statistics.median(gaps),
            "loop_gap_idle": max(idle), "batch60k": batch}


def _pctl(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every repetition's p50/p90 per store and operation, and the median ratios."""
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        settings = ConnectionSettings.from_env()  # NEO4J_URI: a server of the caller's
        if settings is None:
            settings = stack.enter_context(EphemeralServer(heap="1g")).settings
        memory = Memory.connect(settings, start_if_needed=False)
        stack.callback(memory.close)
        pg_uri = stack.enter_context(postgres())
        stores: dict[str, Callable[[str], BaseStore]] = {
            "InMemoryStore": lambda _t: InMemoryStore()}
        indexed: dict[str, Callable[[str], BaseStore]] = {
            "InMemoryStore": lambda _t: InMemoryStore(index=INDEX)}
        if pg_uri is not None:
            from langgraph.store.postgres import PostgresStore

            pg = stack.enter_context(PostgresStore.from_conn_string(pg_uri))
            pg.setup()
            stores["PostgresStore"] = lambda _t: pg
            if _pgvector(pg_uri):
                pgv = stack.enter_context(PostgresStore.from_conn_string(
                    pg_uri, index=cast(Any, INDEX)))
                pgv.setup()
                indexed["PostgresStore"] = lambda _t: pgv
        tenants = [f"{args.tenant_prefix}{r}" for r in range(args.reps)]
        principal = Principal(tenants=frozenset(tenants))
        stores["GraphmemStore"] = lambda t: GraphmemStore(memory, principal=principal,
                                                           tenant=t)
        indexed["GraphmemStore"] = lambda t: GraphmemStore(memory, principal=principal,
                                                           tenant=t, index=INDEX)
        for rep, tenant in enumerate(tenants):
            for name, make in stores.items():
                store = make(tenant)
                timings = measure(store, tenant, args.n)
                if name in indexed:
                    timings.update(measure_semantic(indexed[name](tenant), tenant, args.n))
                row = {"rep": rep, "store": name, **{
                    op: {"p50": statistics.median(v), "p90": _pctl(v, 0.9)}
                    for op, v in timings.items()}}
                if not args.no_async:
                    row.update(asyncio.run(_async_of(name, store, pg_uri, tenant, args)))
                rows.append(row)
    summary: dict[str, dict[str, float]] = {}
    for name in {row["store"] for row in rows}:
        own = [r for r in rows if r["store"] == name]
        summary[name] = {op: statistics.median(r[op]["p50"] for r in own)
                         for op in (*OPERATIONS, *SEMANTIC) if op in own[0]}
        for measure_ in ASYNC_MEASURES:  # the worst repetition
            values = [r[measure_] for r in own if measure_ in r]
            if values:
                summary[name][measure_] = max(values)
    ratios: dict[str, float] = {}
    if "PostgresStore" in summary:
        ratios = {op: summary["GraphmemStore"][op] / summary["PostgresStore"][op]
                  for op in summary["PostgresStore"]}
    return {"date": datetime.now(UTC).isoformat(timespec="seconds"), "n": args.n,
            "reps": args.reps, "rows": rows, "p50_ms": summary,
            "graphmem_over_postgres": ratios,
            "graphmem_over_inmemory": {op: summary["GraphmemStore"][op]
                                       / summary["InMemoryStore"][op] for op in SEMANTIC}}


async def _async_of(name: str, store: BaseStore, pg_uri: str | None, tenant: str,
                    args: argparse.Namespace) -> dict[str, float]:
    """:func:`measure_async` of the store ``name`` (PostgreSQL: its ``AsyncPostgresStore``
    over the same database)."""
    if name != "PostgresStore":
        return await measure_async(store, tenant, args.batch_timeout)
    from langgraph.store.postgres.aio import AsyncPostgresStore

    assert pg_uri is not None
    async with AsyncPostgresStore.from_conn_string(pg_uri) as apg:
        return await measure_async(apg, tenant, args.batch_timeout)


def table(result: dict[str, Any]) -> str:
    """The p50 table (ms; medians over the repetitions) with GraphmemStore/PostgresStore."""
    stores = [s for s in ("InMemoryStore", "PostgresStore", "GraphmemStore")
              if s in result["p50_ms"]]
    lines = [f"LangGraph stores, p50 ms (median of {result['reps']} repetitions, "
             f"{result['date']})", "",
             "| operation | " + " | ".join(stores) + " | graphmem/postgres | graphmem/inmemory |",
             "|---|" + "--:|" * (len(stores) + 2)]
    for op in (*OPERATIONS, *SEMANTIC):
        ratio = result["graphmem_over_postgres"].get(op)
        in_memory = result.get("graphmem_over_inmemory", {}).get(op)
        cells = [f"{result['p50_ms'][s][op]:.2f}" if op in result["p50_ms"][s] else "-"
                 for s in stores]
        lines.append(f"| {op} | " + " | ".join(cells) + " | "
                     + (f"{ratio:.1f}x" if ratio is not None else "-") + " | "
                     + (f"{in_memory:.1f}x" if in_memory is not None else "-") + " |")
    if all(m in result["p50_ms"][s] for s in stores for m in ASYNC_MEASURES):
        lines += ["", "Async (AsyncPostgresStore for PostgreSQL; worst repetition)", "",
                  "| measure | " + " | ".join(stores) + " |", "|---|" + "--:|" * len(stores)]
        labels = {"loop_gap": "largest event-loop gap, 20 concurrent asearch (ms)",
                  "loop_gap_p50": "the same, median of the rounds (ms)",
                  "loop_gap_idle": "largest gap of the ticker alone (ms)",
                  "batch60k": "60,000 concurrent async operations (s)"}
        for m in ASYNC_MEASURES:
            cells = [f"{result['p50_ms'][s][m]:.1f}" for s in stores]
            lines.append(f"| {labels[m]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--n", type=int, default=1000, help="puts and gets per repetition")
    parser.add_argument("--tenant-prefix", default="t", help="tenants written: PREFIX0, ...")
    parser.add_argument("--no-async", action="store_true", help="skip loop_gap and batch60k")
    parser.add_argument("--batch-timeout", type=float, default=600.0,
                        help="seconds before batch60k is given up (reported as inf)")
    parser.add_argument("--tag", default="", help="suffix of the result files' names")
    args = parser.parse_args(argv)
    result = run(args)
    tag = f"-{args.tag}" if args.tag else ""
    stem = RESULTS / f"langgraph-store-{datetime.now(UTC):%Y%m%d}{tag}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    text = table(result)
    stem.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
