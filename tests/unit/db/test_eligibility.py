"""A candidates answer updated by a delta equals the one computed from scratch."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from neo4j import Driver

from graphmem.db.eligibility import CandidateList, Eligibility, _Answer, with_conflicts
from graphmem.models import MemoryKind, MemoryRecord
from tests.support.sizes import size

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(i: int, version: int, key: int | None, value: int) -> MemoryRecord:
    return MemoryRecord(id=f"r{i:02d}", kind=MemoryKind.SEMANTIC, content=f"c{i} v{version}",
                        created_at=T0, scope={"tenant": "t"}, provenance={"source": "test"},
                        asserts=None if key is None else f"k{key}",
                        asserted_value=None if key is None else f"v{value}")


fact = st.tuples(st.one_of(st.none(), st.integers(0, 2)), st.integers(0, 2))


@settings(max_examples=size(100, 200), deadline=None)
@given(st.dictionaries(st.integers(0, 15), fact, max_size=16),
       st.dictionaries(st.integers(0, 15), st.one_of(st.none(), fact), max_size=6),
       st.integers(1, 4))
def test_an_answer_updated_by_a_delta_equals_a_full_computation(
        before: dict[int, tuple[int | None, int]],
        change: dict[int, tuple[int | None, int] | None], run: int) -> None:
    """Also when the answer's sequences are held as many short runs (``run``), each edit
    touching some and sharing the rest."""
    old = {i: rec(i, 0, k, v) for i, (k, v) in before.items()}
    previous = CandidateList.of([old[i] for i in sorted(old)], run=run)
    new = dict(old)
    for i, what in change.items():  # None: the record left the candidates
        if what is None:
            new.pop(i, None)
        else:
            new[i] = rec(i, 1, *what)
    records = [new[i] for i in sorted(new)]
    touched = {f"r{i:02d}" for i in change}
    got = previous.changed(touched, [new[i] for i in change if i in new])
    assert got == CandidateList.of(records)
    assert got.candidates == list(with_conflicts(records))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 15), fact, max_size=16),
       st.lists(st.dictionaries(st.integers(0, 15), st.one_of(st.none(), fact), max_size=6),
                min_size=1, max_size=4), st.integers(1, 4))
def test_a_changed_answer_says_how_its_records_differ(
        before: dict[int, tuple[int | None, int]],
        changes: list[dict[int, tuple[int | None, int] | None]], run: int) -> None:
    """Each answer made by a delta names the answer it was made from (its records' token) and
    the positions removed from those records and inserted in its own: the kept records, in
    order, are the earlier ones without the removed positions; its ids carry the same edit."""
    current = {i: rec(i, 0, k, v) for i, (k, v) in before.items()}
    answer = CandidateList.of([current[i] for i in sorted(current)], run=run)
    assert answer.records.edit is None
    for version, change in enumerate(changes, start=1):
        for i, what in change.items():
            if what is None:
                current.pop(i, None)
            else:
                current[i] = rec(i, version, *what)
        made = answer.changed({f"r{i:02d}" for i in change},
                              [current[i] for i in change if i in current])
        if made is answer:  # no touched record was or is a candidate: the answer stands
            assert not any(f"r{i:02d}" in answer.ids or i in current for i in change)
            continue
        token, removed, inserted = made.records.edit or (None, (), ())
        assert token == answer.records.token != made.records.token
        assert list(removed) == sorted(set(removed)) and list(inserted) == sorted(set(inserted))
        kept = [r for at, r in enumerate(answer.records) if at not in removed]
        assert [r for at, r in enumerate(made.records) if at not in inserted] == kept
        assert all(made.records[at] is current[int(made.records[at].id[1:])] for at in inserted)
        assert made.id_tuple == tuple(made.ids) and made.id_tuple.edit == made.records.edit
        assert made == CandidateList.of(list(current.values()))
        answer = made


class _OneRow(Eligibility):
    """An Eligibility whose delta query answers ``row`` (no database)."""

    def __init__(self, row: dict[str, Any]) -> None:
        super().__init__(cast(Driver, None))
        self.row = row

    def read_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        assert name == "candidates_delta"
        return [self.row]


BOUNDS = dict.fromkeys(("lo_from", "lo_expiry", "lo_created", "hi_from", "hi_expiry",
                        "hi_created"))


def _delta(known: tuple[Any, ...], now: list[Any],
           decided: list[list[Any]]) -> CandidateList | None:
    answer = _Answer(versions=known, lo=None, hi=None,
                     candidates=CandidateList.of([rec(i, 0, None, 0) for i in range(6)]))
    store = _OneRow({"versions": now, "decided": decided, **BOUNDS})
    return store._delta(("t", (), 0), answer, {})


def _gone(i: int, stamps: list[Any]) -> list[Any]:
    """A record the delta read found and decided not a candidate, with its stamps."""
    return [f"r{i:02d}", False, None, 1, None, stamps]


def test_a_delta_missing_a_rev_of_its_scope_is_not_kept() -> None:
    """A scope's version moved from rev 3 to 5: the records stamped 4 and 5 must both be
    found (one was not visible yet: its change would be lost once the version is kept)."""
    known = (("s", "e", 3, ((0, "w", 2),)),)
    now = [["s", "e", 5, [[0, "w", 2]]]]
    both = _delta(known, now, [_gone(1, ["e", 4, None, None]), _gone(2, ["e", 5, None, None])])
    assert both is not None and both.ids == ["r00", "r03", "r04", "r05"]
    assert _delta(known, now, [_gone(2, ["e", 5, None, None])]) is None
    assert _delta(known, now, [_gone(1, ["e", 4, None, None])]) is None
    # a stamp of another scope's epoch is not this one's
    assert _delta(known, now, [_gone(1, ["x", 4, None, None]),
                               _gone(2, ["e", 5, None, None])]) is None


def test_a_delta_missing_a_seq_of_a_write_slot_is_not_kept() -> None:
    """Slot 0 moved from seq 2 to 4 and slot 1, created since (no epoch then), to 1: each seq
    is one new record, and every one must be found."""
    known = (("s", "e", 3, ((0, "w", 2), (1, "", 0))),)
    now = [["s", "e", 3, [[0, "w", 4], [1, "v", 1]]]]
    found = [_gone(1, ["e", 3, "w", 3]), _gone(2, [None, None, "w", 4]),
             _gone(3, [None, None, "v", 1])]
    assert _delta(known, now, found) is not None
    for left_out in range(3):
        assert _delta(known, now, found[:left_out] + found[left_out + 1:]) is None
    # the same seq under another slot's epoch is not this slot's
    assert _delta(known, now, [found[0], _gone(2, [None, None, "v", 4]), found[2]]) is None
