"""Lifecycle calls repeated after they took effect (a retry after a timeout or a lost
acknowledgement, a second worker): ``supersede``, ``consolidate`` and ``promote_procedure``
report the outcome of the call already made, a DISCARD "identical record already stored",
and log no transition twice; one whose successor is stored but does not supersede (a
quarantined twin), or differs, still raises (docs/spec/write-path.md#repeats). A consolidation
and a promotion log their transitions in the transaction that stores the successor: a process
that dies after that transaction leaves them logged."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, cast

import pytest

from graphmem import AsyncMemory
from graphmem.client import Memory, store_of
from graphmem.db.ops.admission import Neo4jWrites, WriteOps
from graphmem.errors import PolicyError, RecordConflictError
from graphmem.models import Status
from graphmem.write import lifecycle
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest
from tests.support.lifecycle import T0, rec, status

REPEATED = "identical record already stored"


def logged(memory: Memory, rid: str, kind: str) -> list[tuple[str, str]]:
    return [(h["by"], h["reason"]) for h in memory.history(rid) if h["kind"] == kind]


def episodes(memory: Memory) -> list[str]:
    for i in range(3):
        memory.write(rec(f"ep{i}", kind="episodic", content=f"run {i}: make test passed"),
                     now=T0)
    return ["ep0", "ep1", "ep2"]


def test_a_repeated_supersede_reports_the_supersession_made(memory: Memory) -> None:
    memory.write(rec("old-1"), now=T0)
    memory.write(rec("old-2"), now=T0)
    succ = rec("succ", content="the newer fact")
    first = memory.supersede(["old-1", "old-2"], succ, by="alice", reason="update")
    assert first.disposition is WriteDisposition.PERSIST
    again = memory.supersede(["old-1", "old-2"], succ, by="alice", reason="update")
    assert (again.record_id, again.disposition, again.reason) == (
        "succ", WriteDisposition.DISCARD, REPEATED)
    for old in ("old-1", "old-2"):
        assert status(memory, old) is Status.SUPERSEDED
        assert logged(memory, old, "superseded") == [("alice", "update (successor succ)")]
    assert status(memory, "succ") is Status.ACTIVE


def test_a_repeated_consolidate_logs_its_transitions_once(memory: Memory) -> None:
    memory.write(rec("d1", content="Deploy window is Tuesday."), now=T0)
    memory.write(rec("d2", content="Deploys happen on Tuesdays."), now=T0)
    into = rec("d", content="Deploy window: Tuesday.")
    first = memory.consolidate(["d1", "d2"], into=into, by="curator", reason="duplicates")
    assert first.disposition is WriteDisposition.PERSIST
    expected = [("curator", "duplicates (into d)")]
    for old in ("d1", "d2"):
        assert logged(memory, old, "consolidated") == expected
    for _ in range(2):
        again = memory.consolidate(["d1", "d2"], into=into, by="curator", reason="duplicates")
        assert (again.disposition, again.reason) == (WriteDisposition.DISCARD, REPEATED)
    for old in ("d1", "d2"):
        assert status(memory, old) is Status.SUPERSEDED
        assert logged(memory, old, "consolidated") == expected
        assert len(logged(memory, old, "superseded")) == 1


def test_a_repeated_promote_procedure_logs_its_promotion_once(memory: Memory) -> None:
    eps = episodes(memory)
    procedure = rec("proc", kind="procedural", authority="model_inferred",
                    content="Run the tests with: make test")
    first = memory.promote_procedure(eps, procedure, by="agent", reason="three runs")
    assert first.disposition is WriteDisposition.PERSIST
    again = memory.promote_procedure(eps, procedure, by="agent", reason="three runs")
    assert (again.disposition, again.reason) == (WriteDisposition.DISCARD, REPEATED)
    assert logged(memory, "proc", "promoted_procedure") == [("agent", "three runs")]
    assert status(memory, "proc") is Status.ACTIVE


def test_an_async_repeat_is_the_same(memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    memory.write(rec("old"), now=T0)

    async def main() -> None:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            for disposition in (WriteDisposition.PERSIST, WriteDisposition.DISCARD):
                decision = await client.supersede(["old"], rec("new", content="newer"),
                                                  by="a", reason="update")
                assert decision.disposition is disposition

    asyncio.run(main())
    assert logged(memory, "old", "superseded") == [("a", "update (successor new)")]


#: a successor stored already, identical, that does not supersede: quarantined (untrusted)
QUARANTINED = {"authority": "untrusted", "provenance": {"source": "web"}}


@pytest.mark.parametrize("call", ["supersede", "consolidate"])
def test_a_stored_successor_that_does_not_supersede_still_raises(memory: Memory,
                                                                  call: str) -> None:
    memory.write(rec("o1"), now=T0)
    memory.write(rec("o2"), now=T0)
    twin = rec("s", content="a newer fact", supersedes=["o1", "o2"], **QUARANTINED)
    if call == "consolidate":
        twin["derived_from"] = ["o1", "o2"]
    assert memory.write(twin, now=T0).disposition is WriteDisposition.QUARANTINE
    with pytest.raises(PolicyError, match="not persisted: identical record already stored"):
        if call == "supersede":
            memory.supersede(["o1", "o2"], twin, by="alice", reason="update")
        else:
            memory.consolidate(["o1", "o2"], into=twin, by="alice", reason="update")
    for old in ("o1", "o2"):
        assert status(memory, old) is Status.ACTIVE
        assert logged(memory, old, "superseded") == logged(memory, old, "consolidated") == []


def test_a_stored_procedure_that_is_quarantined_still_raises(memory: Memory) -> None:
    eps = episodes(memory)
    twin = rec("proc", kind="procedural", content="Run make test", evidence_ids=eps,
               derived_from=eps, **QUARANTINED)
    assert memory.write(twin, now=T0).disposition is WriteDisposition.QUARANTINE
    with pytest.raises(PolicyError, match="not persisted: identical record already stored"):
        memory.promote_procedure(eps, twin, by="agent", reason="three runs")
    assert logged(memory, "proc", "promoted_procedure") == []


def test_a_repeat_with_another_successor_under_the_same_id_still_raises(memory: Memory
                                                                         ) -> None:
    memory.write(rec("old"), now=T0)
    memory.supersede(["old"], rec("new", content="newer"), by="a", reason="update")
    with pytest.raises(RecordConflictError):
        memory.supersede(["old"], rec("new", content="newer still"), by="a", reason="update")


class Crash(Exception):
    """The process died."""


class DiesAfterOneCommit:
    """The write operations of a process that dies once its first write transaction has
    committed: every write after it raises :class:`Crash`, as if never sent."""

    WRITES = frozenset({"admit", "set_quarantine", "put_stream"})

    def __init__(self, ops: Neo4jWrites) -> None:
        self._ops = ops
        self.committed = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._ops, name)
        if name not in self.WRITES:
            return attr

        def write(*args: Any, **kwargs: Any) -> Any:
            if self.committed:
                raise Crash(name)
            result = attr(*args, **kwargs)
            self.committed += 1
            return result

        return write


@pytest.mark.parametrize("call", ["consolidate", "promote_procedure"])
def test_a_crash_after_the_successor_commits_loses_no_transition(memory: Memory,
                                                                 call: str) -> None:
    """The successor, its supersessions and its transitions commit together: they were two
    transactions, and a process dying between them left the successor stored with no
    "consolidated" (or "promoted_procedure") transition, which its repeat never logged."""
    ops = DiesAfterOneCommit(Neo4jWrites(store_of(memory)))
    dying = cast(WriteOps, ops)
    run: Callable[[], object]
    if call == "consolidate":
        memory.write(rec("d1", content="Deploy window is Tuesday."), now=T0)
        memory.write(rec("d2", content="Deploys happen on Tuesdays."), now=T0)
        into = rec("d", content="Deploy window: Tuesday.")
        olds, kind, expected = ["d1", "d2"], "consolidated", ("curator", "dups (into d)")

        def run() -> object:
            return lifecycle.consolidate(dying, memory.policy, ["d1", "d2"], into=into,
                                         by="curator", reason="dups")
    else:
        eps = episodes(memory)
        procedure = rec("d", kind="procedural", authority="model_inferred",
                        content="Run the tests with: make test")
        olds, kind, expected = ["d"], "promoted_procedure", ("curator", "dups")

        def run() -> object:
            return lifecycle.promote_procedure(dying, memory.policy, eps, procedure,
                                               by="curator", reason="dups")

    with contextlib.suppress(Crash):
        run()
    assert ops.committed == 1 and status(memory, "d") is Status.ACTIVE
    for old in olds:
        assert logged(memory, old, kind) == [expected], "lost with the process"
    ops.committed = 0
    run()  # the repeat after the restart: nothing logged twice
    for old in olds:
        assert logged(memory, old, kind) == [expected]
