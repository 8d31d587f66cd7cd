"""Concurrent identical writes persist once, whatever each writer's clock says
(docs/spec/write-path.md; docs/write-path.md): the duplicate check finds a twin stamped up to the
policy's clock skew after the write's own time, so the writer that commits first wins and every
other is a DISCARD, whether its clock runs ahead of or behind the winner's.

Writers race through the client (threads, one clock each, through one driver: the group
commit), through processes (one clock offset each), through the group commit's batch
statement and through MCP ``remember``; each race is run in 10 rounds (20 under ``--heavy``),
and every round must persist exactly once.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from multiprocessing.synchronize import Barrier as ProcessBarrier
from typing import Any

import anyio
import pytest
from mcp import Client

from graphmem.aio import AsyncMemory
from graphmem.client import Memory, store_of
from graphmem.db.group_commit import group_for
from graphmem.db.settings import ConnectionSettings
from graphmem.fields import utc_now
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.server import build_server
from graphmem.models import MemoryRecord
from graphmem.write.policy import DEFAULT_CLOCK_SKEW, WriteDisposition, WritePolicy
from tests.support.database import Neo4jUnderTest, race
from tests.support.group_commit import Threads, held
from tests.support.sizes import size
from tests.support.writers import SCOPE, T0, rec

pytestmark = pytest.mark.neo4j

#: Rounds of each race (every round must persist exactly once); 20 under --heavy.
ROUNDS = size(10, 20)
MS = timedelta(milliseconds=1)
#: Each writer's clock offset from the true time, milliseconds: ahead and behind.
OFFSETS_MS = (-7, 5, -3, 2, 0, 6, -5, 3, -1, 4, -6, 1)


def skewed(offset_ms: float) -> Callable[[], datetime]:
    """A clock ``offset_ms`` milliseconds off the true UTC time."""
    offset = timedelta(milliseconds=offset_ms)
    return lambda: utc_now() + offset


def proposal(rid: str, content: str, created_at: datetime) -> dict[str, Any]:
    """A proposal the policy persists unless it duplicates a stored record."""
    return rec(rid, content=content, created_at=created_at.isoformat(),
               authority="human_instruction")


def exact_rounds(outcomes: list[list[str]]) -> int:
    """How many rounds persisted exactly once (every other write a DISCARD)."""
    return sum(sorted(o) == ["DISCARD"] * (len(o) - 1) + ["PERSIST"] for o in outcomes)


# ------------------------------------------------------------------ the rule, one write at a time


@pytest.mark.parametrize("later", ["stored first", "written first"])
def test_a_twin_stamped_within_the_skew_after_the_write_is_its_duplicate(
        memory: Memory, later: str) -> None:
    """The twin that commits first wins, its stamp ahead of or behind the other's: a twin
    stamped 5 ms after the write's time is a duplicate (it was not, read "as of" the write's
    own time), as is one stamped 5 ms before it."""
    early, late = T0, T0 + 5 * MS
    first, second = (late, early) if later == "stored first" else (early, late)
    one = memory.write(proposal("one", "the build cache lives on /mnt/cache", first), now=first)
    assert one.disposition is WriteDisposition.PERSIST
    two = memory.write(proposal("two", "The build cache lives on /mnt/cache.", second),
                       now=second)
    assert two.disposition is WriteDisposition.DISCARD and two.duplicate_of == "one"
    assert memory.history("two")[-1]["kind"] == "write:DISCARD"


def test_a_twin_stamped_beyond_the_skew_is_a_later_memory(memory: Memory) -> None:
    """A twin stamped more than the clock skew after the write's time did not exist yet then
    (docs/spec/status.md#not-yet-valid): the write persists, and so does one at the window's edge
    with a smaller window; a retracted, expired or quarantined twin in the window counts for
    nothing."""
    content = "deploys freeze on Fridays"
    memory.put(proposal("later", content, T0 + DEFAULT_CLOCK_SKEW + MS))
    assert memory.write(proposal("now", content, T0), now=T0
                        ).disposition is WriteDisposition.PERSIST
    narrow = Memory(store_of(memory), policy=WritePolicy(clock_skew=10 * MS))
    scope = {**SCOPE, "part": "narrow"}
    narrow.put({**proposal("edge", content, T0 + 10 * MS), "scope": scope})
    assert narrow.write({**proposal("in", content, T0), "scope": scope}, now=T0
                        ).disposition is WriteDisposition.DISCARD
    scope = {**SCOPE, "part": "beyond"}
    narrow.put({**proposal("edge2", content, T0 + 11 * MS), "scope": scope})
    assert narrow.write({**proposal("out", content, T0), "scope": scope}, now=T0
                        ).disposition is WriteDisposition.PERSIST
    twins: list[dict[str, Any]] = [{"retracted": True}, {"expires_at": (T0 - MS).isoformat()}]
    for i, twin in enumerate(twins):
        scope = {**SCOPE, "part": f"dead-{i}"}
        memory.put({**proposal(f"dead-{i}", content, T0 - 2 * MS), **twin, "scope": scope})
        assert memory.write({**proposal(f"alive-{i}", content, T0), "scope": scope}, now=T0
                            ).disposition is WriteDisposition.PERSIST
    scope = {**SCOPE, "part": "quarantined"}
    store_of(memory).put_many([{**proposal("q", content, T0 + MS), "scope": scope}],
                          quarantined=True)
    assert memory.write({**proposal("after-q", content, T0), "scope": scope}, now=T0
                        ).disposition is WriteDisposition.PERSIST


def test_twins_in_one_batch_persist_once(memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Twins with stamps a few ms apart, both ways, stored by one batch statement
    (write/new_batch): the first persists, the others find it there and are discarded."""
    group = group_for(store_of(memory))
    n = len(OFFSETS_MS)
    for round_ in range(3):
        clients = [Memory.connect(neo4j_db.settings, start_if_needed=False,
                                  ensure_schema=False) for _ in range(n)]
        try:
            before = group.batches
            stamps = [T0 + off * MS for off in OFFSETS_MS]

            def write(i: int, r: int = round_, clients: list[Memory] = clients,
                      stamps: list[datetime] = stamps) -> str:
                return clients[i].write(proposal(f"b{r}-{i}", f"batched twin {r}", stamps[i]),
                                        now=stamps[i]).disposition.value

            with held(group, n) as release:
                started = Threads(write, n)
                release()
                got = started.join()
            assert group.batches > before
            assert sorted(got) == ["DISCARD"] * (n - 1) + ["PERSIST"], got
        finally:
            for c in clients:
                c.close()


# ------------------------------------------------------------------ races, ROUNDS rounds each


def test_threads_with_skewed_clocks_persist_once(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """12 clients through one driver (the group commit batches them), each with its own
    clock, ahead and behind, propose the same memory at once, stamped by their clocks."""
    outcomes: list[list[str]] = []
    for round_ in range(ROUNDS):
        clients = [Memory.connect(neo4j_db.settings, start_if_needed=False,
                                  ensure_schema=False, clock=skewed(off))
                   for off in OFFSETS_MS]
        barrier = threading.Barrier(len(clients))
        out: list[str] = [""] * len(clients)

        def write(w: int, round_: int = round_, clients: list[Memory] = clients,
                  barrier: threading.Barrier = barrier, out: list[str] = out) -> None:
            barrier.wait()
            stamp = store_of(clients[w]).clock()
            out[w] = clients[w].write(proposal(f"t{round_}-{w}", f"same fact {round_}", stamp)
                                      ).disposition.value

        race(write, clients)
        outcomes.append(out)
    assert exact_rounds(outcomes) == ROUNDS, outcomes


def _process_writer(settings: ConnectionSettings, offset_ms: float, w: int,
                    barrier: ProcessBarrier, results: Any) -> None:
    """One process: its own clock, ``ROUNDS`` rounds, each after the barrier."""
    with Memory.connect(settings, start_if_needed=False, ensure_schema=False,
                        clock=skewed(offset_ms)) as client:
        for round_ in range(ROUNDS):
            barrier.wait()
            stamp = store_of(client).clock()
            decision = client.write(proposal(f"p{round_}-{w}", f"process fact {round_}",
                                             stamp))
            results.put((round_, decision.disposition.value))


def test_processes_with_skewed_clocks_persist_once(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Six processes, each stamping by its own clock (offsets a few ms apart, both ways),
    propose the same memory at once, ROUNDS rounds."""
    ctx = multiprocessing.get_context("spawn")
    offsets = OFFSETS_MS[:6]
    barrier = ctx.Barrier(len(offsets))
    results = ctx.Queue()
    procs = [ctx.Process(target=_process_writer,
                         args=(neo4j_db.settings, off, w, barrier, results))
             for w, off in enumerate(offsets)]
    for p in procs:
        p.start()
    try:
        got = [results.get(timeout=300) for _ in range(ROUNDS * len(offsets))]
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    assert all(p.exitcode == 0 for p in procs)
    outcomes: list[list[str]] = [[] for _ in range(ROUNDS)]
    for round_, disposition in got:
        outcomes[round_].append(disposition)
    assert exact_rounds(outcomes) == ROUNDS, outcomes


def test_mcp_remember_at_once_persists_once(memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """12 identical ``remember`` calls at once, each with a clock of its own (ahead or
    behind: the server reads its clock once a call), ROUNDS rounds: exactly one PERSIST a
    round."""
    calls = itertools.count()

    def clock() -> datetime:
        return utc_now() + OFFSETS_MS[next(calls) % len(OFFSETS_MS)] * MS

    config = ServerConfig.build(tenants=("acme",), scope={"project": "busy"},
                                agent="test-agent")
    server = build_server(config, connect=lambda: AsyncMemory.connect(
        neo4j_db.settings, start_if_needed=False, ensure_schema=False, clock=clock))
    outcomes: list[list[str]] = []

    async def main() -> None:
        with anyio.fail_after(600):
            async with Client(server) as client:
                for round_ in range(ROUNDS):
                    out: list[str] = []

                    async def call(round_: int = round_, out: list[str] = out) -> None:
                        result = await client.call_tool("remember", {
                            "content": f"the on-call rota changes on Mondays ({round_})",
                            "authority": "human_instruction"})
                        assert not result.is_error, result
                        assert result.structured_content is not None
                        out.append(result.structured_content["disposition"])

                    async with anyio.create_task_group() as tg:
                        for _ in range(12):
                            tg.start_soon(call)
                    outcomes.append(out)

    anyio.run(main)
    assert exact_rounds(outcomes) == ROUNDS, outcomes


def semantic(rid: str, **over: Any) -> MemoryRecord:
    base: dict[str, Any] = {"id": rid, "kind": "semantic", "content": f"content {rid}",
                            "created_at": T0, "scope": {"tenant": "t"},
                            "provenance": {"source": "agent"}, "authority": "verified_outcome"}
    base.update(over)
    return MemoryRecord.model_validate(base)


def test_concurrent_identical_writes_persist_once(memory: Memory) -> None:
    workers = 8
    barrier = threading.Barrier(workers)
    results: list[str] = []
    lock = threading.Lock()

    def write(i: int) -> None:
        record = semantic(f"dup-{i}", content="Deploys need two approvals.")
        barrier.wait()
        decision = memory.write(record, by=f"worker-{i}", now=T0)
        with lock:
            results.append(decision.disposition.value)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["DISCARD"] * (workers - 1) + ["PERSIST"]
    assert store_of(memory).counts()["Record"] == 1
