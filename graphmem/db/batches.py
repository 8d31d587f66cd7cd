"""Calls of many threads sent together: the classic group commit, one mechanism for every use.

A call that comes while :attr:`Batches.max_in_flight` batches of its kind are under way waits;
when one of them ends, the calls that waited meanwhile are sent together, in one round trip,
by the thread of the first of them (it is handed the batch; the others sleep on an event of
their own, woken once). A call alone is never delayed, and what a call waits for was sent
after it arrived (so it sees every write committed before the call began). If a batch fails
as a whole, each of its calls gets None and is sent alone by its own thread, which then meets
its own error: the thread that sent the batch never raises what may be another call's fault;
only an error of a ``final`` kind (a commit whose outcome is unknown) is raised in every caller
of the batch, since sending again alone could write twice.

Its uses:

- Group commit of new records (:mod:`graphmem.db.group_commit`): writes of many threads
  through one driver and database stored in one statement and one commit.
- For :class:`graphmem.AsyncMemory`, which carries every round trip of its concurrent calls on
  one event loop thread, two of a retrieval's round trips are shared with the retrievals that
  make the same one at the same time:

  - Attribution (:mod:`graphmem.read.attribution`, ``grouped``): each retrieval's log, whole
    once ranked, with those of the retrievals that wait beside it, in one statement and one
    transaction (``retrieval/log_batch.cypher``) instead of three round trips each. Each is
    logged exactly as alone (the same part stores it; an entry sees what the ones before it
    stored); a batch whose commit outcome is unknown raises in every caller.
  - The version check of a reused candidates answer (:class:`graphmem.db.eligibility.
    Eligibility`, ``share_checks``): reads of one tenant, scope and clearance waiting together
    share one ``candidates_delta`` read; a caller whose answer's versions it shows unchanged
    reuses its answer, any other reads again on its own.

A thread that waits for another's batch gives back its admission slot meanwhile
(:func:`graphmem.db.async_driver.released`; nothing when it runs under none).
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
"""Batches of one :class:`Batches` in flight at once, unless it is given another number; the
calls that come meanwhile form the next batch."""

E = TypeVar("E")
R = TypeVar("R")


@dataclass(eq=False)
class _Entry(Generic[E, R]):
    """One call: its value, and what its thread learns of it."""

    value: E
    #: set when the entry is done, or when its thread is handed a batch to send
    wake: threading.Event = field(default_factory=threading.Event)
    #: the batch this entry's thread is to send (it leads it)
    lead: list[_Entry[E, R]] | None = None
    done: bool = False
    #: its result once sent; None: its batch failed (the caller sends it alone)
    result: R | None = None
    #: the batch's error when it is one of the ``final`` kinds (raised in every caller)
    error: BaseException | None = None


class Batches(Generic[E, R]):
    """The calls waiting to be sent together, and the batches in flight.

    Args:
        send: sends a batch of calls' values (the first is the value of the thread that sends
            it); their results, in order. Whatever it raises makes each call of the batch get
            None (its caller then sends it alone), except an error of a ``final`` kind.
        final: errors after which sending again alone would be wrong (a commit whose
            outcome is unknown may have written the batch): :meth:`submit` raises them in
            every caller of the batch.
        alone: sends the value of a call that is alone in its batch, instead of ``send``:
            what it raises is raised by :meth:`submit` to that call's caller (it is its own
            error), and nothing is sent again. Without it, such a call is a batch of one.
        max_in_flight: the most batches in flight at once (:data:`MAX_IN_FLIGHT`).
    """

    def __init__(self, send: Callable[[Sequence[E]], Sequence[R]],
                 final: tuple[type[BaseException], ...] = (), *,
                 alone: Callable[[E], R] | None = None,
                 max_in_flight: int = MAX_IN_FLIGHT) -> None:
        self._send = send
        self._final = final
        self._alone = alone
        self.lock = threading.Lock()
        #: the calls waiting for a batch in flight to end (under :attr:`lock`)
        self.waiting: list[_Entry[E, R]] = []
        #: batches in flight now (under :attr:`lock`)
        self.in_flight = 0
        #: the most batches in flight at once (benchmarks compare settings)
        self.max_in_flight = max_in_flight
        #: batches of more than one call sent so far, and the calls in them (tests, benchmarks)
        self.batches = 0
        self.batched = 0

    def submit(self, value: E) -> R | None:
        """Send ``value`` alone or with the calls that wait beside it; its result, or None
        when its batch failed as a whole (then send it alone).

        Raises:
            the batch's error, only when it is of a ``final`` kind; whatever ``alone``
            raises for this call sent alone.
        """
        own: _Entry[E, R] = _Entry(value)
        try:
            with self.lock:
                if self.in_flight < self.max_in_flight:
                    self.in_flight += 1
                    own.lead = [own, *self._take(MAX_BATCH - 1)]
                else:
                    self.waiting.append(own)
            if own.lead is None:
                with released():  # another thread sends it: let that thread run
                    own.wake.wait()
            if not own.done:  # handed a batch to send
                assert own.lead is not None
                self._run(own.lead, own)
        finally:
            # Whatever ends this thread's part, normally or by any exception (an interrupt
            # while it waits, a failed send), its batch ends with it.
            self._settle(own)
        if own.error is not None:
            raise own.error
        return own.result

    def _take(self, n: int) -> list[_Entry[E, R]]:
        taken = self.waiting[:n]
        del self.waiting[:n]
        return taken

    def _run(self, batch: list[_Entry[E, R]], own: _Entry[E, R] | None = None) -> None:
        """Send ``batch`` and set each entry's outcome; only ``own``'s error, sent alone,
        is raised."""
        if self._alone is not None and len(batch) == 1 and batch[0] is own:
            own.result = self._alone(own.value)
            return
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
        withdrawn unsent: left waiting, it could be handed a batch no thread would send, and
        every call behind it would wait forever. An entry in another thread's batch is that
        thread's to finish."""
        with self.lock:
            if own in self.waiting:
                self.waiting.remove(own)
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
            self._hand_off()

    def _hand_off(self) -> None:
        """With :attr:`lock` held, one batch in flight ends: the next batch of waiting
        entries, if any, goes to its first entry's thread to send (it stays in flight)."""
        if not self.waiting:
            self.in_flight -= 1
            return
        nxt = self._take(MAX_BATCH)
        nxt[0].lead = nxt
        nxt[0].wake.set()
