"""The attribution log (docs/spec/read-path.md#attribution; docs/spec/evaluation.md): each retrieval
with its query, candidate set, selection, scores and reasons, and the exposure and use of its
memories, so that exposure, use and help can be reconstructed later.

A candidate set is stored once, as a ``CandidateSet`` keyed by a digest; its ids are sent
again only when the server lacks them. An agent's loop writes between reads, so nearly every
read after a write has a new candidate set that differs from the last one by a record or
two: such a set is stored as a delta of the last set this client logged for the same caller
and scope (``added_ids``/``removed_ids`` and the ``base_digests``, the digests back to a set stored
whole, at most :data:`MAX_CHAIN` long), so logging costs the change, not the candidate set,
in time and in storage. :func:`candidate_ids` reads either form back.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from neo4j.exceptions import IncompleteCommit

from graphmem.db.batches import Batches
from graphmem.db.ops.attribution import (
    AttributionOps,
    CandidateSetWrite,
    RetrievalLogTransaction,
    RetrievalParams,
    Selection,
)
from graphmem.db.resilience import translate
from graphmem.errors import (
    ClientClosedError,
    GraphmemError,
    RecordNotFoundError,
    StoreError,
    ValidationError,
)
from graphmem.models import Principal
from graphmem.read.digests import SetDigests
from graphmem.read.steps import DecisionState, MemoryConflict, RetrievalTrace, RetrievedMemory

__all__ = ["MAX_CHAIN", "AttributionLog", "PendingRetrievalLog", "candidate_ids"]

MAX_KNOWN_SETS = 4096
MAX_CHAIN = 16
"""The longest chain of deltas before a candidate set is stored whole again."""
MAX_DELTA_SHARE = 0.25
"""A set is stored as a delta only when it differs from its base by at most this share of
its size (else whole)."""

_SetKey = tuple[str, tuple[str, ...], str]  # (query scope json, principal tenants, clearance)
#: the last set logged per key: (digest, ids, chain length, the ids' token or None)
_LastSet = tuple[str, Sequence[str], int, "int | None"]

def _change(base: _LastSet, ids: Sequence[str]) -> tuple[list[str], list[str]]:
    """(added, removed): the ids ``ids`` has and ``base`` lacks, and the reverse, sorted. From
    the edit the ids carry when they were made from ``base``'s
    (:class:`graphmem.db.eligibility.CandidateIds`: positions removed from those, positions
    inserted in these; an id removed and inserted again changed version, not membership),
    else by comparing the two sets."""
    edit = getattr(ids, "edit", None)
    if edit is not None and base[3] is not None and edit[0] == base[3]:
        gone = {base[1][at] for at in edit[1]}
        new = {ids[at] for at in edit[2]}
        return sorted(new - gone), sorted(gone - new)
    before, now = frozenset(base[1]), frozenset(ids)
    return sorted(now - before), sorted(before - now)


def candidate_ids(retrieval: dict[str, Any], candidate_set: dict[str, Any] | None,
                  chain: Sequence[dict[str, Any]]) -> list[str]:
    """The candidate ids of a logged retrieval, sorted.

    Args:
        retrieval: the Retrieval node's properties (old retrievals carry ``candidate_ids``).
        candidate_set: its CandidateSet's ``digest``, ``ids``, ``base_digests``, ``added_ids`` and
            ``removed_ids`` (None: no set was stored, e.g. no trigger fired).
        chain: the same properties of every set in ``candidate_set["base_digests"]``.

    Raises:
        StoreError: the set or a set of its chain is missing, or the deltas from it do not
            lead, each from its own base, to a set stored whole.
    """
    if retrieval.get("candidate_ids") is not None:
        return sorted(retrieval["candidate_ids"])
    if candidate_set is None:
        if retrieval.get("candidate_count"):
            raise StoreError(f"retrieval {retrieval.get('id')} lost its candidate set")
        return []
    # Each delta is relative to its own base (base_digests[0]); follow those links along the
    # chain to the first set stored whole. A set of the chain lost, or stored again on
    # another base, breaks the chain: an error, never ids of some other set.
    by_digest = {c["digest"]: c for c in chain}
    path = [candidate_set["digest"], *(candidate_set.get("base_digests") or [])]
    order = [candidate_set]
    while order[-1].get("ids") is None:
        bases = order[-1].get("base_digests") or []
        if len(order) == len(path) or not bases or bases[0] != path[len(order)]:
            raise StoreError(f"candidate set {candidate_set['digest']} is stored incompletely")
        if path[len(order)] not in by_digest:
            raise StoreError(f"candidate set {candidate_set['digest']} lost its base "
                             f"{path[len(order)]}")
        order.append(by_digest[path[len(order)]])
    ids = set(order[-1]["ids"])
    for delta in reversed(order[:-1]):
        ids.difference_update(delta.get("removed_ids") or ())
        ids.update(delta.get("added_ids") or ())
    return sorted(ids)


@dataclass(frozen=True)
class _SetLog:
    """What logging one retrieval's Retrieval node and candidate set takes (``entry``), and
    what this log remembers of it once committed."""

    entry: CandidateSetWrite
    key: _SetKey
    ids: Sequence[str]
    current: bool
    triggered: bool

    @property
    def digest(self) -> str:
        """The candidate set's digest."""
        return self.entry.digest


