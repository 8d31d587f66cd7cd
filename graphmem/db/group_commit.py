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
The waiting, the hand-off and the failure isolation are :class:`graphmem.db.batches.Batches`,
which AsyncMemory's shared round trips use too.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from neo4j import Driver

from graphmem.db.batches import MAX_BATCH, Batches

if TYPE_CHECKING:
    from graphmem.db.base import StoreBase

__all__ = ["MAX_BATCH", "GroupCommit", "batchable", "group_for", "write_new"]

#: The most batches in flight at once through one driver and database; the writes that
#: arrive while they are form the next batch. Two: the next batch goes while one is on the
#: server (smaller batches, about 3 writes at 8 writers, against 4 with one). Chosen by
#: ``python -m bench.group_commit`` (settings side by side in one process, alternating): two
#: beat one more consistently than three did (docs/performance.md, "Two batches in flight";
#: the runs are in bench/results/group_commit.json and bench/results/HISTORY.md).
MAX_IN_FLIGHT = 2

#: One write: the store of the client that makes it, and ``write/new.cypher``'s ``$write``.
Write = tuple["StoreBase", dict[str, Any]]


class GroupCommit(Batches[Write, bool]):
    """The writes waiting for one driver and database, and the batches in flight.

    :meth:`submit` takes ``(store, params)`` (``write/new.cypher``'s parameters) and returns
    True if the write was stored, False if the statement turned it away (nothing written for
    it), None if it was in a batch that failed as a whole (nothing written for it: run it
    alone). A batch goes through the store of the thread that sends it; a write alone raises
    what :meth:`StoreBase.write_once` raises for it (GraphmemError)."""

    def __init__(self) -> None:
        super().__init__(_send_batch, alone=_alone, max_in_flight=MAX_IN_FLIGHT)


def _send_batch(batch: Sequence[Write]) -> list[bool]:
    """Store ``batch`` in one statement (``write/new_batch.cypher``) through the store of its
    first write (the thread that sends it); whether each write was stored, in order.

    Raises:
        GraphmemError (or the driver's error when it cannot pack a write's parameters):
            nothing of the batch was stored. (If the connection dropped after the commit, all
            of it was: each write's repeat then knows its own record by its token,
            :mod:`graphmem.write.admission`.)
    """
    store = batch[0][0]
    order = sorted(range(len(batch)),
                   key=lambda i: (batch[i][1]["scope_key"], batch[i][1]["slots"]))
    rows = store.write_once(
        "write/new_batch", writes=[batch[i][1] for i in order],
        slots=sorted({key for _, params in batch for key in params["slots"]}))
    stored = {order[row["pos"]] for row in rows}
    return [i in stored for i in range(len(batch))]


def _alone(write: Write) -> bool:
    return _store_one(*write)


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
        stored = group_for(store).submit((store, row))
        if stored is not None:
            return stored
    return _store_one(store, row)


def _store_one(store: StoreBase, row: dict[str, Any]) -> bool:
    """Store one write (``write/new.cypher``'s ``$write``) alone; whether it was stored."""
    return bool(store.write_once("write/new", write=row))
