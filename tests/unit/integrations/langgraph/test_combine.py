"""Group commit of a store's puts (graphmem.integrations.langgraph.combine), with a write
that stands for the statement: concurrent batches are written together, batches that put
the same key never are, and a failed combined write leaves each caller its own error."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest

from graphmem.errors import AuthorizationError
from graphmem.integrations.langgraph.combine import PutCombiner
from graphmem.integrations.langgraph.writes import PendingPut

NOW = datetime(2031, 1, 1, tzinfo=UTC)


def put(key: str, tenant: str = "t") -> PendingPut:
    return PendingPut(("ns",), key, {"k": key}, "{}", None, None, tenant)


class Recorder:
    """A write taking ``pause`` seconds, recording the keys of each call; a put whose key
    starts with "bad" makes the whole call fail, writing nothing."""

    def __init__(self, pause: float = 0.02) -> None:
        self.pause = pause
        self.calls: list[list[str]] = []
        self.written: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, puts: list[PendingPut], now: datetime) -> None:
        assert now.tzinfo is not None
        time.sleep(self.pause)
        keys = [p.key for p in puts]
        with self.lock:
            self.calls.append(keys)
            if any(k.startswith("bad") for k in keys):
                raise AuthorizationError("a key is held above this store's clearance")
            self.written += keys


def run_threads(combiner: PutCombiner, batches: list[list[PendingPut]]) -> dict[int, Exception]:
    errors: dict[int, Exception] = {}

    def work(i: int) -> None:
        try:
            combiner.submit(batches[i], NOW)
        except Exception as exc:
            errors[i] = exc

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_concurrent_batches_are_written_together() -> None:
    write = Recorder()
    combiner = PutCombiner(write)
    errors = run_threads(combiner, [[put(f"k{i}"), put(f"j{i}")] for i in range(24)])
    assert errors == {}
    assert sorted(write.written) == sorted([f"k{i}" for i in range(24)]
                                           + [f"j{i}" for i in range(24)])
    assert len(write.calls) < 24 and combiner.combined >= 1
    assert not combiner.busy and combiner.waiting == []


def test_a_key_is_never_in_one_write_twice_and_keeps_its_order() -> None:
    write = Recorder()
    combiner = PutCombiner(write)
    assert run_threads(combiner, [[put("same"), put(f"own{i}")] for i in range(12)]) == {}
    assert all(call.count("same") <= 1 for call in write.calls)
    assert write.written.count("same") == 12


def test_a_failed_combined_write_leaves_each_caller_its_own_error() -> None:
    write = Recorder()
    combiner = PutCombiner(write)
    batches = [[put(f"bad{i}" if i % 5 == 0 else f"ok{i}")] for i in range(15)]
    errors = run_threads(combiner, batches)
    assert set(errors) == {0, 5, 10}
    assert all(isinstance(e, AuthorizationError) for e in errors.values())
    assert sorted(write.written) == sorted(f"ok{i}" for i in range(15) if i % 5)


def test_a_caller_alone_writes_at_once() -> None:
    write = Recorder(pause=0)
    combiner = PutCombiner(write)
    combiner.submit([put("a")], NOW)
    with pytest.raises(AuthorizationError):
        combiner.submit([put("bad")], NOW)
    assert write.calls == [["a"], ["bad"]] and not combiner.busy