class AttributionLog:
    """Writes and reads the attribution log through the store's attribution operations.

    Remembers the digests of candidate sets it has logged (at most ``MAX_KNOWN_SETS``), so
    their ids need not be resent.

    Args:
        ops: the store's attribution operations (:class:`~graphmem.db.ops.attribution.
            Neo4jAttribution` on Neo4j).
        grouped: log each triggered retrieval whole once ranked, with those of other threads
            that wait beside it (:mod:`graphmem.db.batches`), instead of beginning its
            transaction while it ranks (:meth:`open_retrieval`).
    """

    def __init__(self, ops: AttributionOps, *, grouped: bool = False) -> None:
        self.ops = ops
        self.group: Batches[tuple[CandidateSetWrite, Selection], int] | None = (
            Batches(ops.log_retrievals, final=(IncompleteCommit,)) if grouped else None)
        self._candidate_sets: set[str] = set()
        # per caller and scope: the last set logged, a delta base
        self._last: dict[_SetKey, _LastSet] = {}
        # a reused answer is digested once, an answer made by a change from the one before
        self._digests = SetDigests()
        self._pool: ThreadPoolExecutor | None = None
        # guards _pool, _closed and _committing; close() waits on it for commits under way
        self._state = threading.Condition()
        self._closed = False
        self._committing = 0

    def log_retrieval(self, trace: RetrievalTrace, memories: Sequence[RetrievedMemory],
                      conflicts: Sequence[MemoryConflict], principal: Principal,
                      state: DecisionState) -> None:
        """Log one retrieval (triggered or not) in one transaction.

        Raises:
            GraphmemError: the store refused or could not be reached (nothing was logged).
        """
        self._log_whole(self._set_log(trace, principal, state), _selection(
            trace.retrieval_id, memories, conflicts))

    def open_retrieval(self, trace: RetrievalTrace, principal: Principal,
                       state: DecisionState) -> PendingRetrievalLog:
        """Begin logging a triggered retrieval whose candidates are known (``trace``: its id,
        time, triggers, query, ranker, candidate ids and budget) while the caller ranks
        them: its Retrieval node and candidate set are written on another thread, in a
        transaction that :meth:`PendingRetrievalLog.finish` completes with what was selected
        and commits (a read right after a write no longer waits for the server to
        store its candidate set after ranking). One transaction either way: nothing is
        logged until the commit, and a retrieval is logged whole or not at all."""
        set_log = self._set_log(trace, principal, state)
        with self._state:
            if self._closed:
                raise ClientClosedError("this graphmem client is closed")
            if self.group is not None:  # logged whole once ranked (finish)
                return PendingRetrievalLog(self, set_log, None)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=8,
                                                thread_name_prefix="graphmem-log")
            begun = self._pool.submit(self._begin, set_log)
        return PendingRetrievalLog(self, set_log, begun)

    def close(self) -> None:
        """End logging: a retrieval begun on this log after this raises ClientClosedError
        (none is logged after this returns: a commit under way is waited for, one not yet
        under way is rolled back), and the threads :meth:`open_retrieval` writes on stop."""
        with self._state:
            self._closed = True
            self._state.wait_for(lambda: self._committing == 0)
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    @contextmanager
    def _committing_now(self) -> Iterator[None]:
        """Count a commit under way (:meth:`close` waits for it).

        Raises:
            ClientClosedError: the log is closed (the caller rolls back).
        """
        with self._state:
            if self._closed:
                raise ClientClosedError("this graphmem client is closed")
            self._committing += 1
        try:
            yield
        finally:
            with self._state:
                self._committing -= 1
                self._state.notify_all()

    def _set_log(self, trace: RetrievalTrace, principal: Principal,
                 state: DecisionState) -> _SetLog:
        t = trace
        tenant = state.memory_scope["tenant"]
        scope_json = json.dumps(state.memory_scope, sort_keys=True)
        key: _SetKey = (scope_json, tuple(sorted(principal.tenants)), principal.clearance.value)
        digest = self._digests.digest(tenant, t.candidate_ids)
        last = self._last.get(key)
        current = last is not None and last[0] == digest  # the usual reused read: no set work
        ids = t.candidate_ids
        stored = digest in self._candidate_sets
        base = None if stored else last
        added: list[str] = []
        removed: list[str] = []
        if base is not None:
            added, removed = _change(base, t.candidate_ids)
            if base[2] >= MAX_CHAIN or len(added) + len(removed) > MAX_DELTA_SHARE * len(ids):
                base = None
        params = RetrievalParams(
            id=t.retrieval_id, at=t.at, triggered=t.triggered,
            triggers=list(t.triggers), query=self.ops.limits.logged_query(t.query),
            ranker=t.ranker, tenant=tenant,
            scope_json=scope_json,
            tenants=sorted(principal.tenants), clearance=principal.clearance.value,
            candidate_digest=digest, candidate_count=len(t.candidate_ids),
            candidate_ids=None if stored or base is not None else list(t.candidate_ids),
            base_digest=None if base is None else base[0], added_ids=added,
            removed_ids=removed, max_depth=MAX_CHAIN, budget_chars=t.budget_chars,
        )
        return _SetLog(CandidateSetWrite(params, digest, t.candidate_ids), key, ids, current,
                       t.triggered)

    def _log_whole(self, set_log: _SetLog, selection: Selection) -> None:
        """Log a retrieval in one transaction function (retried by the driver)."""
        self._logged(set_log, self.ops.log_retrieval(set_log.entry, selection))

    def _begin(self, set_log: _SetLog) -> tuple[RetrievalLogTransaction, int]:
        return self.ops.begin_retrieval(set_log.entry)

    def _logged(self, set_log: _SetLog, depth: int) -> None:
        """Remember a committed candidate set (a base for the next set's delta)."""
        if len(self._candidate_sets) >= MAX_KNOWN_SETS:
            self._candidate_sets.clear()
            self._last.clear()
        self._candidate_sets.add(set_log.digest)
        if set_log.triggered and not set_log.current:
            self._last[set_log.key] = (set_log.digest, set_log.ids, depth,
                                       getattr(set_log.ids, "token", None))


    def log_attribution(self, kind: Literal["exposure", "use"], retrieval_id: str,
                        action_id: str, memory_ids: Sequence[str], at: datetime, *,
                        helped: bool | None = None) -> None:
        """Log exposure (``kind="exposure"``) or use (``"use"``, with ``helped``) of selected
        memories.

        Raises:
            RecordNotFoundError: unknown retrieval. ValidationError: an empty action id, or
                an id the retrieval did not select.
        """
        if not isinstance(action_id, str) or not action_id:
            raise ValidationError("action_id must be a non-empty string")
        self.ops.limits.check_label("action_id", action_id)
        found = self.ops.retrieval(retrieval_id)
        if found is None:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        selected = set(found.retrieval.get("selected_ids") or [])
        stray = sorted(set(memory_ids) - selected)
        if stray:
            raise ValidationError("these memories were not selected by that retrieval",
                                  record_ids=stray)
        self.ops.log_action(kind, retrieval_id, action_id, memory_ids, at, helped=helped)

    def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """A logged retrieval: its properties and selected records with scores and reasons.

        Raises:
            RecordNotFoundError: unknown retrieval.
        """
        found = self.ops.retrieval(retrieval_id)
        if found is None:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        retrieval = {**found.retrieval, "candidate_ids": candidate_ids(
            found.retrieval, found.candidate_set, found.chain)}
        return {"retrieval": retrieval, "selected": found.selected}


