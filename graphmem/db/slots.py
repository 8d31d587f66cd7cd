"""Write slots: what a policy write locks, and the nodes it only MATCHes.

A policy write used to take one lock per scope for its whole transaction, so writers into
one scope queued; and it MERGEd nodes that already existed, which takes a shared lock that
the same transaction then upgraded (an ``IN_SCOPE`` edge on a young Scope node, the
ScopeVersion rev bump): two writers each holding the shared lock deadlocked
(``DeadlockDetected`` on the ScopeVersion node, retried by the driver).

Now:

* :meth:`WriteSlots.ensure_write_nodes` creates the Scope, ScopeVersion, :data:`SLOTS`
  ``WriteSlot`` nodes of a scope and the Assertion groups a write needs in a short
  transaction of its own, once per store object (remembered in ``StoreBase.ensured``), so
  write transactions MATCH them and take exclusive locks directly. The policy write checks
  the proposal first (:mod:`graphmem.write.admission`), so a refused one creates nothing.
  Batches (``put_many``) create missing Scope and ScopeVersion nodes inside their own
  transaction instead (``scopes_merge``) and remember them once committed.
* A write locks only its slots (:func:`slot_keys`): the hash bucket of its scope and dedup
  key (and of its thread), so identical proposals are serialised (the duplicate check stays
  exactly-once) and others rarely wait. The write stamps its new record with its slot's
  sequence (``r.wslot``, ``r.wseq``), bumped as it stores the record (a DISCARD moves no
  version, so cached answers stay reused), and does not touch the
  scope's ScopeVersion: with one version node per scope, writers into one scope committed one
  at a time (the lock is held to the commit), 1.2x one writer's throughput with 8 writers.
  Cached eligibility answers read every slot's version beside the ScopeVersion
  (``cypher/parts/write_slot_versions.cypher``); a slot's ``epoch`` is new whenever its node
  is created. Lock order everywhere in the write: slots (sorted), Scope, records and
  Assertion groups (a threaded record, which takes the batch path, then its ScopeVersion).

Every ScopeVersion bump (writes, retract, expire, quarantine, recompute, deletion, migrations,
the LangGraph store's sequence) locks before it reads: ``SET sv.locked = true``, then
``WITH ..., coalesce(sv.rev, 0) + 1 AS rev SET sv.rev = rev``, then ``REMOVE sv.locked``. On
Neo4j 5.26 a ``SET sv.rev = coalesce(sv.rev, 0) + 1`` in a later statement of a transaction
that holds the node's lock already (a deletion's erase, then its mark statement; a LangGraph
batch's create, then its retract) is reported as a deadlock with a transaction waiting for
that lock, and the driver retries the waiter; the plain write followed by a read is not
(tests/integration/concurrency/test_lifecycle.py, tests/unit/db/test_catalogue.py). MERGE of an
existing ScopeVersion (lifecycle queries keep it for scopes written before ScopeVersion nodes
existed) holds no lock that blocks another transaction's bump.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from neo4j import ManagedTransaction

from graphmem.db.base import StoreBase
from graphmem.db.codec import assertion_group, dedup_key, scope_key, scope_pairs
from graphmem.models import MemoryRecord

__all__ = ["SLOTS", "WriteSlots", "slot_keys", "stamp_slot"]

#: WriteSlot lock nodes per scope: two writers of different contents into one scope wait on
#: each other with probability about 1/SLOTS.
SLOTS = 32


def _index(text: str) -> int:
    return zlib.crc32(text.encode("utf-8")) % SLOTS


def _slot(key: str, text: str) -> str:
    return f"{key}#{_index(text)}"


def stamp_slot(record: MemoryRecord, dedup: str | None = None) -> tuple[str, int]:
    """The key and index (0 to :data:`SLOTS` - 1) of the slot whose sequence stamps a policy
    write of ``record`` (its dedup slot, one of :func:`slot_keys`): ``records/write.cypher``
    sets ``r.wslot`` to the index and ``r.wseq`` to the slot's sequence. ``dedup``: the
    record's :func:`dedup_key`, when the caller has it already."""
    index = _index(dedup or dedup_key(record))
    return f"{scope_key(record.scope)}#{index}", index


def slot_keys(record: MemoryRecord, dedup: str | None = None) -> list[str]:
    """The sorted WriteSlot keys a policy write of ``record`` locks: the bucket of its
    dedup key in its scope, and of its thread (thread positions are checked then taken).
    ``dedup``: the record's :func:`dedup_key`, when the caller has it already."""
    key = scope_key(record.scope)
    keys = {_slot(key, dedup or dedup_key(record))}
    if record.thread is not None:
        keys.add(_slot(key, f"thread\x1f{record.tenant}\x1f{record.thread}"))
    return sorted(keys)


class WriteSlots(StoreBase):
    """Creating the nodes write transactions MATCH, and locking write slots."""

    def ensure_write_nodes(self, records: Iterable[MemoryRecord]) -> None:
        """Create (if missing) the Scope, ScopeVersion and WriteSlot nodes of the records'
        scopes and their Assertion groups, one short transaction per scope this store object
        has not ensured yet (retried by the driver on transient errors).

        Raises:
            DatabaseUnavailableError, StoreError: translated driver errors.
        """
        todo: dict[str, tuple[MemoryRecord, dict[str, dict[str, str]]]] = {}
        for r in records:
            key = scope_key(r.scope)
            groups = {} if key not in todo else todo[key][1]
            if r.asserts is not None:
                gkey = assertion_group(r.tenant, r.asserts)
                if "a" + gkey not in self.ensured:
                    groups[gkey] = {"gkey": gkey, "tenant": r.tenant, "key": r.asserts}
            if groups or "s" + key not in self.ensured:
                todo[key] = (r, groups)
        for key, (r, groups) in todo.items():
            self.write("write/nodes_ensure", key=key, tenant=r.tenant,
                       pairs=scope_pairs(r.scope), slots=SLOTS, groups=list(groups.values()))
            self.ensured.add("s" + key)
            self.ensured.update("a" + g for g in groups)

    def needs_write_nodes(self, records: Iterable[MemoryRecord]) -> bool:
        """True if :meth:`ensure_write_nodes` would create or look for nodes."""
        return any(
            "s" + scope_key(r.scope) not in self.ensured
            or (r.asserts is not None
                and "a" + assertion_group(r.tenant, r.asserts) not in self.ensured)
            for r in records)

    def forget_write_nodes(self, record: MemoryRecord) -> None:
        """Forget that ``record``'s nodes exist (one was found missing: deleted since)."""
        self.ensured.discard("s" + scope_key(record.scope))
        if record.asserts is not None:
            self.ensured.discard("a" + assertion_group(record.tenant, record.asserts))

    def create_slots_in_tx(self, tx: ManagedTransaction, record: MemoryRecord) -> None:
        """Create ``record``'s missing WriteSlot nodes inside ``tx`` (they were deleted)."""
        self.forget_write_nodes(record)
        self.run(tx, "write/slots_ensure", keys=slot_keys(record), tenant=record.tenant)
