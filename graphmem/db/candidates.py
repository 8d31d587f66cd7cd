"""Candidates answers (docs/spec/eligibility.md#eligible-and-active): the eligible, ACTIVE
records of a read with the conflicts among them, kept by :mod:`graphmem.db.eligibility` and
brought up to date by what changed (:meth:`CandidateList.changed`), and records and ids that say
how they were made from the answer before (:class:`CandidateRecords`), for the read path to
follow the change instead of passing over every candidate.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import count
from typing import Any

from graphmem.db.chunked import RUN, Chunked
from graphmem.models import MemoryRecord

__all__ = ["Candidate", "CandidateIds", "CandidateList", "CandidateRecords", "RecordsEdit",
           "with_conflicts"]


@dataclass(frozen=True)
class Candidate:
    """An eligible, ACTIVE record and the candidates it conflicts with (docs/spec/read-path.md)."""

    record: MemoryRecord
    conflict_ids: tuple[str, ...]


def with_conflicts(records: Sequence[MemoryRecord]) -> tuple[Candidate, ...]:
    """``records`` as candidates, each with the other records among them that assert its key
    with another value. Computed from the candidates alone, so a write costs the same however
    many records assert a key, and a partner the caller cannot see never shows."""
    by_key: dict[tuple[str, str], list[MemoryRecord]] = defaultdict(list)
    for r in records:
        if r.asserts is not None and r.asserted_value is not None:
            by_key[(r.tenant, r.asserts)].append(r)
    partners: dict[str, tuple[str, ...]] = {}
    for group in by_key.values():
        if len({r.asserted_value for r in group}) > 1:
            for r in group:
                partners[r.id] = tuple(sorted(o.id for o in group
                                              if o.asserted_value != r.asserted_value))
    return tuple(Candidate(record=r, conflict_ids=partners.get(r.id, ())) for r in records)


_TOKENS = count(1)  # next() on a count is atomic under the GIL

#: How a :class:`CandidateRecords` was made from an earlier one: (the earlier one's token, the
#: positions removed from it, the positions in this one of the records inserted), both sorted.
RecordsEdit = tuple[int, tuple[int, ...], tuple[int, ...]]


class CandidateRecords(Chunked[MemoryRecord]):
    """The records of a candidates answer, by id: a read-only sequence (its runs shared with the
    answers made from it: :class:`~graphmem.db.chunked.Chunked`) that also says which answer
    it is (:attr:`token`, never reused in a process) and, made by :meth:`CandidateList.changed`,
    how it differs from the earlier answer's records (:attr:`edit`), so that whoever prepared
    something for those (a ranker's index, a tie order) can bring it up to date by the change
    instead of a pass over every record. Holds no reference to the earlier records.

    Args:
        records: the records, in order; a :class:`~graphmem.db.chunked.Chunked` is held as it
            is (its runs shared, no copy).
        edit: how they were made from an earlier answer's records, or None.
        run: records per run when they are copied.
    """

    __slots__ = ("edit", "token")

    token: int
    edit: RecordsEdit | None

    def __init__(self, records: Iterable[MemoryRecord] = (), edit: RecordsEdit | None = None,
                 *, run: int = RUN) -> None:
        if isinstance(records, Chunked):
            self._share(records)
        else:
            super().__init__(records, run=run)
        self.token = next(_TOKENS)
        self.edit = edit

    def __reduce__(self) -> tuple[Any, ...]:
        # a token means something in this process only: a copy (or an unpickled one) is
        # another answer, made from none
        return (CandidateRecords, (tuple(self),))


class CandidateIds(Chunked[str]):
    """The ids of a candidates answer, sorted, with its records' :attr:`~CandidateRecords.token`
    and :attr:`~CandidateRecords.edit` (positions are the same in both). ``ids``: a
    :class:`~graphmem.db.chunked.Chunked` is held as it is (no copy)."""

    __slots__ = ("edit", "token")

    token: int
    edit: RecordsEdit | None

    def __init__(self, ids: Iterable[str], token: int, edit: RecordsEdit | None) -> None:
        if isinstance(ids, Chunked):
            self._share(ids)
        else:
            super().__init__(ids)
        self.token = token
        self.edit = edit

    def __reduce__(self) -> tuple[Any, ...]:
        # as CandidateRecords: a copy gets a token of its own and no edit
        return (CandidateIds, (tuple(self), next(_TOKENS), None))


@dataclass(frozen=True)
class CandidateList:
    """A candidates answer: candidates sorted by id, their ids (for bisection) and records, aligned;
    per (tenant, ``asserts`` key), the ids of the candidates asserting it; and the candidates that
    assert a key (:attr:`claims`, by id, with their ids in :attr:`claim_ids`:
    docs/spec/read-path.md, steps 4 and 6 involve only these). Never mutated: the sequences are
    shared by every read that reuses the answer, and :meth:`changed` makes the next answer from
    the change, sharing every run of them the change leaves alone (a read after a write costs
    the change, not the candidate set: :mod:`graphmem.db.chunked`)."""

    candidates: Chunked[Candidate]
    ids: Chunked[str]
    groups: dict[tuple[str, str], frozenset[str]]
    records: CandidateRecords  # handed to rankers: read-only
    claims: Chunked[Candidate]
    claim_ids: Chunked[str]

    @cached_property
    def id_tuple(self) -> CandidateIds:
        """:attr:`ids` that also say which answer they are and how they were made from the one
        before (the attribution log digests and diffs candidate sets by them). No copy."""
        return CandidateIds(self.ids, self.records.token, self.records.edit)

    @classmethod
    def of(cls, records: Sequence[MemoryRecord], *, run: int = RUN) -> CandidateList:
        """The answer for these candidate records (any order); ``run``: items per run of its
        sequences (:class:`~graphmem.db.chunked.Chunked`)."""
        found = with_conflicts(sorted(records, key=lambda r: r.id))
        groups: dict[tuple[str, str], set[str]] = defaultdict(set)
        for r in records:
            if r.asserts is not None:
                groups[(r.tenant, r.asserts)].add(r.id)
        claims = [c for c in found if c.record.asserts is not None]
        return cls(Chunked(found, run=run), Chunked([c.record.id for c in found], run=run),
                   {k: frozenset(v) for k, v in groups.items()},
                   CandidateRecords([c.record for c in found], run=run),
                   Chunked(claims, run=run), Chunked([c.record.id for c in claims], run=run))

    def changed(self, touched: set[str], records: Sequence[MemoryRecord]) -> CandidateList:
        """This answer after the records ``touched`` changed: those among them that are
        candidates now are ``records``. Only the ``asserts`` groups a touched record was or
        is in get their conflicts computed again; the result equals :meth:`of` the new
        records, and its :attr:`records` say how they differ from these (``edit``). Costs the
        change and the runs it touches (:meth:`~graphmem.db.chunked.Chunked.edited`), not a
        copy of every candidate."""
        ids, claim_ids = self.ids, self.claim_ids
        removed = sorted(at for rid in touched
                         if (at := ids.bisect_left(rid)) < len(ids) and ids[at] == rid)
        if not removed and not records:
            return self  # none of the touched records was or is a candidate
        groups = dict(self.groups)
        keys: set[tuple[str, str]] = set()
        claims_out: list[int] = []
        for at in removed:
            old = self.records[at]
            if old.asserts is not None:
                key = (old.tenant, old.asserts)
                keys.add(key)
                groups[key] = groups[key] - {old.id}
                claims_out.append(claim_ids.bisect_left(old.id))
        claims_out.sort()
        new = sorted(records, key=lambda r: r.id)
        joining = [Candidate(record=r, conflict_ids=()) for r in new]
        inserted = tuple(_place(ids, removed, r.id, j) for j, r in enumerate(new))
        new_claims = [c for c in joining if c.record.asserts is not None]
        claim_places = [_place(claim_ids, claims_out, c.record.id, j)
                        for j, c in enumerate(new_claims)]
        for r in new:
            if r.asserts is not None:
                key = (r.tenant, r.asserts)
                keys.add(key)
                groups[key] = groups.get(key, frozenset()) | {r.id}
        ids = ids.edited(removed, list(zip(inserted, (r.id for r in new), strict=True)))
        kept = self.records.edited(removed, list(zip(inserted, new, strict=True)))
        candidates = self.candidates.edited(removed, list(zip(inserted, joining, strict=True)))
        claims = self.claims.edited(claims_out, list(zip(claim_places, new_claims, strict=True)))
        claim_ids = claim_ids.edited(claims_out, [(q, c.record.id) for q, c
                                                  in zip(claim_places, new_claims, strict=True)])
        again: dict[int, Candidate] = {}
        again_claims: dict[int, Candidate] = {}
        for key in keys:
            members = sorted(groups.get(key, ()))
            where = [ids.bisect_left(rid) for rid in members]
            for at, c in zip(where, with_conflicts([candidates[i].record for i in where]),
                             strict=True):
                again[at] = c
                again_claims[claim_ids.bisect_left(c.record.id)] = c
            if not members:
                groups.pop(key, None)
        return CandidateList(candidates.replaced(again), ids, groups,
                             CandidateRecords(kept, (self.records.token, tuple(removed), inserted)),
                             claims.replaced(again_claims), claim_ids)


def _place(ids: Chunked[str], removed: Sequence[int], rid: str, j: int) -> int:
    """The position of ``rid``, the ``j``-th of the ids inserted (in order), in ``ids`` edited:
    those at ``removed`` (sorted) taken out, the inserted ones placed."""
    at = ids.bisect_left(rid)
    return at - bisect_left(removed, at) + j
