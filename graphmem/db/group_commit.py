"""Group commit of new records (writers into one store scale past one writer).

Each policy write of a new record (``write/new.cypher``) costs the server a transaction and
the client a round trip: on a 2-core machine one writer keeps a core busy, so eight writers
could reach at most about twice one writer's throughput, and reached 1.5-1.9x. Writes that
arrive while :data:`MAX_IN_FLIGHT` statements of other threads' writes are in flight through
the same driver and database wait for one of them to end, and are then stored together, in
one statement and one commit (``write/new_batch.cypher``), by whichever of them came first:
the classic group commit. A writer alone is never delayed: with nothing in flight, its write
runs at once, as before.

Each write in a batch is decided exactly as alone: the statement runs write/new's parts for
each write in turn, each seeing what the ones before it stored, and a write it turns away (a
duplicate, a stored id, a missing node) comes back "not stored", for its own client to decide
with the full transaction (:func:`graphmem.write.admission.admit`). If the batch fails as a
whole (a concurrent writer created one of its ids, the server went away, the driver could
not pack one write's parameters), nothing of it was stored, and each of its writes is run
again alone by its own thread, which then sees its own error: the leader never raises what
may be another write's fault. Writes that reference other records are never batched (see the
query's header).

The batch runs through the driver its writes would each have used: clients that should
combine share a driver (:meth:`graphmem.Memory.connect` does, per connection settings).

What each write costs this process is what bounds eight writers (they share one interpreter
lock), so each statement is sent in one round trip, as an auto-commit statement
(:meth:`StoreBase.write_once`: a transaction function waits for its rows, then for its commit),
with its two datetimes as ISO-8601 text (the driver packs a ``datetime`` in Python, at about
28 us each; the statement converts them back). A waiting write's thread sleeps on an event of
its own, woken once: when its batch is done, or when it is handed the next batch to send.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from neo4j import Driver

if TYPE_CHECKING:
    from graphmem.db.base import StoreBase

__all__ = ["MAX_BATCH", "GroupCommit", "batchable", "group_for", "write_new"]

#: The most writes stored in one batch.
MAX_BATCH = 64
#: The most batches in flight at once through one driver and database; the writes that
#: arrive while they are form the next batch. Two: the next batch goes while one is on the
#: server (smaller batches, about 3 writes at 8 writers, against 4 with one). Chosen by
#: ``python -m bench.group_commit`` (settings side by side in one process, alternating): two
#: beat one more consistently than three did (docs/performance.md, "Two batches in flight";
#: the runs are in bench/results/group_commit.json and bench/results/HISTORY.md).
MAX_IN_FLIGHT = 2


@dataclass(eq=False)
class _Write:
    params: dict[str, Any]
    #: set when the write is done, or when its thread is handed a batch to send
    wake: threading.Event = field(default_factory=threading.Event)
    #: the batch this write's thread is to send (it leads it)
    lead: list[_Write] | None = None
    done: bool = False
    #: True: stored; False: turned away (decide alone); None: the batch failed (run alone)
    stored: bool | None = None


@dataclass(eq=False)
class GroupCommit:
    """The writes waiting for one driver and database, and the batches in flight."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    waiting: list[_Write] = field(default_factory=list)
    in_flight: int = 0
    #: the most batches in flight at once (:data:`MAX_IN_FLIGHT`; ``bench.group_commit``
    #: compares settings side by side in one process)
    max_in_flight: int = MAX_IN_FLIGHT
    #: batches of more than one write stored so far, and the writes in them (for tests and
    #: benchmarks)
    batches: int = 0
    batched_writes: int = 0

    def submit(self, store: StoreBase, params: dict[str, Any]) -> bool | None:
        """Store one write (``write/new.cypher``'s parameters) alone or with the writes that
        wait beside it.

        Returns:
            True if it was stored, False if the statement turned it away (nothing written for
            it), None if it was in a batch that failed as a whole (nothing written for it: run
            it alone).

        Raises:
            GraphmemError: as :meth:`StoreBase.write_once`, for this write sent alone.
        """
        own = _Write(params)
        try:
            with self.lock:
                if self.in_flight < self.max_in_flight:
                    self.in_flight += 1
                    own.lead = [own, *self._take(MAX_BATCH - 1)]
                else:
                    self.waiting.append(own)
            if own.lead is None:
                own.wake.wait()
                if own.done:
                    return own.stored
            assert own.lead is not None
            _run(store, own.lead, own)
        finally:
            # Whatever ends this thread's part, normally or by any exception (a
            # KeyboardInterrupt while it waits, a failed statement), its batch ends with it.
            self._settle(own)
        return own.stored

    def _take(self, n: int) -> list[_Write]:
        taken = self.waiting[:n]
        del self.waiting[:n]
        return taken

    def _settle(self, own: _Write) -> None:
        """``own``'s thread leaves :meth:`submit`: if it leads a batch (its own, or one it
        was handed), mark that batch done and wake its writers (those not stored run alone),
        and hand the next batch of waiting writes, if any, to its first write's thread.

        A write still waiting is withdrawn, unsent: its thread was interrupted while it
        waited (KeyboardInterrupt, any exception raised in ``wake.wait``). Left waiting, it
        could be handed the next batch, which no thread would then send: every write behind
        it, and every later write through the driver, would wait forever. A write in
        another thread's batch is that thread's to finish."""
        with self.lock:
            if own in self.waiting:
                self.waiting.remove(own)
                return
            batch = own.lead
            if batch is None or own.done:
                return
            if len(batch) > 1:
                self.batches += 1
                self.batched_writes += len(batch)
            for write in batch:
                write.done = True
                write.wake.set()
            self._hand_off()

    def _hand_off(self) -> None:
        """With the lock held, one batch in flight ends: the next batch of waiting writes, if
        any, goes to its first write's thread to send (it stays in flight)."""
        if not self.waiting:
            self.in_flight -= 1
            return
        nxt = self._take(MAX_BATCH)
        nxt[0].lead = nxt
        nxt[0].wake.set()


