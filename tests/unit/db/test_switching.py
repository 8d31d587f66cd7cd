"""The switch interval is lowered while graphmem's worker threads run beside a loop, and put
back by the last of them, unless something else changed it meanwhile."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator

import pytest

from graphmem.aio.calls import Threads, off_loop
from graphmem.db import switching


@pytest.fixture(autouse=True)
def default_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(before)


def test_lowered_inside_and_restored_by_the_last_to_leave() -> None:
    with switching.lowered():
        assert sys.getswitchinterval() == pytest.approx(switching.SWITCH_INTERVAL_S)
        with switching.lowered():
            assert sys.getswitchinterval() == pytest.approx(switching.SWITCH_INTERVAL_S)
        assert sys.getswitchinterval() == pytest.approx(switching.SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_restored_after_an_error() -> None:
    with pytest.raises(KeyError), switching.lowered():
        raise KeyError("x")
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_a_lower_interval_set_by_the_program_is_kept() -> None:
    sys.setswitchinterval(0.0001)
    with switching.lowered():
        assert sys.getswitchinterval() == pytest.approx(0.0001)
    assert sys.getswitchinterval() == pytest.approx(0.0001)


def test_a_change_made_meanwhile_is_not_undone() -> None:
    with switching.lowered():
        sys.setswitchinterval(0.002)
    assert sys.getswitchinterval() == pytest.approx(0.002)


def test_concurrent_holders_share_one_lowering() -> None:
    inside = threading.Barrier(8)
    leave = threading.Event()
    seen: list[float] = []

    def hold() -> None:
        with switching.lowered():
            inside.wait(5)
            leave.wait(5)
            seen.append(sys.getswitchinterval())

    threads = [threading.Thread(target=hold) for _ in range(8)]
    for t in threads:
        t.start()
    leave.set()
    for t in threads:
        t.join(5)
    assert seen == [pytest.approx(switching.SWITCH_INTERVAL_S)] * 8
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_an_async_client_call_runs_with_the_lowered_interval() -> None:
    """What AsyncMemory's calls run through lowers the interval while the call runs on its
    worker thread, and puts it back after."""
    threads = Threads()

    async def main() -> float:
        return await off_loop(threads, sys.getswitchinterval)

    try:
        assert asyncio.run(main()) == pytest.approx(switching.SWITCH_INTERVAL_S)
    finally:
        threads.shutdown()
    assert sys.getswitchinterval() == pytest.approx(0.005)
