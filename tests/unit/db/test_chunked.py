"""A Chunked sequence behaves as the list it stands for, through any edits, and an edit
shares the runs it leaves alone (docs/performance.md#what-makes-the-loop-cheap)."""

from __future__ import annotations

import copy
import pickle
from bisect import bisect_left
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.candidates import CandidateList
from graphmem.db.chunked import Chunked
from graphmem.models import MemoryKind, MemoryRecord
from tests.support.sizes import size


@st.composite
def an_edit(draw: st.DrawFn, n: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Positions removed from a sequence of ``n`` and ``(position in the result, item)``
    inserted, as :meth:`Chunked.edited` takes them."""
    removed = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)) if n else set())
    left = n - len(removed)
    k = draw(st.integers(0, 6))
    places = sorted(draw(st.sets(st.integers(0, left + k - 1), min_size=k, max_size=k))
                    if k else set())
    items = draw(st.lists(st.integers(-50, 50), min_size=len(places), max_size=len(places)))
    return removed, list(zip(places, items, strict=True))


def _record(i: int) -> MemoryRecord:
    return MemoryRecord(id=f"r{i}", kind=MemoryKind.EPISODIC, content=f"c{i}",
                        created_at=datetime(2026, 1, 1, tzinfo=UTC), scope={"tenant": "t"},
                        provenance={"source": "test"})


def applied(model: list[int], removed: list[int], inserted: list[tuple[int, int]]
            ) -> list[int]:
    out = [x for i, x in enumerate(model) if i not in set(removed)]
    for at, item in inserted:
        out.insert(at, item)
    return out


def _well_formed(seq: Chunked[int], run: int) -> None:
    assert all(seq.runs) and all(len(r) <= 2 * run for r in seq.runs)
    assert len(seq) == sum(map(len, seq.runs))


@settings(max_examples=size(200, 500), deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=40), st.integers(1, 5), st.data())
def test_edits_give_what_the_list_gives(items: list[int], run: int, data: st.DataObject
                                        ) -> None:
    seq, model = Chunked(items, run=run), list(items)
    for _ in range(data.draw(st.integers(1, 5))):
        removed, inserted = data.draw(an_edit(len(model)))
        seq, model = seq.edited(removed, inserted), applied(model, removed, inserted)
        assert seq == model and list(seq) == model and len(seq) == len(model)
        assert [seq[i] for i in range(len(model))] == model
        assert [seq[-i] for i in range(1, len(model) + 1)] == [model[-i] for i in
                                                            range(1, len(model) + 1)]
        assert list(reversed(seq)) == model[::-1]
        _well_formed(seq, run)
        if model:
            changes = data.draw(st.dictionaries(st.integers(0, len(model) - 1),
                                                st.integers(-50, 50), max_size=4))
            seq = seq.replaced(changes)
            for at, item in changes.items():
                model[at] = item
            assert seq == model
            _well_formed(seq, run)


@settings(max_examples=size(200, 500), deadline=None)
@given(st.lists(st.integers(0, 30), max_size=60), st.integers(1, 6), st.integers(-1, 32))
def test_bisection_finds_where_bisect_does(items: list[int], run: int, probe: int) -> None:
    ordered = sorted(items)
    assert Chunked(ordered, run=run).bisect_left(probe) == bisect_left(ordered, probe)


def test_an_edit_shares_the_runs_it_leaves_alone() -> None:
    seq = Chunked(range(10_000), run=100)
    edited = seq.edited([5_000], [(9_999, -1)])
    assert edited[5_000] == 5_001 and edited[9_999] == -1 and len(edited) == 10_000
    shared = sum(1 for a, b in zip(seq.runs, edited.runs, strict=False) if a is b)
    assert shared == len(seq.runs) - 2  # only the two runs the edit touched are new
    replaced = edited.replaced({0: 7})
    assert replaced.runs[1:] == edited.runs[1:] and all(
        a is b for a, b in zip(replaced.runs[1:], edited.runs[1:], strict=True))


def test_slices_equality_and_bad_positions() -> None:
    seq = Chunked(range(10), run=3)
    assert seq[2:7] == (2, 3, 4, 5, 6) and seq[::3] == (0, 3, 6, 9) and seq[8:2] == ()
    assert seq == tuple(range(10)) and seq != list(range(9)) and seq != "0123456789"
    with pytest.raises(IndexError):
        seq[10]
    with pytest.raises(IndexError):
        seq.edited([10], [])
    with pytest.raises(IndexError):
        seq.edited([], [(11, 0)])
    with pytest.raises(IndexError):
        seq.replaced({-1: 0})
    assert hash(seq) == hash(tuple(range(10)))  # a trace holding it stays hashable
    empty: Chunked[int] = Chunked([], run=4)
    assert empty.edited([], [(0, 1), (1, 2)]) == [1, 2]


def test_a_copy_of_an_answer_is_another_answer() -> None:
    """A token means something in one process only: a pickled (or copied) answer's records and
    ids get a token of their own and no edit, so no cache keyed by token takes them for the
    answer they were copied from (in another process, that token may name another set)."""
    answer = CandidateList.of([_record(i) for i in range(5)])
    made = answer.changed({"r1"}, [])
    for seq in (made.records, made.id_tuple):
        for copy_ in (pickle.loads(pickle.dumps(seq)), copy.copy(seq), copy.deepcopy(seq)):
            assert copy_ == seq and type(copy_) is type(seq)
            assert copy_.token != seq.token and copy_.edit is None
    chunked = pickle.loads(pickle.dumps(Chunked(range(7), run=2)))
    assert chunked == list(range(7)) and type(chunked) is Chunked
