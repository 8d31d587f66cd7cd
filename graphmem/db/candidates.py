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


class CandidateRecords(tuple[MemoryRecord, ...]):
    """The records of a candidates answer, by id: a tuple that also says which answer it is
    (:attr:`token`, never reused in a process) and, made by :meth:`CandidateList.changed`, how
    it differs from the earlier answer's records (:attr:`edit`), so that whoever prepared
    something for those (a ranker's index, a tie order) can bring it up to date by the change
    instead of a pass over every record. Holds no reference to the earlier records."""

    token: int
    edit: RecordsEdit | None

    def __new__(cls, records: Iterable[MemoryRecord], edit: RecordsEdit | None = None
                ) -> CandidateRecords:
        made = super().__new__(cls, records)
        made.token = next(_TOKENS)
        made.edit = edit
        return made


class CandidateIds(tuple[str, ...]):
    """The ids of a candidates answer, sorted, with its records' :attr:`~CandidateRecords.token`
    and :attr:`~CandidateRecords.edit` (positions are the same in both)."""

    token: int
    edit: RecordsEdit | None

    def __new__(cls, ids: Iterable[str], token: int, edit: RecordsEdit | None
                ) -> CandidateIds:
        made = super().__new__(cls, ids)
        made.token = token
        made.edit = edit
        return made


@dataclass(frozen=True)
class CandidateList:
    """A candidates answer: candidates sorted by id, their ids (for bisection) and records, aligned;
    per (tenant, ``asserts`` key), the ids of the candidates asserting it; and the candidates that
    assert a key (:attr:`claims`, by id, with their ids in :attr:`claim_ids`:
    docs/spec/read-path.md, steps 4 and 6 involve only these). Never mutated: the lists are shared
    by every read that reuses the answer, and :meth:`changed` keeps them all up to date by the
    change (a read after a write costs the change, not the candidate set)."""

    candidates: list[Candidate]
    ids: list[str]
    groups: dict[tuple[str, str], frozenset[str]]
    records: CandidateRecords  # handed to rankers: a tuple, which none can change
    claims: list[Candidate]
    claim_ids: list[str]

    @cached_property
    def id_tuple(self) -> CandidateIds:
        """:attr:`ids` as a tuple that says which answer it is and how it was made from the
        one before (the attribution log digests and diffs candidate sets by it)."""
        return CandidateIds(self.ids, self.records.token, self.records.edit)

    @classmethod
    def of(cls, records: Sequence[MemoryRecord]) -> CandidateList:
        """The answer for these candidate records (any order)."""
        found = list(with_conflicts(sorted(records, key=lambda r: r.id)))
        groups: dict[tuple[str, str], set[str]] = defaultdict(set)
        for r in records:
            if r.asserts is not None:
                groups[(r.tenant, r.asserts)].add(r.id)
        claims = [c for c in found if c.record.asserts is not None]
        return cls(found, [c.record.id for c in found],
                   {k: frozenset(v) for k, v in groups.items()},
                   CandidateRecords(c.record for c in found), claims,
                   [c.record.id for c in claims])

    def changed(self, touched: set[str], records: Sequence[MemoryRecord]) -> CandidateList:
        """This answer after the records ``touched`` changed: those among them that are
        candidates now are ``records``. Only the ``asserts`` groups a touched record was or
        is in get their conflicts computed again; the result equals :meth:`of` the new
        records, and its :attr:`records` say how they differ from these (``edit``)."""
        removed = tuple(sorted(at for rid in touched
                               if (at := bisect_left(self.ids, rid)) < len(self.ids)
                               and self.ids[at] == rid))
        if not removed and not records:
            return self  # none of the touched records was or is a candidate
        candidates, ids, groups = list(self.candidates), list(self.ids), dict(self.groups)
        kept, claims, claim_ids = list(self.records), list(self.claims), list(self.claim_ids)
        keys: set[tuple[str, str]] = set()
        for rid in touched:
            at = bisect_left(ids, rid)
            if at < len(ids) and ids[at] == rid:
                old = candidates.pop(at).record
                del ids[at]
                del kept[at]
                if old.asserts is not None:
                    keys.add((old.tenant, old.asserts))
                    groups[(old.tenant, old.asserts)] -= {rid}
                    at = bisect_left(claim_ids, rid)
                    del claims[at]
                    del claim_ids[at]
        for r in records:
            at = bisect_left(ids, r.id)
            ids.insert(at, r.id)
            kept.insert(at, r)
            candidates.insert(at, Candidate(record=r, conflict_ids=()))
            if r.asserts is not None:
                keys.add((r.tenant, r.asserts))
                groups[(r.tenant, r.asserts)] = groups.get((r.tenant, r.asserts),
                                                           frozenset()) | {r.id}
                at = bisect_left(claim_ids, r.id)
                claim_ids.insert(at, r.id)
                claims.insert(at, candidates[bisect_left(ids, r.id)])
        for key in keys:
            members = sorted(groups.get(key, ()))
            where = [bisect_left(ids, rid) for rid in members]
            for at, c in zip(where, with_conflicts([candidates[i].record for i in where]),
                             strict=True):
                candidates[at] = c
                claims[bisect_left(claim_ids, c.record.id)] = c
            if not members:
                groups.pop(key, None)
        inserted = tuple(sorted(bisect_left(ids, r.id) for r in records))
        return CandidateList(candidates, ids, groups,
                             CandidateRecords(kept, (self.records.token, removed, inserted)),
                             claims, claim_ids)
