"""The blocking view of the async driver, without a database: coroutines run on the loop's
thread and are waited for from workers; admission bounds the workers that run at once and
never deadlocks; an explicit transaction begins with its first statement; a session's close
is not waited for."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, cast

import pytest
from neo4j import AsyncDriver

from graphmem.db import async_driver
from graphmem.db.async_driver import Admission, BlockingAsyncDriver, LoopCall
from graphmem.errors import ClientClosedError


@contextmanager
def running_loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


async def on_which_thread() -> int:
    await asyncio.sleep(0)
    return threading.get_ident()


def test_a_coroutine_runs_on_the_loops_thread_and_its_result_comes_back() -> None:
    with running_loop() as loop:
        call = LoopCall(loop)
        assert call(on_which_thread()) != threading.get_ident()


def test_the_coroutines_error_comes_back_as_it_was() -> None:
    async def fails() -> None:
        raise KeyError("x")

    with running_loop() as loop, pytest.raises(KeyError):
        LoopCall(loop)(fails())


def test_a_closed_loop_is_a_closed_client() -> None:
    with running_loop() as loop:
        call = LoopCall(loop)
    with pytest.raises(ClientClosedError):
        call(on_which_thread())


def test_a_stopped_loop_is_a_closed_client() -> None:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    call = LoopCall(loop)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    try:
        with pytest.raises(ClientClosedError):
            call(on_which_thread())
    finally:
        loop.close()


def test_a_call_on_the_loops_own_thread_is_refused() -> None:
    async def inside() -> None:
        LoopCall(asyncio.get_running_loop())(on_which_thread())

    with pytest.raises(RuntimeError, match="own event loop"):
        asyncio.run(inside())


def busy(admission: Admission, inside: list[int], most: list[int], lock: threading.Lock,
         call: LoopCall) -> None:
    def work() -> None:
        for _ in range(5):
            with lock:
                inside.append(1)
                most.append(len(inside))
            time.sleep(0.002)
            with lock:
                inside.pop()
            call(asyncio.sleep(0.001))  # the slot goes back while the loop works

    admission.run(work)


def test_admission_lets_one_worker_run_at_a_time_and_frees_it_while_it_waits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(async_driver, "ADMIT_WAIT_S", 30.0)  # no running without a slot
    admission = Admission(1)
    inside: list[int] = []
    most: list[int] = []
    lock = threading.Lock()
    with running_loop() as loop, ThreadPoolExecutor(8) as pool:
        call = LoopCall(loop, admission)
        for future in [pool.submit(busy, admission, inside, most, lock, call)
                       for _ in range(8)]:
            future.result(timeout=30)
    assert len(most) == 40
    assert max(most) == 1


def test_admission_is_waited_for_at_most_a_while() -> None:
    """A thread that keeps its slot while it waits for another thread (a group commit) does
    not stop that thread: it runs without a slot after ADMIT_WAIT_S."""
    admission = Admission(1)
    done = threading.Event()

    def holder() -> None:
        done.wait(10)  # keeps its slot while it waits for the other thread

    with ThreadPoolExecutor(2) as pool:
        held = pool.submit(admission.run, holder)
        time.sleep(0.05)
        began = time.monotonic()
        other = pool.submit(admission.run, done.set)
        other.result(timeout=5)
        held.result(timeout=5)
    assert time.monotonic() - began < 2


class FakeResult:
    async def to_eager_result(self) -> Any:
        return type("Eager", (), {"records": ["row"]})()


class FakeTransaction:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def run(self, query: str, parameters: dict[str, Any] | None = None) -> FakeResult:
        self.log.append(f"run {query} {parameters}")
        return FakeResult()

    async def commit(self) -> None:
        self.log.append("commit")

    async def close(self) -> None:
        self.log.append("close")


class FakeSession:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def begin_transaction(self, metadata: dict[str, Any] | None = None
                                ) -> FakeTransaction:
        self.log.append(f"begin {metadata}")
        return FakeTransaction(self.log)

    async def close(self) -> None:
        self.log.append("session closed")


class FakeDriver:
    def __init__(self) -> None:
        self.log: list[str] = []

    def session(self, **config: Any) -> FakeSession:
        self.log.append("session")
        return FakeSession(self.log)


def test_an_explicit_transaction_begins_with_its_first_statement_and_closes_once() -> None:
    fake = FakeDriver()
    with running_loop() as loop, ThreadPoolExecutor(1) as pool:
        driver = BlockingAsyncDriver(cast(AsyncDriver, fake), LoopCall(loop), pool)
        session = driver.session(database="neo4j")
        tx = session.begin_transaction(metadata={"graphmem_tx": "t"})
        assert fake.log == []  # nothing sent yet
        tx.commit()
        tx.close()  # committed: nothing to roll back
        session.close()
        deadline = time.monotonic() + 5
        while "session closed" not in fake.log and time.monotonic() < deadline:
            time.sleep(0.01)
    assert fake.log == ["session", "begin {'graphmem_tx': 't'}", "commit", "session closed"]


def test_an_uncommitted_transaction_is_rolled_back_and_one_never_begun_is_not() -> None:
    fake = FakeDriver()
    with running_loop() as loop, ThreadPoolExecutor(1) as pool:
        driver = BlockingAsyncDriver(cast(AsyncDriver, fake), LoopCall(loop), pool)
        driver.session().begin_transaction().close()
        assert fake.log == []  # never begun: nothing to send
        tx = driver.session().begin_transaction()
        assert list(tx.run("RETURN 1", {"x": 1})) == ["row"]
        tx.close()
    assert fake.log == ["session", "begin None", "run RETURN 1 {'x': 1}", "close"]
