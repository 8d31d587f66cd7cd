"""paused_gc (graphmem.db.codec) is shared by the read path and deletion walks, which may run
in several threads of one process: the collector stays paused while any block is open and
is left as it was found."""

from __future__ import annotations

import gc
import threading

import pytest

from graphmem.db.codec import paused_gc


def test_collector_resumes_only_when_the_last_block_closes() -> None:
    assert gc.isenabled()
    first_open, second_open, first_done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with paused_gc():
            first_open.set()
            second_open.wait(5)
        first_done.set()

    def second() -> None:
        first_open.wait(5)
        with paused_gc():
            second_open.set()
            first_done.wait(5)
            seen["after first closed"] = gc.isenabled()
        seen["after both closed"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"after first closed": False, "after both closed": True}


def test_a_collector_disabled_by_the_application_stays_disabled() -> None:
    gc.disable()
    try:
        with paused_gc(), paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_inside_the_block_still_resumes_the_collector() -> None:
    try:
        with paused_gc():
            raise KeyError("x")
    except KeyError:
        pass
    assert gc.isenabled()


def test_overlapping_blocks_still_collect_young_cycles(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy server whose retrieves always overlap never closes the last block: cycles
    made meanwhile are still freed by the young collection a closing block runs."""
    import weakref

    from graphmem.db import codec

    class Node:
        def __init__(self) -> None:
            self.me = self

    holder_open, holder_done = threading.Event(), threading.Event()

    def holder() -> None:
        with paused_gc():
            holder_open.set()
            holder_done.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    holder_open.wait(5)
    try:
        monkeypatch.setattr(codec, "YOUNG_COLLECTION_EVERY_S", 0.0)
        with paused_gc():
            cycle = Node()
            ref = weakref.ref(cycle)
            del cycle
            assert ref() is not None  # paused: the cycle survives
        assert not gc.isenabled()  # the holder still pauses the collector
        assert ref() is None  # but the closing block collected the young cycle
    finally:
        holder_done.set()
        t.join(5)
    assert gc.isenabled()


def test_a_nested_block_does_not_collect(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block nested in an outer one of its own thread leaves the young generations to the
    outer block: what was made meanwhile is the outer block's work in progress."""
    import weakref

    from graphmem.db import codec

    class Node:
        def __init__(self) -> None:
            self.me = self

    monkeypatch.setattr(codec, "YOUNG_COLLECTION_EVERY_S", 0.0)
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: collected.append(generation))
    with paused_gc():
        cycle = Node()
        ref = weakref.ref(cycle)
        del cycle
        with paused_gc():
            pass
        assert ref() is not None and not collected
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_gc_restores_the_collector_state() -> None:
    import gc

    from graphmem.db.codec import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()
