"""DeletionPlan's own consistency rules (docs/spec/deletion.md), checked without a database: a
plan is refused when an entry names a term it does not have, an id twice, a root that is not
DELETE, or a DELETE descendant with a surviving parent."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest

from graphmem.deletion.models import DeletionPlan, Disposition, PlanEntry
from graphmem.errors import DeletionError

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _plan(*entries: PlanEntry, roots: tuple[str, ...] = ("r",), checks: int = 0) -> DeletionPlan:
    extra: dict[str, Any] = {"term_checks": tuple(f"c{i}" for i in range(checks))}
    return DeletionPlan(request_id="del-1", requested_by="p", reason="r", roots=roots,
                        planned_at=AT, entries=entries, **extra)


ROOT = PlanEntry(id="r", disposition=Disposition.DELETE, reason="root", via="root")


def _child(parents: tuple[str, ...], *, erased: tuple[str, ...] = (),
           disposition: Disposition = Disposition.DELETE, already: bool = False,
           terms: tuple[int, ...] = ()) -> PlanEntry:
    return PlanEntry(id="c", disposition=disposition, reason="x", via="lineage", depth=1,
                     parents=parents, erased_parents=erased, already_erased=already,
                     terms=terms)


def test_a_delete_descendant_needs_every_parent_deleted_or_erased() -> None:
    assert _plan(ROOT, _child(("r",))).entries[1].id == "c"
    assert _plan(ROOT, _child(("r", "gone"), erased=("gone",))).entries[1].id == "c"
    assert _plan(ROOT, _child(("r", "kept"), already=True)).entries[1].already_erased
    assert _plan(ROOT, _child(("r", "kept"), disposition=Disposition.RECOMPUTE))
    with pytest.raises(pydantic.ValidationError, match="parent survives"):
        _plan(ROOT, _child(("r", "kept")))
    other = PlanEntry(id="kept", disposition=Disposition.RECOMPUTE, reason="x", via="lineage",
                      depth=1, parents=("r",))
    with pytest.raises(pydantic.ValidationError, match="parent survives"):
        _plan(ROOT, other, _child(("r", "kept")))


def test_terms_ids_and_roots_are_checked() -> None:
    assert _plan(ROOT, _child(("r",), disposition=Disposition.REDACT, terms=(0, 1)), checks=2)
    with pytest.raises(pydantic.ValidationError, match="names a term"):
        _plan(ROOT, _child(("r",), disposition=Disposition.REDACT, terms=(0, 2)), checks=2)
    with pytest.raises(pydantic.ValidationError, match="same id twice"):
        _plan(ROOT, ROOT)
    with pytest.raises(pydantic.ValidationError, match="not planned as DELETE"):
        _plan(ROOT, roots=("r", "c"))
    kept_root = ROOT.model_copy(update={"disposition": Disposition.QUARANTINE})
    with pytest.raises(pydantic.ValidationError, match="not planned as DELETE"):
        _plan(kept_root)


@pytest.mark.parametrize("salt", ["zz", "abc", "AB", "ab cd", "éé"])
def test_a_plan_file_whose_salt_is_not_hex_is_a_deletion_error(salt: str) -> None:
    """The salt is read as hex when the plan's terms are checked: a file edited to hold
    anything else is refused on loading, with its digest made to match, instead of a raw
    ValueError out of apply_deletion."""
    plan = _plan(ROOT).model_copy(update={"term_salt": salt})
    text = plan.model_copy(update={"digest": plan.compute_digest()}).to_json()
    with pytest.raises(DeletionError, match="term_salt"):
        DeletionPlan.from_json(text)
    good = _plan(ROOT).model_copy(update={"term_salt": "0a1b"})
    assert DeletionPlan.from_json(good.model_copy(
        update={"digest": good.compute_digest()}).to_json()).term_salt == "0a1b"
