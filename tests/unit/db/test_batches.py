"""Calls of many threads sent together (graphmem.db.batches): a call alone goes at once, calls
that come while a batch is under way go together in the next one, each gets its own result,
a failed batch gives each call None (it is sent alone), and a waiting thread gives back its
admission slot."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        with group.lock:
            if len(group.waiting) == len(values):
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
        with group.lock:
            if group.waiting:
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


def test_a_call_alone_goes_through_alone_and_meets_its_own_error_once() -> None:
    """With ``alone``, a call that is its batch's only one is sent by it, and what it raises
    reaches that call's caller, sent once (a batch's failure instead sends each call again)."""
    sent: list[str] = []

    def alone(value: int) -> int:
        sent.append(f"alone {value}")
        if value < 0:
            raise KeyError(value)
        return value + 100

    def send(values: Sequence[int]) -> list[int]:
        sent.append(f"batch {list(values)}")
        return list(values)

    group: Batches[int, int] = Batches(send, alone=alone)
    assert group.submit(1) == 101
    with pytest.raises(KeyError):
        group.submit(-1)
    assert sent == ["alone 1", "alone -1"]
    with group.lock:
        assert group.in_flight == 0 and group.waiting == []


def test_a_waiter_handed_a_batch_of_only_itself_sends_it_alone() -> None:
    gate = Gate()
    sent_alone: list[int] = []

    def alone(value: int) -> int:
        sent_alone.append(value)
        return -value

    group: Batches[int, int] = Batches(gate, alone=alone)
    with group.lock:  # as if a batch were in flight: 7 waits, then is handed itself
        group.in_flight = 1
    results: list[int | None] = []
    waiter = threading.Thread(target=lambda: results.append(group.submit(7)))
    waiter.start()
    while True:
        with group.lock:
            if group.waiting:
                group._hand_off()
                break
    waiter.join(10)
    assert results == [-7] and sent_alone == [7] and gate.sent == []


def test_an_interrupted_waiter_is_withdrawn_unsent_and_the_rest_still_go() -> None:
    """A waiter whose thread leaves while it waits (an interrupt) must not stay waiting: handed
    the next batch, no thread would send it, and every call behind it would wait forever."""
    gate = Gate()
    group: Batches[int, int] = Batches(gate)
    gone = batches._Entry[int, int](99)
    with group.lock:
        group.in_flight = 1
        group.waiting.append(gone)
    group._settle(gone)  # its thread leaves before it is handed anything
    with group.lock:
        assert group.waiting == [] and group.in_flight == 1
        group._hand_off()
        assert group.in_flight == 0
    gate.release_first.set()
    assert group.submit(3) == 30 and gate.sent == [[3]]


@settings(max_examples=25, deadline=None)
@given(calls=st.lists(st.integers(-5, 50), min_size=1, max_size=24),
       in_flight=st.integers(1, 3), max_batch=st.integers(1, 6), alone=st.booleans())
def test_every_call_is_sent_once_and_gets_its_own_result(
        calls: list[int], in_flight: int, max_batch: int, alone: bool) -> None:
    """Many threads at once, any limits: each value is sent exactly once (in a batch or
    alone), batches respect the limits, each caller gets its own value's result (None only
    when its batch failed, here a batch holding a negative value) and nothing is left in
    flight or waiting."""
    sent: list[list[int]] = []
    sent_lock = threading.Lock()
    busy = 0
    most_busy = 0

    def send(values: Sequence[int]) -> list[int]:
        nonlocal busy, most_busy
        with sent_lock:
            sent.append(list(values))
            busy += 1
            most_busy = max(most_busy, busy)
        time.sleep(0.001)
        with sent_lock:
            busy -= 1
        if any(v < 0 for v in values):
            raise RuntimeError("the batch failed")
        return [v * 2 for v in values]

    def send_alone(value: int) -> int:
        return send([value])[0]

    original = batches.MAX_BATCH
    batches.MAX_BATCH = max_batch
    try:
        group: Batches[int, int] = Batches(send, alone=send_alone if alone else None,
                                           max_in_flight=in_flight)
        results: list[int | str | None] = [None] * len(calls)

        def call(i: int) -> None:
            try:
                results[i] = group.submit(calls[i])
            except RuntimeError:
                results[i] = "raised"

        threads = [threading.Thread(target=call, args=(i,)) for i in range(len(calls))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    finally:
        batches.MAX_BATCH = original
    assert sorted(v for b in sent for v in b) == sorted(calls)
    assert all(len(b) <= max_batch for b in sent) and most_busy <= in_flight
    for value, result in zip(calls, results, strict=True):
        if value >= 0:
            assert result in (value * 2, None)
            assert result is not None or any(value in b and len(b) > 1 for b in sent)
        elif alone:
            assert result in ("raised", None)
        else:
            assert result is None
    assert group.in_flight == 0 and group.waiting == []
    assert group.batched == sum(len(b) for b in sent if len(b) > 1)
