"""Where a retrieval's time goes, ``AsyncMemory`` against ``Memory`` on 20 threads: the Python
CPU time of the process per retrieval, the event loop thread's share of it, and the trips to
the event loop per retrieval (each a statement, a commit or a transaction function carried by
the async driver), by kind. The store of :mod:`bench.async_client`; the two sides alternate
``--reps`` times, 20 callers x ``--calls`` retrievals each. CPU time is less sensitive to a
shared machine's load than throughput, so it tells what each side costs::

    python -m bench.async_round_trips --reps 4
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.async_client import CALLER, records, server_settings, states
from graphmem import AsyncMemory, DecisionState, GraphmemError, Memory
from graphmem.db import async_driver

trips: collections.Counter[str] = collections.Counter()


def _count_trips() -> None:
    original = async_driver.LoopCall.__call__

    def counted(self: async_driver.LoopCall, coro: Coroutine[Any, Any, Any]) -> Any:
        trips[getattr(coro, "__qualname__", "?").replace(".<locals>.go", "")] += 1
        return original(self, coro)

    async_driver.LoopCall.__call__ = counted  # type: ignore[method-assign]


async def measure(args: argparse.Namespace) -> None:
    """Print one line per side and repetition."""
    with server_settings("1g") as settings:
        memory = Memory.connect(settings, start_if_needed=False)
        amemory = await AsyncMemory.connect(settings, start_if_needed=False)
        pool = ThreadPoolExecutor(20)
        loop = asyncio.get_running_loop()
        try:
            # (stored already by an earlier run against the same server: kept)
            with contextlib.suppress(GraphmemError):
                memory.put_many(records(2000, 2000, 7))

            async def on_threads(state: DecisionState) -> None:
                await loop.run_in_executor(pool, lambda: memory.retrieve(state,
                                                                         principal=CALLER))

            async def on_async(state: DecisionState) -> None:
                await amemory.retrieve(state, principal=CALLER)

            sides: dict[str, Callable[[DecisionState], Awaitable[None]]] = {
                "Memory, 20 threads": on_threads, "AsyncMemory": on_async}
            for rep in range(args.reps):
                order = list(sides.items()) if rep % 2 == 0 else list(sides.items())[::-1]
                for name, call in order:
                    work = [states(args.calls, 1000 * rep + i) for i in range(20)]
                    trips.clear()
                    cpu, wall, on_loop = time.process_time(), time.perf_counter(), \
                        time.thread_time()

                    async def caller(todo: list[DecisionState],
                                     call: Callable[[DecisionState], Awaitable[None]] = call
                                     ) -> None:
                        for state in todo:
                            await call(state)

                    await asyncio.gather(*(caller(w) for w in work))
                    n = 20 * args.calls
                    print(f"rep {rep} {name:18s} {n / (time.perf_counter() - wall):6.1f}/s  "
                          f"CPU {1000 * (time.process_time() - cpu) / n:5.2f} ms/retrieval, "
                          f"loop thread {1000 * (time.thread_time() - on_loop) / n:5.2f} ms; "
                          f"loop trips {sum(trips.values()) / n:.2f}/retrieval "
                          f"{dict(trips)}", flush=True)
        finally:
            await amemory.close()
            memory.close()
            pool.shutdown()
    print(f"load average at the end: {os.getloadavg()}")


def main(argv: list[str] | None = None) -> None:
    """Run the measurement (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--calls", type=int, default=5, help="retrievals per caller")
    args = parser.parse_args(argv)
    _count_trips()
    asyncio.run(measure(args))


if __name__ == "__main__":
    main()
