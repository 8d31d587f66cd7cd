"""A version 5 plan holds its entries as columns (docs/spec/deletion.md#plan-format): its JSON
and digest are the columns', an edit to any column is caught by the digest, a plan whose
columns contradict the plan's rules is refused, and a version 4 plan saved before still loads
with its digest, its JSON and its entries."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest

from graphmem.deletion.columns import PlanColumns, deleted_reason
from graphmem.deletion.models import PLAN_VERSION, DeletionPlan, Disposition, PlanEntry
from graphmem.errors import DeletionError
from tests.support.plan_v4 import PLAN_V4_JSON

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _v4() -> DeletionPlan:
    return DeletionPlan.from_json(PLAN_V4_JSON)


def _as_v5(plan: DeletionPlan) -> DeletionPlan:
    fields = {k: getattr(plan, k) for k in ("request_id", "requested_by", "reason", "subject",
                                            "roots", "term_salt", "term_checks", "tenants",
                                            "planned_at", "dangling_citations", "retrievals",
                                            "reach")}
    made = DeletionPlan(**fields, entries=plan.entries)
    return made.model_copy(update={"digest": made.compute_digest()})


def test_a_version_4_plan_saved_before_loads_with_its_digest_json_and_entries() -> None:
    plan = _v4()
    assert plan.version == 4 and plan.entry_count == 11
    assert plan.to_json(indent=None) == PLAN_V4_JSON  # saved again, byte for byte
    assert plan.compute_digest() == json.loads(PLAN_V4_JSON)["digest"]
    listed = json.loads(PLAN_V4_JSON)["entries"]
    assert [e.model_dump(mode="json") for e in plan.entries] == listed
    assert plan.counts() == {"DELETE": 5, "RECOMPUTE": 1, "REDACT": 3, "QUARANTINE": 2}
    assert plan.ids(Disposition.REDACT) == ["c", "m", "mi"]
    assert plan.disposition_of("p") is Disposition.QUARANTINE
    assert plan.disposition_of("nowhere") is None
    edited = json.loads(PLAN_V4_JSON)
    edited["entries"][2]["reason"] = "edited"
    with pytest.raises(DeletionError, match="digest"):
        DeletionPlan.from_json(json.dumps(edited))


def test_a_version_5_plan_round_trips_listed_and_as_columns() -> None:
    old = _v4()
    plan = _as_v5(old)
    assert plan.version == PLAN_VERSION == 5 and plan.entries == old.entries
    columns = json.loads(plan.model_dump_json())  # what its digest is made of
    assert "entries" not in columns and columns["columns"]["dispositions"] == "DDDDDRQCQRR"
    assert columns["columns"]["reasons"][2:4] == [None, None]  # derived: every parent goes
    listed = json.loads(plan.to_json())  # what a reviewer reads: every reason in full
    assert "columns" not in listed and listed["version"] == 5
    assert [e["disposition"] for e in listed["entries"]] == [e.disposition.value
                                                           for e in old.entries]
    assert listed["entries"][2]["reason"] == old.entries[2].reason
    for text in (plan.to_json(), plan.model_dump_json()):
        again = DeletionPlan.from_json(text)
        assert again == plan and again.entries == old.entries and again.digest == plan.digest
        assert again.first_entries(3) == old.entries[:3]
    assert plan.digest != old.digest
    edited = json.loads(plan.to_json())
    edited["entries"][4]["reason"] = "edited"
    with pytest.raises(DeletionError, match="digest"):
        DeletionPlan.from_json(json.dumps(edited))


#: one edit per column, each keeping the plan's own rules (the digest alone catches it)
EDITS: dict[str, Any] = {
    "ids": lambda c: [*c["ids"][:9], "proc2", *c["ids"][10:]],
    "nodes": lambda c: c["nodes"][:9] + "i" + c["nodes"][10:],
    "kinds": lambda c: [*c["kinds"][:9], "episodic", *c["kinds"][10:]],
    "dispositions": lambda c: c["dispositions"][:5] + "C" + c["dispositions"][6:],
    "vias": lambda c: c["vias"][:8] + "l" + c["vias"][9:],  # a procedure, reached so too
    "depths": lambda c: [*c["depths"][:7], 4, *c["depths"][8:]],
    "parents": lambda c: [*c["parents"][:7], ["c", "q3"], *c["parents"][8:]],
    "erased_parents": lambda c: [*c["erased_parents"][:7], ["q2"], *c["erased_parents"][8:]],
    "terms": lambda c: [*c["terms"][:9], [1], *c["terms"][10:]],
    "already_erased": lambda c: "1" + c["already_erased"][1:],
    "reasons": lambda c: [*c["reasons"][:2], "every parent is being deleted (r1)",
                          *c["reasons"][3:]],
}


@pytest.mark.parametrize("column", sorted(EDITS))
def test_an_edited_column_fails_the_digest(column: str) -> None:
    assert set(EDITS) == set(PlanColumns.model_fields)
    saved = json.loads(_as_v5(_v4()).model_dump_json())
    saved["columns"][column] = EDITS[column](saved["columns"])
    with pytest.raises(DeletionError, match="digest does not match"):
        DeletionPlan.from_json(json.dumps(saved))


def _resigned(saved: dict[str, Any]) -> str:
    """``saved`` with a digest made to match, as an editor who knows the scheme would: the
    SHA-256 of its compact JSON without the digest."""
    body = json.dumps({k: v for k, v in saved.items() if k != "digest"},
                      separators=(",", ":"), ensure_ascii=False)
    saved["digest"] = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return json.dumps(saved)


def test_a_resigned_plan_loads() -> None:
    plan = _as_v5(_v4())
    assert DeletionPlan.from_json(_resigned(json.loads(plan.model_dump_json()))) == plan


@pytest.mark.parametrize(("column", "edit", "problem"), [
    ("parents", lambda c: [*c["parents"][:2], ["r1", "keep"], *c["parents"][3:]],
     "parent survives"),
    ("dispositions", lambda c: "C" + c["dispositions"][1:], "not planned as DELETE"),
    ("terms", lambda c: [*c["terms"][:9], [2], *c["terms"][10:]], "names a term"),
    ("ids", lambda c: [*c["ids"][:3], "a", *c["ids"][4:]], "same id twice"),
    ("reasons", lambda c: [*c["reasons"][:5], None, *c["reasons"][6:]], "left to derive"),
    ("depths", lambda c: c["depths"][:-1], "differ in length"),
    ("nodes", lambda c: "x" + c["nodes"][1:], "should match pattern"),
    # dispositions the entry's way does not give (docs/spec/deletion.md#dispositions)
    ("dispositions", lambda c: c["dispositions"][:9] + "D" + c["dispositions"][10:],
     "its way gives it"),
    ("vias", lambda c: c["vias"][:4] + "c" + c["vias"][5:], "its way gives it"),
    ("vias", lambda c: c["vias"][:8] + "m" + c["vias"][9:], "its way gives it"),
    ("kinds", lambda c: [*c["kinds"][:8], "semantic", *c["kinds"][9:]],
     "only a procedure is QUARANTINE"),
    ("terms", lambda c: [*c["terms"][:5], [], *c["terms"][6:]], "holds no term"),
])
def test_contradictory_columns_are_refused_even_with_a_matching_digest(
        column: str, edit: Any, problem: str) -> None:
    saved = json.loads(_as_v5(_v4()).model_dump_json())
    saved["columns"][column] = edit(saved["columns"])
    with pytest.raises((DeletionError, pydantic.ValidationError), match=problem):
        DeletionPlan.from_json(_resigned(saved))


def test_entries_and_columns_are_one_or_the_other() -> None:
    plan = _v4()
    with pytest.raises(pydantic.ValidationError, match="not both"):
        DeletionPlan(request_id="del-1", requested_by="p", reason="r", roots=plan.roots,
                     planned_at=AT, entries=plan.entries, columns=plan.columns,
                     term_checks=plan.term_checks)


def test_only_the_every_parent_reason_is_derived() -> None:
    child = PlanEntry(id="c", disposition=Disposition.DELETE, via="lineage", depth=1,
                      parents=("r", "x", "y", "z"), erased_parents=("x",),
                      reason=deleted_reason(("r", "x", "y", "z"), ("x",)))
    assert child.reason == "every parent is being deleted or already erased (r, x, y and 1 more)"
    odd = child.model_copy(update={"reason": "every parent goes"})
    root = PlanEntry(id="r", disposition=Disposition.DELETE, reason="root", via="root")
    assert PlanColumns.from_entries([root, child]).reasons == ("root", None)
    assert PlanColumns.from_entries([root, odd]).reasons == ("root", "every parent goes")
    assert PlanColumns.from_entries([root, odd]).entries() == (root, odd)
