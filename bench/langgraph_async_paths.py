"""Which async path keeps the event loop freer: ``GraphmemStore``'s (a round of concurrent
calls answered in one worker thread) or the same statements on neo4j's ``AsyncDriver``,
decoded on the loop.

A namespace of 1,000 items; 20 searches with a filter (``{"color": "red"}``, limit 10, each
its own offset), gathered: through ``GraphmemStore.asearch``, and as the very statements the
store sends (captured from its synchronous searches) run on one ``AsyncDriver``, their rows
made into ``SearchItem``s on the loop. For each, 10 rounds after one not counted: the largest
gap (ms) between ticks of a 5 ms ticker, and the round's wall time; the ticker alone as the
machine's own noise. Neo4j is the server of ``NEO4J_URI`` when set, else the launcher's.

Writes ``bench/results/langgraph-async-paths-<date>.json`` and ``.txt``::

    python -m bench.langgraph_async_paths
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import neo4j
from langgraph.store.base import PutOp, SearchItem

from bench.langgraph_store import RESULTS, _largest_gap, _value
from graphmem import Memory, Principal
from graphmem.client import store_of
from graphmem.db import catalogue
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.integrations.langgraph.items import to_item

ROUNDS = 10


def _captured_searches(store: GraphmemStore, memory: Memory, big: tuple[str, ...]
                       ) -> list[tuple[neo4j.Query, dict[str, Any]]]:
    """The statements (text, parameters) the store sends for the 20 searches."""
    base = store_of(memory)
    captured: list[tuple[neo4j.Query, dict[str, Any]]] = []
    original = base.read_once

    def capture(name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "langgraph/search":
            captured.append((catalogue.query(name), catalogue.arguments(name, params)))
        return original(name, **params)

    base.read_once = capture  # type: ignore[method-assign]
    try:
        for i in range(20):
            store.search(big, filter={"color": "red"}, limit=10, offset=i)
    finally:
        base.read_once = original  # type: ignore[method-assign]
    return captured


async def _measure(settings: ConnectionSettings, store: GraphmemStore, big: tuple[str, ...],
                   statements: list[tuple[neo4j.Query, dict[str, Any]]]) -> dict[str, Any]:
    driver = neo4j.AsyncGraphDatabase.driver(
        settings.uri, auth=(settings.user, settings.password),
        notifications_min_severity="OFF")

    async def one(query: neo4j.Query, args: dict[str, Any]) -> list[SearchItem]:
        async with driver.session(database=settings.database,
                                  default_access_mode=neo4j.READ_ACCESS) as session:
            result = await session.run(query, args)
            rows = [dict(zip(r.keys(), r.values(), strict=True)) async for r in result]
        return [to_item(row, SearchItem) for row in rows]

    async def on_driver() -> None:
        pages = await asyncio.gather(*(one(q, a) for q, a in statements))
        assert all(len(page) == 10 for page in pages)

    async def in_worker() -> None:
        pages = await asyncio.gather(*(store.asearch(big, filter={"color": "red"}, limit=10,
                                                     offset=i) for i in range(20)))
        assert all(len(page) == 10 for page in pages)

    paths: dict[str, Callable[[], Awaitable[None]]] = {
        "worker thread (GraphmemStore.asearch)": in_worker,
        "AsyncDriver, decoded on the loop": on_driver}
    out: dict[str, dict[str, list[float]]] = {name: {"gap": [], "wall": []}
                                              for name in [*paths, "ticker alone"]}
    try:
        for work in paths.values():
            await work()  # warm
        for _ in range(ROUNDS):
            walls = []
            for name, work in paths.items():
                start = time.perf_counter()
                out[name]["gap"].append(await _largest_gap(work))
                walls.append(time.perf_counter() - start)
                out[name]["wall"].append(walls[-1] * 1000)
            idle = functools.partial(asyncio.sleep, max(walls))
            out["ticker alone"]["gap"].append(await _largest_gap(idle))
            out["ticker alone"]["wall"].append(max(walls) * 1000)
    finally:
        await driver.close()
    return {name: {"gap_max": max(v["gap"]), "gap_p50": statistics.median(v["gap"]),
                   "wall_p50": statistics.median(v["wall"]), "gaps": v["gap"]}
            for name, v in out.items()}


def main() -> None:
    with contextlib.ExitStack() as stack:
        settings = ConnectionSettings.from_env()
        if settings is None:
            settings = stack.enter_context(EphemeralServer(heap="1g")).settings
        memory = Memory.connect(settings, start_if_needed=False)
        stack.callback(memory.close)
        tenant = f"paths{int(time.time())}"
        store = GraphmemStore(memory, principal=Principal(tenants=frozenset({tenant})))
        big = (tenant, "big")
        store.batch([PutOp(big, f"k{i}", _value(i)) for i in range(1000)])
        statements = _captured_searches(store, memory, big)
        paths = asyncio.run(_measure(settings, store, big, statements))
    result = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "rounds": ROUNDS,
              "paths": paths}
    lines = [f"Event-loop gap, 20 concurrent searches, {ROUNDS} rounds ({result['date']})", "",
             "| path | largest gap, worst (ms) | largest gap, median (ms) | wall p50 (ms) |",
             "|---|--:|--:|--:|"]
    lines += [f"| {name} | {v['gap_max']:.1f} | {v['gap_p50']:.1f} | {v['wall_p50']:.0f} |"
              for name, v in paths.items()]
    text = "\n".join(lines) + "\n"
    stem = RESULTS / f"langgraph-async-paths-{datetime.now(UTC):%Y%m%d}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    stem.with_suffix(".txt").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
