"""A saved plan whose dispositions contradict the lineage and the ways it records is refused
on load, even when it carries the digest of its edited content (a plain SHA-256, which
anyone can write): docs/spec/deletion.md#dispositions, #plan-format.

A root is DELETE, a citing procedure QUARANTINE, a record that only mentions a term
REDACT (holding a term); DELETE is only a root's or a lineage descendant's (all of whose
parents go), QUARANTINE only a procedure's. A plan edited otherwise (a mentioning record
made DELETE: erased without its own descendants walked) used to load and apply as edited.
Left: a lineage descendant all of whose parents go, edited to RECOMPUTE (telling it from a
descendant in or below a lineage cycle needs the plan's lineage decided again).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.deletion import DeletionPlan
from graphmem.deletion.columns import PlanColumns
from graphmem.errors import DeletionError


def _plan() -> DeletionPlan:
    """a (root) <- b (every parent goes: DELETE) and c (z survives: RECOMPUTE); m mentions
    the term; q, a procedure, cites a."""
    columns = PlanColumns.build(
        ids=["a", "b", "c", "q", "m"], nodes="rrrrr",
        kinds=["semantic", "semantic", "semantic", "procedural", "semantic"],
        dispositions="DDCQR", vias="rllcm", depths=[0, 1, 1, 0, 0],
        parents=[(), ("a",), ("a", "z"), (), ()], erased_parents=[(), (), (), (), ()],
        terms=[(), (), (), (), (0,)], already_erased="00000",
        reasons=["root", None, "derived from deleted a; z survives",
                 "a procedure citing deleted evidence (a)", "holds a redaction term"])
    plan = DeletionPlan(request_id="del-1", requested_by="dpo", reason="art. 17",
                        roots=("a",), columns=columns, term_salt="00", term_checks=("x",),
                        tenants=("acme",), planned_at=datetime(2026, 1, 1, tzinfo=UTC))
    return plan.model_copy(update={"digest": plan.compute_digest()})


_LETTER = {"DELETE": "D", "RECOMPUTE": "C", "REDACT": "R", "QUARANTINE": "Q"}


def _saved_with(plan: DeletionPlan, at: int, disposition: str) -> str:
    """``plan`` saved with entry ``at`` given ``disposition`` and the digest of that edited
    content, as an editor who knows the scheme would write it (nothing judged on the way)."""
    fields = {name: getattr(plan.columns, name) for name in PlanColumns.model_fields}
    codes = fields["dispositions"]
    columns = PlanColumns.build(  # anew: no entries kept from the plan's own columns
        **{**fields, "dispositions": codes[:at] + _LETTER[disposition] + codes[at + 1:]})
    edited = plan.model_copy(update={"columns": columns})
    return edited.model_copy(update={"digest": edited.compute_digest()}).to_json()


def test_the_plan_as_made_loads() -> None:
    plan = _plan()
    assert DeletionPlan.from_json(plan.to_json()) == plan


@given(at=st.integers(0, 4), disposition=st.sampled_from(
    ["DELETE", "RECOMPUTE", "REDACT", "QUARANTINE"]))
def test_any_other_disposition_of_one_entry_is_refused(at: int, disposition: str) -> None:
    plan = _plan()
    if plan.entries[at].disposition.value == disposition or (at, disposition) == (
            1, "RECOMPUTE"):  # the case left (see the module docstring)
        return
    with pytest.raises(DeletionError, match="malformed deletion plan"):
        DeletionPlan.from_json(_saved_with(plan, at, disposition))