class PendingRetrievalLog:
    """A retrieval's log begun by :meth:`AttributionLog.open_retrieval`; exactly one of
    :meth:`finish` and :meth:`cancel` ends it."""

    def __init__(self, log: AttributionLog, set_log: _SetLog,
                 begun: Future[tuple[RetrievalLogTransaction, int]] | None) -> None:
        self._log = log
        self._set_log = set_log
        self._begun = begun

    def finish(self, memories: Sequence[RetrievedMemory],
               conflicts: Sequence[MemoryConflict]) -> None:
        """Add what the retrieval selected and commit. When the transaction begun on the
        other thread failed (a deadlock, a lost connection, a string the driver cannot send),
        or adding the selection fails (the driver raises more than its own errors when its
        connection is torn down under it: a ``BufferError``), it is rolled back and the whole
        retrieval is logged again in one transaction function, retried by the driver as
        :meth:`AttributionLog.log_retrieval` is.

        Raises:
            ClientClosedError: the client was closed first (nothing was logged).
            GraphmemError: logging failed (then nothing was logged), or the commit's outcome
                is unknown (a connection lost while committing).
        """
        selection = _selection(self._set_log.entry.params["id"], memories, conflicts)
        if self._begun is None:  # grouped: logged whole now, with others waiting beside it
            self._grouped(selection)
            return
        try:
            tx, depth = self._wait()
        except GraphmemError:
            raise
        except Exception:  # a driver error, a string it cannot send, a connection torn down
            self._again(selection)
            return
        try:
            with self._log._committing_now():
                tx.add_selection(selection)
                tx.commit()
        except IncompleteCommit as exc:  # it may or may not have been written: say so
            raise translate(exc, "logging a retrieval") from exc
        except GraphmemError:
            raise
        except Exception:  # as above; a Retrieval id is unique, so none is logged twice
            tx.close()  # rolled back (its locks too, which the next transaction takes)
            self._again(selection)
            return
        finally:
            tx.close()
        self._log._logged(self._set_log, depth)

    def _grouped(self, selection: Selection) -> None:
        """Log the whole retrieval with those waiting beside it; alone if their batch failed."""
        group = self._log.group
        assert group is not None
        try:
            with self._log._committing_now():
                depth = group.submit((self._set_log.entry, selection))
        except IncompleteCommit as exc:  # the batch may or may not have been written: say so
            raise translate(exc, "logging a retrieval") from exc
        if depth is None:
            self._again(selection)
        else:
            self._log._logged(self._set_log, depth)

    def _again(self, selection: Selection) -> None:
        """Log the whole retrieval in one retried transaction function (unless closed)."""
        with self._log._committing_now():
            self._log._log_whole(self._set_log, selection)

    def cancel(self) -> None:
        """Roll back: the retrieval failed before it selected anything (nothing is logged)."""
        if self._begun is None:  # grouped: nothing was begun
            return
        try:
            tx, _ = self._wait()
        except Exception:  # the transaction never began, or was rolled back: nothing to end
            return
        tx.close()

    def _wait(self) -> tuple[RetrievalLogTransaction, int]:
        """The begun transaction, once begun; interrupted while waiting (KeyboardInterrupt),
        it is rolled back when it arrives, so no transaction is left open."""
        begun = self._begun
        assert begun is not None  # not grouped
        try:
            return begun.result()
        except BaseException as exc:
            if not isinstance(exc, Exception):
                begun.add_done_callback(_roll_back)
            raise


def _roll_back(begun: Future[tuple[RetrievalLogTransaction, int]]) -> None:
    if not begun.cancelled() and begun.exception() is None:
        begun.result()[0].close()


def _selection(retrieval_id: str, memories: Sequence[RetrievedMemory],
               conflicts: Sequence[MemoryConflict]) -> Selection:
    """What the retrieval selected, as the log stores it."""
    return Selection(id=retrieval_id, selected_ids=[m.record.id for m in memories],
                conflict_keys=[c.key for c in conflicts],
                selected=[{"id": m.record.id, "score": m.score, "reason": m.reason,
                           "rank": i} for i, m in enumerate(memories)])
