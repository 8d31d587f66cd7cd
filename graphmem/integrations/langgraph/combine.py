"""Group commit of a store's puts: batches of puts that callers hand to one
:class:`~.store.GraphmemStore` at the same time are written together, in one
``langgraph/put`` statement and one commit, as graphmem's own writes are
(:mod:`graphmem.db.group_commit`).

A caller alone writes at once. While a write is in flight, the batches that arrive wait;
when it ends, its thread hands the waiting ones to the first of them, which writes them as
one (its thread then hands on in turn). Batches that put the same key are never combined:
each put of a key must find the version the one before it wrote (a waiting batch that
shares a key with one already taken waits for the next round). If a combined write fails
(a key held above the clearance, a lost server), nothing of it was written, and each batch
is written again alone, so each caller sees its own error and never another's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .writes import PendingPut

__all__ = ["MAX_COMBINED", "PutCombiner"]

#: The most puts written in one combined statement.
MAX_COMBINED = 256

Write = Callable[[list[PendingPut], datetime], None]


@dataclass(eq=False)
class _Batch:
    puts: list[PendingPut]
    now: datetime
    wake: threading.Event = field(default_factory=threading.Event)
    #: the batches this batch's thread is to write (it leads them)
    lead: list[_Batch] | None = None
    done: bool = False
    error: BaseException | None = None

    def keys(self) -> set[tuple[str, tuple[str, ...], str]]:
        return {(p.tenant, p.namespace, p.key) for p in self.puts}


@dataclass(eq=False)
class PutCombiner:
    """The batches of puts waiting for one store, and whether a write is in flight.

    Args:
        write: writes one list of puts (one per key) at a time (aware UTC ``now``), raising
            a GraphmemError when nothing was written.
    """

    write: Write
    lock: threading.Lock = field(default_factory=threading.Lock)
    waiting: list[_Batch] = field(default_factory=list)
    busy: bool = False
    #: combined writes of more than one batch so far, and the batches in them (for tests
    #: and benchmarks)
    combined: int = 0
    combined_batches: int = 0

    def submit(self, puts: Sequence[PendingPut], now: datetime) -> None:
        """Write ``puts`` (one per key), alone or with the batches that wait beside it.

        Raises:
            whatever writing this batch alone raises (GraphmemError subclasses).
        """
        own = _Batch(list(puts), now)
        with self.lock:
            if self.busy:
                self.waiting.append(own)
            else:
                self.busy = True
                own.lead = [own]
        if own.lead is None:
            own.wake.wait()
        try:
            if not own.done:
                assert own.lead is not None
                self._run(own.lead)
        finally:
            if own.lead is not None:
                self._hand_on()
        if own.error is not None:
            raise own.error

    def _run(self, group: list[_Batch]) -> None:
        try:
            if len(group) == 1:
                self.write(group[0].puts, group[0].now)
            else:
                self.write([p for batch in group for p in batch.puts],
                           max(batch.now for batch in group))
                self.combined += 1
                self.combined_batches += len(group)
        except Exception as exc:
            if len(group) == 1:
                group[0].error = exc
            else:  # nothing was written: each batch alone, each with its own error
                for batch in group:
                    try:
                        self.write(batch.puts, batch.now)
                    except Exception as own_error:
                        batch.error = own_error
        except BaseException as exc:  # an interrupt: no batch of the group is known written
            for batch in group:
                batch.error = batch.error or exc
            raise
        finally:
            for batch in group[1:]:
                batch.done = True
                batch.wake.set()

    def _hand_on(self) -> None:
        """Give the waiting batches (whose keys do not meet) to the first of them."""
        with self.lock:
            if not self.waiting:
                self.busy = False
                return
            taken: list[_Batch] = []
            keys: set[tuple[str, tuple[str, ...], str]] = set()
            size = 0
            for batch in list(self.waiting):
                own = batch.keys()
                if taken and (own & keys or size + len(batch.puts) > MAX_COMBINED):
                    continue
                taken.append(batch)
                keys |= own
                size += len(batch.puts)
                self.waiting.remove(batch)
            taken[0].lead = taken
            taken[0].wake.set()
