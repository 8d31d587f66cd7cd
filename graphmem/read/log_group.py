"""Retrievals logged together: the attribution log's group commit (docs/spec/read-path.md#attribution).

A retrieval alone is logged in one transaction of three round trips (its Retrieval node and
candidate set, what it selected, the commit: :class:`graphmem.read.attribution.
PendingRetrievalLog`). :class:`graphmem.AsyncMemory` carries every round trip of its
concurrent calls on one event loop thread, which then spends more on those trips than the
calls spend ranking. So its log takes a retrieval's log once ranking has chosen, whole, and
logs the retrievals that wait beside it with it, in one statement and one transaction
(``retrieval/log_batch.cypher``, through :meth:`~graphmem.db.ops.attribution.AttributionOps.
log_retrievals`), by whichever of them came first: the classic group commit, as
:mod:`graphmem.db.group_commit` stores new records. A retrieval alone is never delayed: with
no batch in flight, its log goes at once.

Each retrieval is logged exactly as alone (the same part stores it; an entry sees what the
ones before it stored) and its call returns once its log is committed. If a batch fails as a
whole (the server refused it, the driver could not pack one entry), nothing of it was
logged, and each retrieval is logged again alone by its own thread, which then meets its own
error: the leader never raises what may be another retrieval's fault.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from graphmem.db.async_driver import released

__all__ = ["MAX_BATCH", "MAX_IN_FLIGHT", "LogGroup"]

MAX_BATCH = 64
"""The most retrievals logged in one batch."""
MAX_IN_FLIGHT = 1
"""Batches in flight at once through one log; the retrievals that finish ranking meanwhile
form the next batch."""

E = TypeVar("E")


@dataclass(eq=False)
class _Entry(Generic[E]):
    value: E
    #: set when the entry is done, or when its thread is handed a batch to send
    wake: threading.Event = field(default_factory=threading.Event)
    lead: list[_Entry[E]] | None = None
    done: bool = False
    #: its chain's depth once logged; None: not logged (log it alone)
    depth: int | None = None


class LogGroup(Generic[E]):
    """The retrievals of one log waiting to be logged, and the batches in flight.

    Args:
        send: logs a batch of entries in one transaction; their depths, in order. Whatever
            it raises makes each entry of the batch be logged alone by its own caller.
    """

    def __init__(self, send: Callable[[Sequence[E]], list[int]]) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._waiting: list[_Entry[E]] = []
        self._in_flight = 0
        #: batches of more than one retrieval logged so far, and the retrievals in them
        self.batches = 0
        self.batched = 0

    def submit(self, value: E) -> int | None:
        """Log ``value`` alone or with the entries that wait beside it; its depth, or None
        when it was in a batch that failed as a whole (nothing of it logged: log it alone).
        Never raises the batch's errors."""
        own: _Entry[E] = _Entry(value)
        try:
            with self._lock:
                if self._in_flight < MAX_IN_FLIGHT:
                    self._in_flight += 1
                    own.lead = [own, *self._take(MAX_BATCH - 1)]
                else:
                    self._waiting.append(own)
            if own.lead is None:
                with released():  # another thread logs it: let that thread run
                    own.wake.wait()
                if own.done:
                    return own.depth
            assert own.lead is not None
            self._run(own.lead)
        finally:
            self._settle(own)
        return own.depth

    def _take(self, n: int) -> list[_Entry[E]]:
        taken = self._waiting[:n]
        del self._waiting[:n]
        return taken

    def _run(self, batch: list[_Entry[E]]) -> None:
        try:
            depths = self._send([e.value for e in batch])
        except Exception:  # nothing of it was logged: each is logged alone by its caller
            return
        for entry, depth in zip(batch, depths, strict=True):
            entry.depth = depth

    def _settle(self, own: _Entry[E]) -> None:
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
