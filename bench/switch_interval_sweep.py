"""``AsyncMemory.retrieve`` under 20 concurrent callers at several lowered switch intervals
(:mod:`graphmem.db.switching`), beside ``Memory`` on 20 threads, in one process against one
Neo4j (``NEO4J_URI``'s; the store of :mod:`bench.async_client`). A one-table diagnosis::

    python -m bench.switch_interval_sweep 0.005,0.002,0.001,0.0005 2

prints one row per side and repetition (5 ms: not lowered, the interpreter's default), then
the rows as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.async_client import CALLER, Ticker, records, side, states
from graphmem import AsyncMemory, DecisionState, Memory
from graphmem.db import switching
from graphmem.db.settings import ConnectionSettings


async def sweep(intervals: list[float], reps: int) -> list[dict[str, Any]]:
    """The rows: per repetition, the threads side and one AsyncMemory side per interval."""
    settings = ConnectionSettings.from_env()
    if settings is None:
        raise SystemExit("set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD)")
    memory = Memory.connect(settings, start_if_needed=False)
    amemory = await AsyncMemory.connect(settings, start_if_needed=False)
    pool = ThreadPoolExecutor(20)
    loop = asyncio.get_running_loop()
    memory.put_many(records(2000, 2000, 7))

    async def on_threads(state: DecisionState) -> list[str]:
        return (await loop.run_in_executor(pool, lambda: memory.retrieve(
            state, principal=CALLER, budget_chars=4000))).ids

    async def on_async(state: DecisionState) -> list[str]:
        return (await amemory.retrieve(state, principal=CALLER, budget_chars=4000)).ids

    rows: list[dict[str, Any]] = []
    try:
        await side("warm", 20, [states(2, 8) for _ in range(20)], on_async)
        for rep in range(reps):
            work = [states(6, 100 * rep + i) for i in range(20)]
            order: list[tuple[str, float | None]] = [("threads", None)] + [
                (f"async si={si * 1000:g}ms", si) for si in intervals]
            if rep % 2:
                order.reverse()
            idle = Ticker()
            ticking = asyncio.create_task(idle.run())
            await asyncio.sleep(1.0)
            idle.stop = True
            await ticking
            for name, si in order:
                if si is not None:
                    switching.SWITCH_INTERVAL_S = si
                got = await side(name, 20, work, on_threads if si is None else on_async)
                rows.append({"rep": rep, "side": name, "per_s": got["throughput_per_s"],
                             "max_gap_ms": got["max_gap_ms"], "p99_gap_ms": got["p99_gap_ms"],
                             "idle_max_gap_ms": round(1000 * max(idle.gaps), 1),
                             "load": round(os.getloadavg()[0], 2)})
                print(rows[-1], flush=True)
    finally:
        await amemory.close()
        memory.close()
        pool.shutdown()
    return rows


def main() -> None:
    intervals = [float(x) for x in sys.argv[1].split(",")]
    print(json.dumps(asyncio.run(sweep(intervals, int(sys.argv[2])))))


if __name__ == "__main__":
    main()