def _run(store: StoreBase, batch: list[_Write], own: _Write | None = None) -> None:
    """Store ``batch`` and set each write's outcome. Only ``own``'s error, sent alone,
    is raised: any other failure sets the outcome None (run alone) for every write."""
    if len(batch) == 1 and batch[0] is own:
        own.stored = _store_one(store, own.params)
        return
    ordered = sorted(batch, key=lambda w: (w.params["scope_key"], w.params["slots"]))
    try:
        rows = store.write_once(
            "write/new_batch", writes=[w.params for w in ordered],
            slots=sorted({key for w in ordered for key in w.params["slots"]}))
    except Exception:
        # Nothing of the batch was stored (the server refused it, or the driver could not
        # even pack one write's parameters): each write runs alone and meets its own error.
        # Whatever failed is not the leader's to raise: it may be a follower's write. (If the
        # connection dropped after the commit, all of it was stored: each write's repeat
        # then knows its own record by its token, graphmem.write.admission.)
        return
    stored = {row["pos"] for row in rows}
    for i, write in enumerate(ordered):
        write.stored = i in stored


_groups: weakref.WeakKeyDictionary[Driver, dict[str, GroupCommit]] = (
    weakref.WeakKeyDictionary())
_groups_lock = threading.Lock()


def group_for(store: StoreBase) -> GroupCommit:
    """The group commit of ``store``'s driver and database (one per pair, in this process)."""
    with _groups_lock:
        by_database = _groups.setdefault(store.driver, {})
        return by_database.setdefault(store.database, GroupCommit())


def batchable(params: dict[str, Any]) -> bool:
    """Whether a write may share a batch: it links no other record (a batch would lock the
    records it links in no order common to every transaction)."""
    return not (params["supersedes"] or params["derived_from"] or params["evidence_ids"])


def write_new(store: StoreBase, params: dict[str, Any]) -> bool:
    """Store a new record with ``write/new.cypher``'s ``params``, group-committed with the
    writes of other threads through the same driver when it may be (:func:`batchable`).

    ``params``: write/check's and records/write's parameters, ``now`` and ``decision["at"]``
    timezone-aware UTC datetimes (sent as text: see the module's docstring).

    Returns:
        whether it was stored: False when nothing was written (the caller decides it with the
        full transaction).

    Raises:
        ConstraintViolationError: a concurrent writer created its id first.
        GraphmemError: as :meth:`StoreBase.write_once`.
    """
    row = {**params, "now": params["now"].isoformat(),
           "decision": {**params["decision"], "at": params["decision"]["at"].isoformat()}}
    if batchable(row):
        stored = group_for(store).submit(store, row)
        if stored is not None:
            return stored
    return _store_one(store, row)


def _store_one(store: StoreBase, row: dict[str, Any]) -> bool:
    """Store one write (``write/new.cypher``'s ``$write``) alone; whether it was stored."""
    return bool(store.write_once("write/new", write=row))
