"""What the model is shown about conflicts (docs/spec/read-path.md, steps 7-8): each conflict group
shown is marked with its key and what each side says, and a group left out over budget
leaves a note, within the budget, that an unresolved conflict on that key was left out.
Pure logic, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.models import MemoryKind, MemoryRecord
from graphmem.read.budget import fit_context, fit_to_budget
from graphmem.read.notes import conflict_note, omitted_note
from graphmem.read.steps import (
    SEPARATOR,
    RetrievedMemory,
    conflict_components,
    detect_conflicts,
    preserve_conflict_partners,
    render_memory,
)
from tests.support.sizes import size

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rec(rid: str, content: str, key: str | None = None, value: str | None = None
        ) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, created_at=T0, scope={"tenant": "t"},
                        content=content, asserts=key, asserted_value=value)


REFUND = [rec("m1", "refunds above 500 EUR need approval", "refund_threshold", "500"),
          rec("m2", "refunds above 1000 EUR need approval", "refund_threshold", "1000"),
          rec("m3", "the office opens at nine")]


def ranked(records: list[MemoryRecord]) -> list[RetrievedMemory]:
    return [RetrievedMemory(r, 10.0 - i, "r") for i, r in enumerate(records)]


def test_a_conflict_group_shown_is_marked_with_what_each_side_says() -> None:
    conflicts = detect_conflicts(REFUND)
    fit = fit_context(ranked(REFUND), budget_chars=4000, conflicts=conflicts)
    assert [m.record.id for m in fit.chosen] == ["m1", "m2", "m3"]
    assert "Conflict on `refund_threshold`: m1 says 500, m2 says 1000" in fit.rendered
    # the note follows its group, before the next memory
    assert fit.rendered.index("Conflict on") < fit.rendered.index("Memory ID: m3")
    assert len(fit.rendered) <= 4000 and fit.over == ()


def test_a_conflict_group_left_out_says_so_within_the_budget() -> None:
    conflicts = detect_conflicts(REFUND)
    memories = ranked(REFUND)
    one = len(render_memory(memories[2]))
    note = omitted_note("refund_threshold")
    budget = one + len(SEPARATOR) + len(note)
    fit = fit_context(memories, budget_chars=budget, conflicts=conflicts)
    assert [m.record.id for m in fit.chosen] == ["m3"] and set(fit.over) == {"m1", "m2"}
    assert "Unresolved conflict on `refund_threshold` left out" in fit.rendered
    assert len(fit.rendered) <= budget
    # the note holds its place: the budget that fits the note alone keeps it, not m3
    fit = fit_context(memories, budget_chars=len(note), conflicts=conflicts)
    assert fit.blocks == (note,) and fit.chosen == ()
    # too small even for the note: nothing, and nothing over the budget
    assert fit_context(memories, budget_chars=len(note) - 1, conflicts=conflicts).blocks == ()
    # fit_to_budget chooses the same memories
    chosen, over = fit_to_budget(memories, budget_chars=budget, conflicts=conflicts)
    assert [m.record.id for m in chosen] == ["m3"] and set(over) == {"m1", "m2"}


def test_the_left_out_note_comes_before_a_better_ranked_memory() -> None:
    """A memory ranked above a conflict group cannot take the room of the note that says
    the group was left out (the group itself still goes first by score only)."""
    conflicts = detect_conflicts(REFUND)
    memories = ranked([REFUND[2], REFUND[0], REFUND[1]])  # m3 first
    note = omitted_note("refund_threshold")
    budget = len(render_memory(memories[0])) + len(SEPARATOR) + len(note)
    for tight in (budget, budget - 1):
        fit = fit_context(memories, budget_chars=tight, conflicts=conflicts)
        assert note in fit.blocks and len(fit.rendered) <= tight
        assert [m.record.id for m in fit.chosen] == (["m3"] if tight == budget else [])


def test_notes_name_the_key_and_each_side() -> None:
    assert conflict_note("k", [("a", "1"), ("b", "2")]).startswith(
        "Conflict on `k`: a says 1, b says 2")
    assert "`k`" in omitted_note("k") and "left out" in omitted_note("k")


@st.composite
def candidate_sets(draw: st.DrawFn) -> list[MemoryRecord]:
    n = draw(st.integers(0, 12))
    out = []
    for i in range(n):
        keyed = draw(st.booleans())
        out.append(rec(f"m{i}", draw(st.text(alphabet="abc xyz\n", min_size=1, max_size=300)),
                       draw(st.sampled_from(["k1", "k2", "k3"])) if keyed else None,
                       draw(st.sampled_from(["1", "2", "3"])) if keyed else None))
    return out


@settings(max_examples=size(150, 400), deadline=None)
@given(records=candidate_sets(), data=st.data(), budget=st.integers(0, 3000))
def test_the_text_never_exceeds_the_budget_and_names_every_conflict(
        records: list[MemoryRecord], data: st.DataObject, budget: int) -> None:
    conflicts = detect_conflicts(records)
    kept = data.draw(st.sets(st.sampled_from([r.id for r in records]))
                     if records else st.just(set()))
    memories = preserve_conflict_partners(
        [RetrievedMemory(r, data.draw(st.floats(0.01, 10)), "r") for r in records
         if r.id in kept], records, conflicts)
    fit = fit_context(memories, budget_chars=budget, conflicts=conflicts)
    text = fit.rendered
    assert len(text) <= budget
    chosen = {m.record.id for m in fit.chosen}
    assert chosen | set(fit.over) == {m.record.id for m in memories}
    components = conflict_components(conflicts)
    present = {m.record.id for m in memories}
    every_note = sum(len(omitted_note(c.key)) + len(SEPARATOR) for c in conflicts
                     if set(c.record_ids) & present)
    for rid in chosen:
        assert components.get(rid, frozenset({rid})) & {m.record.id for m in memories} <= chosen
    for c in conflicts:
        shown = [i for i in c.record_ids if i in chosen]
        left_out = [i for i in c.record_ids if i in fit.over]
        if shown:  # the group is shown: marked, with each side shown
            assert f"Conflict on `{c.key}`: " in text
            for i in shown:
                assert f"{i} says " in text
        elif left_out and every_note <= budget + len(SEPARATOR):
            assert omitted_note(c.key) in fit.blocks  # left out: said so
    # every block is a memory shown or a note
    memories_shown = [b for b in fit.blocks if b.startswith("Memory ID: ")]
    assert len(memories_shown) == len(fit.chosen)
