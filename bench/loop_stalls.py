"""What holds the event loop during 20 concurrent async calls: a diagnosis, not a benchmark.

Runs one of two workloads with a 5 ms ticker on the loop, and meanwhile

- asyncio's debug mode with ``slow_callback_duration`` (20 ms): every callback that ran
  longer is counted by what it was (the handle asyncio logs);
- a sampling thread that, whenever the ticker is more than ``--late`` ms late, records the
  event loop thread's Python stack: a stack ending in the selector means the loop was
  waiting for the interpreter lock (its poll had returned), any other stack is work the
  loop itself was doing.

Workloads: ``retrieve`` (``AsyncMemory.retrieve``, the store of :mod:`bench.async_client`)
and ``asearch`` (``GraphmemStore.asearch`` with a filter over 1,000 items, as
:mod:`bench.langgraph_async_paths`). Neo4j is ``NEO4J_URI``'s when set, else a throwaway
server. Prints the ticker's gaps, the slow callbacks and the most frequent sampled frames::

    python -m bench.loop_stalls retrieve --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from bench.async_client import CALLER, records, states
from graphmem import AsyncMemory, Memory, Principal
from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings

TICK_S = 0.005


class Sampler(threading.Thread):
    """Samples the loop thread's stack while the ticker is late."""

    def __init__(self, loop_thread: int, late_s: float) -> None:
        super().__init__(daemon=True)
        self.loop_thread = loop_thread
        self.late_s = late_s
        self.last_tick = time.perf_counter()
        self.stop = False
        self.samples: collections.Counter[str] = collections.Counter()
        self.leaf: collections.Counter[str] = collections.Counter()
        self.count = 0
        #: what the other threads were running meanwhile (their innermost frame of
        #: graphmem, neo4j or pydantic), threads waiting on a lock or a queue left out
        self.others: collections.Counter[str] = collections.Counter()

    def run(self) -> None:
        while not self.stop:
            time.sleep(0.002)
            if time.perf_counter() - self.last_tick < self.late_s:
                continue
            frames = sys._current_frames()
            frame = frames.get(self.loop_thread)
            if frame is None:
                continue
            for ident, other in frames.items():
                if ident in (self.loop_thread, threading.get_ident()):
                    continue
                where = traceback.extract_stack(other)
                if where[-1].name in WAITS:
                    continue
                mine = [f for f in where if any(k in f.filename for k in OWN)]
                if mine:
                    self.others[f"{_short(mine[-1].filename)}:{mine[-1].name}"] += 1
            stack = traceback.extract_stack(frame)
            self.count += 1
            top = stack[-1]
            self.leaf[f"{_short(top.filename)}:{top.lineno} {top.name}"] += 1
            ours = [f for f in stack if "graphmem" in f.filename or "neo4j" in f.filename
                    or "asyncio" in f.filename or "bench" in f.filename]
            self.samples[" < ".join(f"{_short(f.filename)}:{f.name}"
                                    for f in reversed(ours[-6:]))] += 1


WAITS = {"wait", "acquire", "_worker", "result", "get", "sleep", "join", "select",
         "_wait", "run", "enter", "_wait_for_tstate_lock"}
OWN = ("graphmem", "neo4j", "pydantic", "bm25s", "numpy")


def _short(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[-2:])


