"""Conflict resolution (graphmem.read.resolution) reports a genuine ambiguity."""

from __future__ import annotations

from datetime import timedelta

from graphmem.read.resolution import resolve_conflict
from graphmem.read.steps import MemoryConflict
from tests.support.ranking import T0, rec


def test_resolution_reports_a_genuine_ambiguity() -> None:
    a = rec("a", asserts="k", asserted_value="1")
    b = rec("b", asserts="k", asserted_value="2")
    conflict = MemoryConflict("k", ("a", "b"), ("1", "2"))
    out = resolve_conflict(conflict, {"a": a, "b": b})
    assert out.ambiguous and set(out.winner_ids) == {"a", "b"}
    newer = rec("b", asserts="k", asserted_value="2", valid_from=T0 + timedelta(days=1))
    assert resolve_conflict(conflict, {"a": a, "b": newer}).value == "2"


