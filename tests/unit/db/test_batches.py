"""Calls of many threads sent together (graphmem.db.batches): a call alone goes at once, calls
that come while a batch is under way go together in the next one, each gets its own result,
a failed batch gives each call None (it is sent alone), and a waiting thread gives back its
admission slot."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from graphmem.db import batches
from graphmem.db.async_driver import Admission
from graphmem.db.batches import Batches


class Gate:
    """A send that records its batches and, for the first, waits until released."""

    def __init__(self, fail: bool = False, error: type[Exception] = RuntimeError) -> None:
        self.sent: list[list[int]] = []
        self.first_started = threading.Event()
        self.release_first = threading.Event()
        self.fail = fail
        self.error = error

    def __call__(self, values: Sequence[int]) -> list[int]:
        self.sent.append(list(values))
        if len(self.sent) == 1:
            self.first_started.set()
            assert self.release_first.wait(10)
        if self.fail and len(values) > 1:
            raise self.error("the batch failed")
        return [v * 10 for v in values]


def test_a_call_alone_is_sent_at_once_with_nothing_waiting() -> None:
    sent: list[list[int]] = []

    def send(values: Sequence[int]) -> list[int]:
        sent.append(list(values))
        return [v + 1 for v in values]

    group: Batches[int, int] = Batches(send)
    assert group.submit(1) == 2
    assert group.submit(5) == 6
    assert sent == [[1], [5]]
    assert group.batches == 0


def _while_first_is_sent(gate: Gate, group: Batches[int, int], values: list[int]
                         ) -> dict[int, int | None]:
    """Submit 0 (sent alone, held by ``gate``), then ``values`` from other threads while it
    is under way; each value's result."""
    results: dict[int, int | None] = {}

    def call(v: int) -> None:
        try:
            results[v] = group.submit(v)
        except LookupError:  # a final kind of error (see the test of final errors)
            results[v] = -1

    first = threading.Thread(target=call, args=(0,))
    first.start()
    assert gate.first_started.wait(10)
    others = [threading.Thread(target=call, args=(v,)) for v in values]
    for t in others:
        t.start()
    while True:  # every other call waits for the batch in flight
        with group._lock:
            if len(group._waiting) == len(values):
                break
    gate.release_first.set()
    for t in [first, *others]:
        t.join(10)
    return results


def test_calls_that_come_while_one_is_sent_go_together_each_with_its_own_result() -> None:
    gate = Gate()
    group: Batches[int, int] = Batches(gate)
    results = _while_first_is_sent(gate, group, [1, 2, 3])
    assert results == {0: 0, 1: 10, 2: 20, 3: 30}
    assert gate.sent[0] == [0]
    assert sorted(gate.sent[1]) == [1, 2, 3] and len(gate.sent) == 2
    assert (group.batches, group.batched) == (1, 3)


def test_a_failed_batch_gives_each_of_its_calls_none_and_raises_nothing() -> None:
    gate = Gate(fail=True)
    group: Batches[int, int] = Batches(gate)
    results = _while_first_is_sent(gate, group, [1, 2])
    assert results == {0: 0, 1: None, 2: None}


def test_a_final_error_is_raised_in_every_caller_of_its_batch_none_sent_again() -> None:
    """A batch whose commit outcome is unknown may have been written: its callers must not
    send it again alone (a unique id would then fail, or a row be written twice)."""
    gate = Gate(fail=True, error=KeyError)
    group: Batches[int, int] = Batches(gate, final=(LookupError,))
    results = _while_first_is_sent(gate, group, [1, 2])
    assert results == {0: 0, 1: -1, 2: -1}
    assert len(gate.sent) == 2  # the first alone, then the failed batch: nothing sent again


def test_batches_are_at_most_max_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batches, "MAX_BATCH", 2)
    gate = Gate()
    group: Batches[int, int] = Batches(gate)
    results = _while_first_is_sent(gate, group, [1, 2, 3, 4, 5])
    assert results == {v: 10 * v for v in range(6)}
    assert all(len(b) <= 2 for b in gate.sent)
    assert sorted(v for b in gate.sent for v in b) == list(range(6))


def test_a_waiting_thread_gives_back_its_admission_slot() -> None:
    """With one slot, the thread that sends the batch must be able to run while another
    admitted thread waits for it: the waiter gives its slot back (else the sender waits out
    the admission timeout)."""
    admission = Admission(1)
    gate = Gate()
    group: Batches[int, int] = Batches(gate)
    held_while_waiting: list[bool] = []

    def first() -> None:
        group.submit(0)

    def admitted_waiter() -> None:
        admission.run(group.submit, 1)

    sender = threading.Thread(target=first)
    sender.start()
    assert gate.first_started.wait(10)
    waiter = threading.Thread(target=admitted_waiter)
    waiter.start()
    while True:
        with group._lock:
            if group._waiting:
                break
    # the waiter is admitted yet waiting: its slot is free for others
    got = admission._slots.acquire(timeout=1)
    held_while_waiting.append(not got)
    if got:
        admission._slots.release()
    gate.release_first.set()
    sender.join(10)
    waiter.join(10)
    assert held_while_waiting == [False]