class SlowCallbacks(logging.Handler):
    """Counts asyncio's slow-callback warnings by their handle."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: collections.Counter[str] = collections.Counter()
        self.durations: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if " took " in msg:
            what, took = msg.rsplit(" took ", 1)
            self.durations.append(float(took.split()[0]))
            self.seen[what[:160]] += 1


async def _ticked(work: Callable[[], Awaitable[None]], sampler: Sampler) -> float:
    stop = False
    gaps: list[float] = []

    async def tick() -> None:
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(TICK_S)
            now = time.perf_counter()
            gaps.append(now - last)
            last = sampler.last_tick = now

    task = asyncio.create_task(tick())
    await asyncio.sleep(0.02)
    await work()
    stop = True
    await task
    return 1000 * max(gaps)


async def _retrieve_work(settings: ConnectionSettings, args: argparse.Namespace
                         ) -> tuple[Callable[[], Awaitable[None]], Callable[[], Awaitable[None]]]:
    memory = Memory.connect(settings, start_if_needed=False)
    memory.put_many(records(args.records, 2000, 7))
    memory.close()
    client = await AsyncMemory.connect(settings, start_if_needed=False)
    round_ = [0]

    async def work() -> None:
        round_[0] += 1
        work = [states(args.calls, 1000 * round_[0] + i) for i in range(20)]

        async def caller(todo: list[Any]) -> None:
            for state in todo:
                await client.retrieve(state, principal=CALLER, budget_chars=4000)

        await asyncio.gather(*(caller(w) for w in work))

    return work, client.close


async def _asearch_work(settings: ConnectionSettings, args: argparse.Namespace
                        ) -> tuple[Callable[[], Awaitable[None]], Callable[[], Awaitable[None]]]:
    from langgraph.store.base import PutOp

    from bench.langgraph_store import _value
    from graphmem.integrations.langgraph import GraphmemStore

    memory = Memory.connect(settings, start_if_needed=False)
    tenant = f"stall{int(time.time())}"
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({tenant})))
    big = (tenant, "big")
    await asyncio.to_thread(store.batch, [PutOp(big, f"k{i}", _value(i)) for i in range(1000)])

    async def work() -> None:
        for _ in range(args.calls):
            await asyncio.gather(*(store.asearch(big, filter={"color": "red"}, limit=10,
                                                 offset=i) for i in range(20)))

    async def close() -> None:
        memory.close()

    return work, close


async def diagnose(settings: ConnectionSettings, args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    make = _retrieve_work if args.workload == "retrieve" else _asearch_work
    work, close = await make(settings, args)
    sampler = Sampler(threading.get_ident(), args.late / 1000)
    slow = SlowCallbacks()
    try:
        await work()  # warm
        idle = await _ticked(lambda: asyncio.sleep(2.0), sampler)
        sampler.start()
        if args.debug:
            loop.set_debug(True)
            loop.slow_callback_duration = 0.02
            logging.getLogger("asyncio").addHandler(slow)
            logging.getLogger("asyncio").setLevel(logging.WARNING)
        gaps = []
        for _ in range(args.rounds):
            gaps.append(await _ticked(work, sampler))
        loop.set_debug(False)
        sampler.stop = True
    finally:
        await close()
    print(f"ticker alone: largest gap {idle:.1f} ms; rounds' largest gaps (ms): "
          f"{[round(g, 1) for g in gaps]}")
    if slow.durations:
        print(f"slow callbacks (> 20 ms): {len(slow.durations)}, longest "
              f"{1000 * max(slow.durations):.0f} ms")
        for what, n in slow.seen.most_common(12):
            print(f"  {n:4d}  {what}")
    print(f"samples while the ticker was over {args.late} ms late: {sampler.count}")
    print("innermost frames:")
    for what, n in sampler.leaf.most_common(15):
        print(f"  {n:4d}  {what}")
    print("other threads running meanwhile (innermost frame of graphmem, neo4j, ...):")
    for what, n in sampler.others.most_common(20):
        print(f"  {n:4d}  {what}")
    print("stacks (innermost first):")
    for what, n in sampler.samples.most_common(15):
        print(f"  {n:4d}  {what}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("workload", choices=["retrieve", "asearch"])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--late", type=float, default=20.0, help="ms")
    parser.add_argument("--debug", action="store_true", help="asyncio debug mode too")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        settings = ConnectionSettings.from_env()
        if settings is None:
            settings = stack.enter_context(EphemeralServer(heap="1g")).settings
        asyncio.run(diagnose(settings, args))


if __name__ == "__main__":
    main()
