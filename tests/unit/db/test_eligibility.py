"""A candidates answer updated by a delta equals the one computed from scratch."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.eligibility import CandidateList, with_conflicts
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
       st.dictionaries(st.integers(0, 15), st.one_of(st.none(), fact), max_size=6))
def test_an_answer_updated_by_a_delta_equals_a_full_computation(
        before: dict[int, tuple[int | None, int]],
        change: dict[int, tuple[int | None, int] | None]) -> None:
    old = {i: rec(i, 0, k, v) for i, (k, v) in before.items()}
    previous = CandidateList.of([old[i] for i in sorted(old)])
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
