"""Eligibility and status (docs/spec/eligibility.md#eligible-and-active), decided in Cypher: the
candidates query with its reused-answer cache, and ``explain``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import Driver

from graphmem.db.access import ScopeQuery, decode_pairs
from graphmem.db.base import StoreBase
from graphmem.db.batches import Batches
from graphmem.db.candidates import (  # the answers' types, where the store's users find them
    Candidate,
    CandidateIds,
    CandidateList,
    CandidateRecords,
    RecordsEdit,
    with_conflicts,
)
from graphmem.db.codec import (
    DEFAULT_MAX_CONTENT_BYTES,
    Clock,
    record_from_props,
    to_native,
)
from graphmem.db.settings import DEFAULT_RETRY_TIME_S
from graphmem.db.slots import SLOTS
from graphmem.errors import (
    RecordNotFoundError,
    StoreError,
)
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Explanation, MemoryRecord, Principal, Sensitivity, Status

__all__ = ["Candidate", "CandidateIds", "CandidateList", "CandidateRecords", "Eligibility",
           "RecordsEdit", "caller_explanation", "with_conflicts"]


#: How long a delta read that missed a change waits before it reads again, in seconds, each
#: (a transaction's index entries show a moment after its store records).
GAP_WAITS_S = (0.002, 0.01)


class Eligibility(StoreBase):
    """Candidates and explain for a caller at a time; exact answers reused while they hold."""

    MAX_CACHED_RECORDS = 500_000
    MAX_CACHED_ANSWERS = 256
    MAX_READS = 8
    """How often a candidates answer is read again when records changed while it was read."""

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        clock: Clock = utc_now,
        retry_time_s: float = DEFAULT_RETRY_TIME_S,
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> None:
        super().__init__(driver, database=database, max_content_bytes=max_content_bytes,
                         clock=clock, retry_time_s=retry_time_s, limits=limits)
        # id -> ((fingerprint, rev), record): records rebuilt once per version (see candidates)
        self._records: dict[str, tuple[tuple[str, int], MemoryRecord]] = {}
        # (tenant, pairs, clearance) -> the last exact answer and when it stays exact
        self._answers: dict[tuple[str, tuple[str, ...], int], _Answer] = {}
        self._answers_lock = threading.Lock()
        #: how many candidates answers were reused and computed (tests and benchmarks)
        self.answer_stats: Counter[str] = Counter()
        #: per key, the version checks shared by reads waiting together (None: each read
        #: checks alone; :meth:`share_checks`)
        self._checks: dict[tuple[str, tuple[str, ...], int], Batches[_Check, _Checked]] | None
        self._checks = None

    def share_checks(self) -> None:
        """From now on, reads of one tenant, scope and clearance that check their reused
        answers at the same time share one ``candidates_delta`` read (:mod:`graphmem.db.batches`,
        for the async client, whose round trips one event loop thread carries): one sent after
        each of them arrived, so it sees every write committed before each began. A read whose
        answer it shows unchanged reuses it; any other reads again on its own."""
        self._checks = {}

    def candidates(
        self, principal: Principal, scope: dict[str, str], now: datetime
    ) -> list[Candidate]:
        """Eligible ACTIVE records for the caller (docs/spec/eligibility.md#eligible-and-active),
        by id: :meth:`candidate_list`'s candidates, as a list of the caller's own.

        Raises:
            as :meth:`candidate_list`.
        """
        return list(self.candidate_list(principal, scope, now).candidates)

    def candidate_list(
        self, principal: Principal, scope: dict[str, str], now: datetime
    ) -> CandidateList:
        """Eligible ACTIVE records for the caller (docs/spec/eligibility.md#eligible-and-active),
        as the answer itself (shared with every read that reuses it: never mutate it), whose ids,
        records and ``asserts`` groups the read path uses without a pass of its own.

        The answer of ``cypher/candidates.cypher`` is reused, without reading a record, while it is
        provably the same: every Scope the query scope sees still has the version (``epoch``,
        ``rev``, and the ``epoch`` and ``seq`` of each of its write slots) it had when the answer
        was computed (every query that changes, creates or erases a record bumps its ScopeVersion's
        ``rev``, or, a policy write, its write slot's ``seq``; ``tests/unit/db/test_catalogue.py``
        checks that), and ``now`` lies between the same two validity boundaries
        (``created_at``/``valid_from``/``expires_at`` of the records in those scopes: a record
        created after ``now`` is NOT_YET_VALID, docs/spec/status.md#not-yet-valid).
        Checking costs an index seek over the tenant's Scope nodes and their write slots, in
        ``cypher/candidates_delta.cypher``, which also reads what changed when a version moved
        (:meth:`_delta`).

        Args:
            principal: who asks (tenants and clearance).
            scope: the query scope, e.g. ``{"tenant": "acme", "project": "p1"}``.
            now: timezone-aware UTC time at which eligibility is decided.

        Raises:
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
            ValidationError, NaiveDatetimeError: malformed scope or ``now``.
            StoreError: the scope's records changed during each of :attr:`MAX_READS` reads
                (a record is returned only in the state its eligibility was decided on).
        """
        return self.candidates_within(ScopeQuery.build(principal, scope, now, self.limits))

    def candidates_within(self, reach: ScopeQuery) -> CandidateList:
        """:meth:`candidate_list` for a read authorized already: ``reach`` is its principal,
        confined query scope and time (:meth:`graphmem.db.access.Access.authorize`).

        Raises:
            StoreError: as :meth:`candidate_list`.
        """
        sq = reach
        params = sq.params()
        key = (params["tenant"], tuple(params["pairs"]), params["clearance"])
        answer = self._answers.get(key)
        if answer is not None and answer.holds_at(sq.now):
            updated = self._delta(key, answer, params)
            if updated is not None:
                return updated
        for _ in range(self.MAX_READS):
            self.answer_stats["computed"] += 1
            row = self.read_values("candidates", slots=SLOTS, **params)[0]
            ids = row["ids"]
            if self._fetch_decided(ids, row["fingerprints"], row["revs"]):
                break
        else:
            raise StoreError(f"the records of scope {sq.scope!r} changed during each of "
                             f"{self.MAX_READS} reads; try again")
        cache = self._records
        found = CandidateList.of([cache[rid][1] for rid in ids if rid in cache])
        if len(found.ids) == len(ids):  # else a record changed mid-read: do not reuse this
            with self._answers_lock:
                while len(self._answers) >= self.MAX_CACHED_ANSWERS:
                    self._answers.pop(next(iter(self._answers)))
                self._answers[key] = _Answer(
                    versions=_versions(row["versions"]),
                    lo=_bound(max, row["lo_from"], row["lo_expiry"], row["lo_created"]),
                    hi=_bound(min, row["hi_from"], row["hi_expiry"], row["hi_created"]),
                    candidates=found,
                )
        return found

    def _fetch_decided(self, ids: list[str], fingerprints: list[str], revs: list[int]
                       ) -> bool:
        """Cache the records ``candidates.cypher`` decided on, at the versions it decided on.

        Records the cache lacks at that (fingerprint, rev) are read in a second query; one
        that changed in between (a retraction or write by another client committed after the
        eligibility decision, so its properties are no longer the ones decided on) makes the
        answer unusable: False, and the caller reads again. Every query that changes a
        record bumps its ``rev``, so an equal version is the state that was decided on.
        """
        cache = self._records
        decided = {rid: (fp, int(rev)) for rid, fp, rev in zip(ids, fingerprints, revs,
                                                                 strict=True)}
        stale = [rid for rid, v in decided.items() if cache.get(rid, ((None, -1),))[0] != v]
        if not stale:
            return True
        if len(cache) + len(stale) > self.MAX_CACHED_RECORDS:
            cache.clear()
            stale = list(ids)  # every candidate must be rebuilt after a clear
        fetched = self.get_props(stale)
        consistent = len(fetched) == len(stale)
        for rid, props in fetched.items():
            # a tombstone (erased in between) has no fingerprint, and a new rev
            version = (props.get("fingerprint"), int(props.get("rev") or 0))
            if version != decided[rid]:
                consistent = False
            elif not props.get("erased"):
                cache[rid] = (decided[rid], record_from_props(props))
        return consistent

    def _delta(self, key: tuple[str, tuple[str, ...], int], answer: _Answer,
               params: dict[str, Any]) -> CandidateList | None:
        """Bring a cached answer up to date from what changed since it was computed
        (``cypher/candidates_delta.cypher``): the records the visible scopes stamped since
        its versions, and their predecessors, decided again in Cypher; the rest is kept.

        Returns None (compute in full) when an epoch moved or a known scope vanished, or
        when a rev or seq the versions moved by has no record among those found, again after
        :data:`GAP_WAITS_S` (a writer whose index entries were not visible yet has finished by
        then; a gap that stays is a change restamped or deleted since, or stamped by an older
        client: :func:`_found_every_change`); the cached answer itself when no version moved
        (the query then reads no record: one index seek over the tenant's Scope nodes, and
        one round trip either way).
        """
        known = [[k, e, r, [list(w) for w in ws]] for k, e, r, ws in answer.versions]
        shared = self._shared_check(key, answer, known, params)
        for wait in (*GAP_WAITS_S, None):
            row = shared or self.read_once("candidates_delta", known=known, slots=SLOTS,
                                           **params)[0]
            shared = None
            versions = _versions(row["versions"])
            if versions == answer.versions:
                self.answer_stats["reused"] += 1
                return answer.candidates
            if not _same_epochs(answer.versions, versions):
                return None
            if _found_every_change(answer.versions, versions, [d[5] for d in row["decided"]]):
                break
            if wait is None:
                return None
            self.answer_stats["gap"] += 1
            time.sleep(wait)
        cache = self._records
        touched = {d[0] for d in row["decided"]}
        wanted = {rid: ((fp, int(rev)), props)
                  for rid, active, fp, rev, props, _ in row["decided"] if active}
        if any((p.get("fingerprint"), int(p.get("rev") or 0)) != v for v, p in wanted.values()):
            return None  # a record changed while this query read it: compute in full
        stale = [(rid, v, props) for rid, (v, props) in wanted.items()
                 if cache.get(rid, ((None, -1),))[0] != v]
        if len(cache) + len(stale) > self.MAX_CACHED_RECORDS:
            return None
        for rid, version, props in stale:  # read in the same query: consistent
            cache[rid] = (version, record_from_props(props))
        found = answer.candidates.changed(touched, [cache[rid][1] for rid in wanted])
        self.answer_stats["delta"] += 1
        lo = _bound(max, answer.lo, row["lo_from"], row["lo_expiry"], row["lo_created"])
        hi = _bound(min, answer.hi, row["hi_from"], row["hi_expiry"], row["hi_created"])
        with self._answers_lock:
            self._answers[key] = _Answer(versions=versions, lo=lo, hi=hi, candidates=found)
        return found

    def _shared_check(self, key: tuple[str, tuple[str, ...], int], answer: _Answer,
                      known: list[Any], params: dict[str, Any]) -> dict[str, Any] | None:
        """The ``candidates_delta`` row of a read shared with the reads of ``key`` waiting
        beside this one, when this read may use it: it was read with this read's own
        parameters, or it shows ``answer`` unchanged (then only its versions are used). None:
        not shared, or not usable here (the caller reads on its own)."""
        if self._checks is None:
            return None
        with self._answers_lock:
            if len(self._checks) >= self.MAX_CACHED_ANSWERS and key not in self._checks:
                self._checks.clear()
            group = self._checks.setdefault(key, Batches(self._check_together))
        mine: _Check = (known, params)
        got = group.submit(mine)
        if got is None:  # the shared read failed: this read meets its own error alone
            return None
        row, sent = got
        if sent is mine or _versions(row["versions"]) == answer.versions:
            return row
        return None

    def _check_together(self, batch: Sequence[_Check]) -> list[_Checked]:
        """One ``candidates_delta`` read for a batch of waiting reads, with the first one's
        parameters; the row, and whose parameters it was read with, for each."""
        known, params = batch[0]
        row = self.read_once("candidates_delta", known=known, slots=SLOTS, **params)[0]
        return [(row, batch[0])] * len(batch)

    def forget_answers(self) -> None:
        """Drop every reused candidates answer (the next call of each computes it again, as
        after a write to its scope); for benchmarks and memory pressure, never needed for
        correctness."""
        with self._answers_lock:
            self._answers.clear()

    def explain(
        self, record_id: str, principal: Principal, scope: dict[str, str], now: datetime
    ) -> Explanation:
        """Why ``record_id`` is or is not retrievable for this caller now (docs/spec/status.md).

        Raises:
            RecordNotFoundError: no record with this id (erased ones explain as ERASED).
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
        """
        sq = ScopeQuery.build(principal, scope, now, self.limits)
        rows = self.read("explain", id=record_id, **sq.params())
        if not rows:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        row = rows[0]
        status = Status(row["status"])
        if not principal.reaches(row["tenant"], Sensitivity.from_rank(row["rank"]),
                                 decode_pairs(row["pairs"])):
            return caller_explanation(record_id, Status.UNAUTHORIZED, principal)
        successors = tuple(sorted(row["successors"])) if status is Status.SUPERSEDED else ()
        detail = (_not_yet_detail(row["not_yet"]) if status is Status.NOT_YET_VALID
                  else _detail(status, successors, principal.clearance))
        return Explanation(record_id=record_id, status=status, successor_ids=successors,
                           detail=detail)


@dataclass(frozen=True)
class _Answer:
    """A candidates answer and the conditions under which it is still exact: the visible
    Scopes' versions are unchanged and ``lo <= now < hi`` (None: unbounded)."""

    versions: tuple[Version, ...]
    lo: datetime | None
    hi: datetime | None
    candidates: CandidateList

    def holds_at(self, now: datetime) -> bool:
        return (self.lo is None or self.lo <= now) and (self.hi is None or now < self.hi)


#: A version check waiting to be sent: the versions its answer knows and its parameters;
#: and what it gets back: the row read, and the check whose parameters it was read with.
_Check = tuple[list[Any], dict[str, Any]]
_Checked = tuple[dict[str, Any], _Check]

#: A visible Scope's version: (key, epoch, rev, write slots as (index, epoch, seq) in index
#: order), from candidates.cypher (see its header).
Version = tuple[str, str, int, tuple[tuple[int, str, int], ...]]


def _versions(rows: list[list[Any]]) -> tuple[Version, ...]:
    return tuple(sorted(
        (str(k), str(e), int(r), tuple(sorted((int(i), str(se), int(q)) for i, se, q in w)))
        for k, e, r, w in rows))


def _same_epochs(known: tuple[Version, ...], now: tuple[Version, ...]) -> bool:
    """True if every scope and write slot ``known`` has is the same node now: its epoch has not
    changed (a slot that did not exist then, epoch '', may have been created since)."""
    scopes = {v[0]: v for v in now}
    for key, epoch, _, wslots in known:
        current = scopes.get(key)
        if current is None or current[1] != epoch:
            return False
        epochs = {i: e for i, e, _ in current[3]}
        if any(e and epochs.get(i) != e for i, e, _ in wslots):
            return False
    return True


def _found_every_change(known: tuple[Version, ...], now: tuple[Version, ...],
                        stamps: list[list[Any]]) -> bool:
    """True if a delta read found a record for every rev and every write slot seq that its
    scopes moved by since ``known`` (``stamps``: each touched record's ``[sepoch, stamp,
    wepoch, wseq]``). Each is stamped on one record when bumped, and a version's bumps are
    serialized by its lock until their transactions close, so all were found unless the last
    bump's index entries were not visible yet (Neo4j makes them visible after its store
    records) or a later change restamped or deleted its record: either way the delta is not
    exact, and the caller computes in full. Scopes new to ``known`` are read in full."""
    revs: dict[str, set[int]] = {}
    seqs: dict[str, set[int]] = {}
    for sepoch, stamp, wepoch, wseq in stamps:
        if sepoch is not None and stamp is not None:
            revs.setdefault(sepoch, set()).add(int(stamp))
        if wepoch is not None and wseq is not None:
            seqs.setdefault(wepoch, set()).add(int(wseq))
    before = {v[0]: v for v in known}
    for key, epoch, rev, wslots in now:
        old = before.get(key)
        if old is None:
            continue
        if rev > old[2] and not revs.get(epoch, set()).issuperset(range(old[2] + 1, rev + 1)):
            return False
        had = {i: (e, q) for i, e, q in old[3]}
        for i, wepoch, seq in wslots:
            e, q = had.get(i, ("", 0))
            since = q if e == wepoch else 0
            if seq > since and not seqs.get(wepoch, set()).issuperset(range(since + 1, seq + 1)):
                return False
    return True


def _bound(pick: Callable[[list[datetime]], datetime], *values: Any) -> datetime | None:
    present = [to_native(v) for v in values if v is not None]
    return pick(present) if present else None


def _not_yet_detail(reasons: list[str]) -> str:
    """Which half of docs/spec/status.md#not-yet-valid holds (created, valid_from)."""
    parts = {"created": "created after now: the memory did not exist yet at that time",
             "valid_from": "its valid_from is still in the future"}
    return "; ".join(parts[r] for r in reasons)


def caller_explanation(record_id: str, status: Status, principal: Principal) -> Explanation:
    """The answer ``explain`` gives for a status that depends on the caller alone
    (UNAUTHORIZED: out of ``principal``'s reach; OUT_OF_SCOPE), the same for a record, a
    discarded proposal or, out of reach to a bound caller, no such id
    (docs/spec/eligibility.md#confinement): no successor, nothing of whose it is."""
    return Explanation(record_id=record_id, status=status,
                       detail=_detail(status, (), principal.clearance))


def _detail(status: Status, successors: tuple[str, ...], clearance: Sensitivity) -> str:
    return {
        Status.UNAUTHORIZED: "out of the caller's reach: another tenant's or scope's record, "
                             f"or its sensitivity is above clearance {clearance.value}",
        Status.OUT_OF_SCOPE: "its scope names a key/value the query scope does not match",
        Status.QUARANTINED: "held for audit by the write policy; only an explicit review "
                            "promotes it",
        Status.PENDING_RECOMPUTE: "derived from erased content; ineligible until recomputed",
        Status.ERASED: "erased by a deletion request; only a content-free tombstone remains",
        Status.RETRACTED: "retracted (tombstone)",
        Status.NOT_YET_VALID: "its valid_from is still in the future",
        Status.EXPIRED: "its expires_at has passed",
        Status.SUPERSEDED: f"superseded by {', '.join(successors)}",
        Status.ACTIVE: "eligible and active",
    }[status]
