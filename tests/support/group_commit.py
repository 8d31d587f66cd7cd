"""Threads for the group-commit tests: writers started at once, and a group held full until they
queue."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from graphmem.db.group_commit import (
    GroupCommit,
)


@contextmanager
def held(group: GroupCommit, waiting: int) -> Iterator[Callable[[], None]]:
    """Keep ``group`` full (as if its most batches were in flight) until ``waiting`` writes
    wait in it, then let them go: they are stored as one batch, sent by the thread of the
    first (the first pretended batch to end hands them on; the others then end with nothing
    waiting)."""
    with group.lock:
        assert group.in_flight == 0
        pretended = group.in_flight = group.max_in_flight
    released = False

    def end_pretended() -> None:
        nonlocal released
        released = True
        for _ in range(pretended):
            group._hand_off()

    def release() -> None:
        deadline = time.monotonic() + 30
        while True:
            with group.lock:
                if len(group.waiting) >= waiting:
                    end_pretended()
                    return
            assert time.monotonic() < deadline, "the writes never queued"
            time.sleep(0.01)

    try:
        yield release
    finally:
        if not released:
            with group.lock:
                end_pretended()


class Threads:
    """``work(i)`` for i in range(n), one thread each, started at once."""

    def __init__(self, work: Callable[[int], Any], n: int) -> None:
        self.results: list[Any] = [None] * n
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self._run, args=(work, i)) for i in range(n)]
        for t in self.threads:
            t.start()

    def _run(self, work: Callable[[int], Any], i: int) -> None:
        try:
            self.results[i] = work(i)
        except BaseException as exc:  # reported by join
            self.errors.append(exc)

    def join(self) -> list[Any]:
        for t in self.threads:
            t.join(60)
        assert not any(t.is_alive() for t in self.threads)
        assert not self.errors, self.errors
        return self.results
