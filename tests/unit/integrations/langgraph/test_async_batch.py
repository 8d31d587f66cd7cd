"""Combining concurrent async calls (graphmem.integrations.langgraph.async_batch), with
LangGraph's ``InMemoryStore.batch`` standing for the store's batch: a round's reads are one
batch, identical reads are answered once, puts follow in issue order in batches of distinct
keys, and a refused call fails alone."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

import pytest
from langgraph.store.base import GetOp, Item, ListNamespacesOp, Op, PutOp, Result, SearchOp
from langgraph.store.memory import InMemoryStore

from graphmem.db import switching
from graphmem.errors import AuthorizationError, DatabaseUnavailableError, ValidationError
from graphmem.integrations.langgraph.async_batch import AsyncBatcher, plan, read_key, run

NS = ("t", "ns")


class Store:
    """``InMemoryStore.batch`` that refuses (nothing done) a batch putting a key that starts
    with "bad", or any batch once ``down``; records each batch it is given."""

    def __init__(self) -> None:
        self.memory = InMemoryStore()
        self.batches: list[list[Op]] = []
        self.down = False
        self.lock = threading.Lock()

    def batch(self, ops: list[Op]) -> list[Result]:
        with self.lock:
            self.batches.append(list(ops))
        if self.down:
            raise DatabaseUnavailableError("the server is gone")
        if any(isinstance(op, PutOp) and op.key.startswith("bad") for op in ops):
            raise AuthorizationError("a key is held above this store's clearance")
        return self.memory.batch(ops)

    def value(self, key: str) -> Any:
        item = self.memory.get(NS, key)
        return None if item is None else item.value


def put(key: str, value: Any = 1) -> PutOp:
    return PutOp(NS, key, None if value is None else {"v": value})


# -- plan ------------------------------------------------------------------------------

def test_identical_reads_are_planned_once() -> None:
    calls: list[list[Op]] = [
        [GetOp(NS, "a")], [SearchOp(NS, {"v": 1})], [GetOp(NS, "a"), put("x")],
        [SearchOp(NS, {"v": 1})], [SearchOp(NS, {"v": True})], [ListNamespacesOp()],
        [SearchOp(list(NS), None)],  # type: ignore[arg-type]  # a list namespace: unhashable
        [SearchOp(list(NS), None)]]  # type: ignore[arg-type]
    p = plan(calls)
    assert p.reads == [GetOp(NS, "a"), SearchOp(NS, {"v": 1}), SearchOp(NS, {"v": True}),
                       ListNamespacesOp(), SearchOp(list(NS), None)]  # type: ignore[arg-type]
    assert p.slots == [[0], [1], [0, None], [1], [2], [3], [4], [4]]
    assert p.writes == [[2]]
    assert read_key(SearchOp(NS, {"v": 1})) != read_key(SearchOp(NS, {"v": True}))
    assert read_key(GetOp(NS, "a", refresh_ttl=False)) != read_key(GetOp(NS, "a"))


def test_puts_are_cut_into_batches_of_distinct_keys_without_cutting_a_call() -> None:
    calls: list[list[Op]] = [[put("a")], [put("a"), put("b")], [put("c"), GetOp(NS, "a")],
                             [put("a")], [put("d"), put("e"), put("f")], [put("g")]]
    assert plan(calls, max_puts=3).writes == [[0, 1, 2, 3], [4], [5]]
    assert plan(calls, max_puts=2).writes == [[0, 1], [2, 3], [4], [5]]  # [4] alone: 3 > 2
    assert plan(calls, max_puts=100).writes == [[0, 1, 2, 3, 4, 5]]
    assert plan([[GetOp(NS, "a")]]).writes == []


# -- run -------------------------------------------------------------------------------

def test_a_round_reads_first_then_puts_in_issue_order() -> None:
    store = Store()
    store.batch([put("old", 0), put("gone", 0)])
    store.batches.clear()
    calls: list[list[Op]] = [
        [put("a", 1)], [GetOp(NS, "a"), GetOp(NS, "old")], [put("a", 2), put("old", None)],
        [SearchOp(NS)], [put("a", 3)], [SearchOp(NS)], [put("gone", None), put("gone", 5)]]
    outcomes = run(store.batch, calls)
    assert outcomes[0] == [None] and outcomes[2] == [None, None] and outcomes[4] == [None]
    got = outcomes[1]
    assert isinstance(got, list) and got[0] is None  # the round's reads come first
    assert isinstance(got[1], Item) and got[1].value == {"v": 0}
    searched, again = outcomes[3], outcomes[5]
    assert isinstance(searched, list) and isinstance(again, list)
    pages: list[Any] = [searched[0], again[0]]
    assert [[i.key for i in page] for page in pages] == [["old", "gone"]] * 2
    assert searched[0] is not again[0]  # one answer, each caller its own list
    assert store.batches[0] == [GetOp(NS, "a"), GetOp(NS, "old"), SearchOp(NS)]
    assert len(store.batches) == 2  # the reads, then every put in one batch
    assert (store.value("a"), store.value("old"), store.value("gone")) == ({"v": 3}, None,
                                                                            {"v": 5})


def test_a_refused_call_fails_alone() -> None:
    store = Store()
    calls: list[list[Op]] = [[put(f"k{i}", i)] for i in range(64)]
    calls[5] = [GetOp(NS, "k0"), put("bad1")]
    calls[41] = [put("bad2"), put("k41", 41)]
    outcomes = run(store.batch, calls)
    assert isinstance(outcomes[5], AuthorizationError)
    assert isinstance(outcomes[41], AuthorizationError)
    assert [o for i, o in enumerate(outcomes) if i not in (5, 41)] == [[None]] * 62
    assert [store.value(f"k{i}") for i in range(64)] == [
        None if i in (5, 41) else {"v": i} for i in range(64)]
    assert len(store.batches) < 32  # found by halving, not call by call


def test_an_unreachable_database_fails_every_call_untried() -> None:
    store = Store()
    store.down = True
    calls: list[list[Op]] = [[GetOp(NS, "a")], [put("a")], [put("b")]]
    outcomes = run(store.batch, calls, max_puts=1)
    assert all(isinstance(o, DatabaseUnavailableError) for o in outcomes)
    assert len(store.batches) == 1  # the reads met it; no put was tried


def test_an_invalid_read_fails_its_call_only() -> None:
    class Checked(Store):
        def batch(self, ops: list[Op]) -> list[Result]:
            if any(isinstance(op, SearchOp) and op.limit < 0 for op in ops):
                raise ValidationError("limit must not be negative")
            return super().batch(ops)

    store = Checked()
    outcomes = run(store.batch, [[GetOp(NS, "a")], [SearchOp(NS, limit=-1), put("x")],
                                 [put("y")]])
    assert outcomes[0] == [None] and outcomes[2] == [None]
    assert isinstance(outcomes[1], ValidationError)
    assert (store.value("x"), store.value("y")) == (None, {"v": 1})  # its put not written


# -- AsyncBatcher ------------------------------------------------------------------------

def test_calls_of_one_turn_are_one_round_and_later_calls_the_next() -> None:
    store = Store()
    batcher = AsyncBatcher(store.batch)

    async def main() -> list[Any]:
        first = asyncio.gather(*(batcher.submit([put(f"k{i}", i)]) for i in range(50)),
                               batcher.submit([GetOp(NS, "k1")]))
        await asyncio.sleep(0)  # the round starts; these wait for the next
        second = asyncio.gather(*(batcher.submit([GetOp(NS, f"k{i}")]) for i in range(50)))
        return [await first, await second]

    first, second = asyncio.run(main())
    assert first == [[None]] * 50 + [[None]]  # read before the round's puts
    assert [r[0].value for r in second] == [{"v": i} for i in range(50)]
    assert (batcher.rounds, batcher.calls) == (2, 101)
    assert len(store.batches) == 3  # reads, puts; reads


def test_each_caller_gets_its_own_error_and_a_cancelled_call_is_dropped() -> None:
    store = Store()
    batcher = AsyncBatcher(store.batch)

    async def main() -> list[Any]:
        dropped = asyncio.ensure_future(batcher.submit([put("dropped")]))
        calls = [batcher.submit([put("ok")]), batcher.submit([put("bad")])]
        tasks = [asyncio.ensure_future(c) for c in calls]
        await asyncio.sleep(0)  # every call is waiting
        dropped.cancel()
        return await asyncio.gather(*tasks, return_exceptions=True)

    ok, bad = asyncio.run(main())
    assert ok == [None] and isinstance(bad, AuthorizationError)
    assert (store.value("ok"), store.value("dropped")) == ({"v": 1}, None)


def test_each_event_loop_has_its_own_rounds() -> None:
    store = Store()
    batcher = AsyncBatcher(store.batch)
    seen = []
    for i in range(3):  # asyncio.run: a new event loop each time
        got = asyncio.run(batcher.submit([put("k", i), GetOp(NS, "k")]))[1]
        seen.append(None if got is None else got.value)  # type: ignore[union-attr]
    assert seen == [None, {"v": 0}, {"v": 1}]
    assert batcher.rounds == 3


def test_a_round_runs_with_the_switch_interval_lowered() -> None:
    """The worker thread answering a round runs with the lowered switch interval (so the
    loop's thread takes the interpreter lock back quickly); it is put back after."""
    seen: list[float] = []

    def batch(ops: list[Op]) -> list[Result]:
        seen.append(sys.getswitchinterval())
        return [None] * len(ops)

    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    try:
        asyncio.run(AsyncBatcher(batch).submit([GetOp(NS, "k")]))
        assert seen == [pytest.approx(switching.SWITCH_INTERVAL_S)]
        assert sys.getswitchinterval() == pytest.approx(0.005)
    finally:
        sys.setswitchinterval(before)
