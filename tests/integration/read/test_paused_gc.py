"""The read path pauses the cyclic collector (graphmem.db.codec.paused_gc): it must be running
again after every retrieve, whether it succeeded, was refused, failed on bad input or lost
its database halfway, and after retrieves in several threads at once."""

from __future__ import annotations

import gc
import threading
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import neo4j
import pytest
from neo4j.exceptions import ServiceUnavailable

from graphmem.client import Memory
from graphmem.errors import AuthorizationError, GraphmemError, ValidationError
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity
from tests.support.database import Neo4jUnderTest
from tests.support.record_sets import T0

AT = T0 + timedelta(days=1)
READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
STATE = {"memory_scope": {"tenant": "a"}, "goal": "refund policy", "needs_prior_context": True}


class _Outage:
    """A ranker during whose ranking the database goes away: every statement the driver
    runs from then on fails as with a lost server (``ServiceUnavailable``), so the log write
    fails. (Closing the driver under the log's open transaction, as this once did, is
    unspecified behaviour of the driver: "make sure you are not using the driver object or
    any resources spawned from it while calling [close]".)"""

    name = "outage"

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def down(*args: Any, **kwargs: Any) -> Any:
            raise ServiceUnavailable("the database went away (test)")

        self._down = down
        self._monkeypatch = monkeypatch

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        for cls, method in ((neo4j.Transaction, "run"), (neo4j.Transaction, "commit"),
                            (neo4j.Session, "run"), (neo4j.Session, "execute_write")):
            self._monkeypatch.setattr(cls, method, self._down)
        return [1.0] * len(records)


def test_the_collector_runs_again_after_every_kind_of_failed_retrieve(
        neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = Memory.connect(neo4j_db.settings, start_if_needed=False)
    try:
        memory.put(MemoryRecord(id="g1", kind=MemoryKind.SEMANTIC, content="refund policy",
                                created_at=T0, scope={"tenant": "a"}))
        assert gc.isenabled()
        with pytest.raises(AuthorizationError):
            memory.retrieve({**STATE, "memory_scope": {"tenant": "b"}}, principal=READER,
                            now=AT)
        assert gc.isenabled()
        with pytest.raises(ValidationError):
            memory.retrieve({"memory_scope": {"tenant": "a"}, "goal": 3}, principal=READER,
                            now=AT)
        assert gc.isenabled()
        with pytest.raises(ValidationError):
            memory.retrieve(STATE, principal=READER, now=AT, budget_chars=-1)
        assert gc.isenabled()
        with pytest.raises(GraphmemError):  # a driver error must not leave the client bare
            memory.retrieve(STATE, principal=READER, now=AT, ranker=_Outage(monkeypatch))
        assert gc.isenabled()
        monkeypatch.undo()
        assert memory.retrieve(STATE, principal=READER, now=AT).ids == ["g1"]  # back again
    finally:
        memory.close()


def test_the_collector_runs_again_after_retrieves_in_threads(memory: Memory) -> None:
    memory.put_many([MemoryRecord(id=f"g{i}", kind=MemoryKind.SEMANTIC,
                                  content=f"refund policy {i}", created_at=T0,
                                  scope={"tenant": "a"}) for i in range(50)])
    errors: list[BaseException] = []

    def loop(n: int) -> None:
        try:
            for _ in range(10):
                if n % 2:
                    memory.retrieve(STATE, principal=READER, now=AT)
                else:
                    with pytest.raises(AuthorizationError):
                        memory.retrieve({**STATE, "memory_scope": {"tenant": "b"}},
                                        principal=READER, now=AT)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert gc.isenabled()
