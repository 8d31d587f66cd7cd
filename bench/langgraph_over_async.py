"""Would ``GraphmemStore``'s async path gain from running over ``AsyncMemory``? Side by side in
one process, one Neo4j: 20 concurrent ``asearch`` (a filter over 1,000 items, as
:mod:`bench.langgraph_async_paths`) through

- ``GraphmemStore`` over ``Memory`` (as shipped: a round of concurrent calls answered in one
  worker thread, the blocking driver's round trips made there, the loop free meanwhile);
- ``GraphmemStore`` over the ``Memory`` inside an ``AsyncMemory`` (the same rounds, each round
  trip a coroutine of the async driver carried by the event loop);

alternating, ``--rounds`` times, with a 5 ms ticker on the loop (its largest gap per round)
and the round's wall time, and the ticker alone in between. Prints a Markdown table and
writes ``bench/results/langgraph-over-async-<date>.json``::

    python -m bench.langgraph_over_async --rounds 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import PutOp

from bench.langgraph_store import RESULTS, _largest_gap, _value
from graphmem import AsyncMemory, Memory, Principal
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings
from graphmem.integrations.langgraph import GraphmemStore


async def measure(settings: ConnectionSettings, rounds: int) -> dict[str, dict[str, Any]]:
    """Each side's largest gaps and wall times (ms), per round."""
    memory = Memory.connect(settings, start_if_needed=False)
    amemory = await AsyncMemory.connect(settings, start_if_needed=False)
    tenant = f"over{int(time.time())}"
    principal = Principal(tenants=frozenset({tenant}))
    stores = {"over Memory (as shipped)": GraphmemStore(memory, principal=principal),
              "over AsyncMemory's": GraphmemStore(amemory._memory, principal=principal)}
    big = (tenant, "big")
    first = stores["over Memory (as shipped)"]
    await asyncio.to_thread(first.batch, [PutOp(big, f"k{i}", _value(i)) for i in range(1000)])

    def work(store: GraphmemStore) -> Callable[[], Awaitable[None]]:
        async def searches() -> None:
            pages = await asyncio.gather(*(store.asearch(big, filter={"color": "red"},
                                                         limit=10, offset=i)
                                           for i in range(20)))
            assert all(len(page) == 10 for page in pages)
        return searches

    out: dict[str, dict[str, Any]] = {n: {"gaps": [], "walls": []}
                                      for n in [*stores, "ticker alone"]}
    try:
        for store in stores.values():
            await work(store)()  # warm
        for r in range(rounds):
            order = list(stores.items()) if r % 2 == 0 else list(stores.items())[::-1]
            walls = []
            for name, store in order:
                began = time.perf_counter()
                out[name]["gaps"].append(await _largest_gap(work(store)))
                walls.append(1000 * (time.perf_counter() - began))
                out[name]["walls"].append(walls[-1])
            idle = functools.partial(asyncio.sleep, max(walls) / 1000)
            out["ticker alone"]["gaps"].append(await _largest_gap(idle))
            out["ticker alone"]["walls"].append(max(walls))
    finally:
        await amemory.close()
        memory.close()
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    at = datetime.now(UTC)
    with contextlib.ExitStack() as stack:
        settings = ConnectionSettings.from_env()
        if settings is None:
            settings = stack.enter_context(EphemeralServer(heap="1g")).settings
        out = asyncio.run(measure(settings, args.rounds))
    load = [round(x, 2) for x in os.getloadavg()]
    lines = [f"GraphmemStore: 20 concurrent asearch, {args.rounds} rounds, alternating "
             f"({at.isoformat(timespec='seconds')}; load after {load})", "",
             "| path | largest gap worst ms | median ms | wall p50 ms |", "|---|--:|--:|--:|"]
    lines += [f"| {name} | {max(v['gaps']):.1f} | {statistics.median(v['gaps']):.1f} | "
              f"{statistics.median(v['walls']):.0f} |" for name, v in out.items()]
    text = "\n".join(lines) + "\n"
    path = RESULTS / f"langgraph-over-async-{at:%Y%m%d}.json"
    path.write_text(json.dumps({"at": at.isoformat(timespec="seconds"), "load_after": load,
                                "rounds": args.rounds, "paths": out}, indent=2) + "\n")
    print(text)


if __name__ == "__main__":
    main()
