"""Calls of many threads sent together: the classic group commit, for :class:`graphmem.AsyncMemory`.

:class:`graphmem.AsyncMemory` carries every round trip of its concurrent calls on one event
loop thread, which then spends more on those trips than the calls spend ranking. So two of
a retrieval's round trips are shared with the retrievals that make the same one at the same
time, through a :class:`Batches`: the one that comes first sends its own at once; those that
come while it is under way wait, and the first of them sends theirs together when it is done.
A call alone is never delayed, and what a call waits for was sent after it arrived (so it sees
every write committed before the call began).

- Attribution (:mod:`graphmem.read.attribution`, ``grouped``): each retrieval's log, whole
  once ranked, with those of the retrievals that wait beside it, in one statement and one
  transaction (``retrieval/log_batch.cypher``) instead of three round trips each. Each is
  logged exactly as alone (the same part stores it; an entry sees what the ones before it
  stored); if a batch fails as a whole, nothing of it was logged and each is logged alone by
  its own thread, which then meets its own error.
- The version check of a reused candidates answer (:class:`graphmem.db.eligibility.
  Eligibility`, ``share_checks``): reads of one tenant, scope and clearance waiting together
  share one ``candidates_delta`` read; a caller whose answer's versions it shows unchanged
  reuses its answer, any other reads again on its own.

A thread that waits for another's batch gives back its admission slot meanwhile
(:func:`graphmem.db.async_driver.released`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from graphmem.db.async_driver import released

__all__ = ["MAX_BATCH", "MAX_IN_FLIGHT", "Batches"]

MAX_BATCH = 64
"""The most calls sent in one batch."""
MAX_IN_FLIGHT = 1
"""Batches of one :class:`Batches` in flight at once; the calls that come meanwhile form the
next batch."""

E = TypeVar("E")
R = TypeVar("R")


@dataclass(eq=False)
class _Entry(Generic[E, R]):
    value: E
    #: set when the entry is done, or when its thread is handed a batch to send
    wake: threading.Event = field(default_factory=threading.Event)
    lead: list[_Entry[E, R]] | None = None
    done: bool = False
    #: its result once sent; None: its batch failed (the caller sends it alone)
    result: R | None = None
    #: the batch's error when it is one of the ``final`` kinds (raised in every caller)
    error: BaseException | None = None


class Batches(Generic[E, R]):
    """The calls waiting to be sent together, and the batches in flight.

    Args:
        send: sends a batch of calls' values; their results, in order. Whatever it raises
            makes each call of the batch get None (its caller then sends it alone), except
            an error of a ``final`` kind.
        final: errors after which sending again alone would be wrong (a commit whose
            outcome is unknown may have written the batch): :meth:`submit` raises them in
            every caller of the batch.
    """

    def __init__(self, send: Callable[[Sequence[E]], Sequence[R]],
                 final: tuple[type[BaseException], ...] = ()) -> None:
        self._send = send
        self._final = final
        self._lock = threading.Lock()
        self._waiting: list[_Entry[E, R]] = []
        self._in_flight = 0
        #: batches of more than one call sent so far, and the calls in them (tests, benchmarks)
        self.batches = 0
        self.batched = 0

    def submit(self, value: E) -> R | None:
        """Send ``value`` alone or with the calls that wait beside it; its result, or None
        when its batch failed as a whole (then send it alone).

        Raises:
            the batch's error, only when it is of a ``final`` kind.
        """
        own: _Entry[E, R] = _Entry(value)
        try:
            with self._lock:
                if self._in_flight < MAX_IN_FLIGHT:
                    self._in_flight += 1
                    own.lead = [own, *self._take(MAX_BATCH - 1)]
                else:
                    self._waiting.append(own)
            if own.lead is None:
                with released():  # another thread sends it: let that thread run
                    own.wake.wait()
            if not own.done:  # handed a batch to send
                assert own.lead is not None
                self._run(own.lead)
        finally:
            self._settle(own)
        if own.error is not None:
            raise own.error
        return own.result

    def _take(self, n: int) -> list[_Entry[E, R]]:
        taken = self._waiting[:n]
        del self._waiting[:n]
        return taken

    def _run(self, batch: list[_Entry[E, R]]) -> None:
        try:
            results = self._send([e.value for e in batch])
        except self._final as exc:  # sending again could write twice: each caller raises it
            for entry in batch:
                entry.error = exc
            return
        except Exception:  # each is sent alone by its own caller, and meets its own error
            return
        for entry, result in zip(batch, results, strict=True):
            entry.result = result

    def _settle(self, own: _Entry[E, R]) -> None:
        """``own``'s thread leaves :meth:`submit`: if it leads a batch, the batch is done
        (its entries' threads wake) and the next batch of waiting entries, if any, goes to
        its first entry's thread. An entry still waiting (its thread interrupted) is
        withdrawn unsent: left waiting, it could be handed a batch no thread would send."""
        with self._lock:
            if own in self._waiting:
                self._waiting.remove(own)
                return
            batch = own.lead
            if batch is None or own.done:
                return
            if len(batch) > 1:
                self.batches += 1
                self.batched += len(batch)
            for entry in batch:
                entry.done = True
                entry.wake.set()
            if not self._waiting:
                self._in_flight -= 1
                return
            nxt = self._take(MAX_BATCH)
            nxt[0].lead = nxt
            nxt[0].wake.set()
