"""A saved plan with very many bad items is refused as one problem, not judged item by item
(docs/spec/deletion.md#plan-format): the plan's bound (``InputLimits.plan_bytes``, 64 MiB)
holds some 20 million ``{}``, and every bad item used to become an error object of its own
(four per entry), so a plan of 300,000 of them took seconds and 1.6 GB before its
``DeletionError``, and one at the bound ran the process out of memory: a hostile or broken
plan file (``graphmem delete apply FILE``, ``Memory.apply_deletion``, the MCP
``apply_deletion`` plan) is now refused at its first bad item in each sequence."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.deletion import DeletionPlan
from graphmem.deletion.columns import PlanColumns
from graphmem.errors import DeletionError

N = 50_000  # bad items in one sequence: each was an error of its own


def _plan() -> dict[str, Any]:
    columns = PlanColumns.build(
        ids=["a", "b"], nodes="rr", kinds=["semantic", "semantic"], dispositions="DD",
        vias="rl", depths=[0, 1], parents=[(), ("a",)], erased_parents=[(), ()],
        terms=[(), ()], already_erased="00", reasons=["root", None])
    plan = DeletionPlan(request_id="del-1", requested_by="dpo", reason="r", roots=("a",),
                        columns=columns, tenants=("acme",),
                        planned_at=datetime(2026, 1, 1, tzinfo=UTC))
    data: dict[str, Any] = json.loads(plan.model_dump_json())
    return data


def _col(name: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["columns"].__setitem__(name, value)


def _listed(entries: list[dict[str, Any]]) -> Callable[[dict[str, Any]], None]:
    """The plan given as a list of entries (as a version 2-4 plan, or the listed form)."""
    def edit(d: dict[str, Any]) -> None:
        del d["columns"]
        d["entries"] = entries
    return edit


#: one sequence (or mapping) of the plan filled with N bad items
BAD: dict[str, Callable[[dict[str, Any]], None]] = {
    "entries": _listed([{}] * N),
    "entries.parents": _listed([{"id": "a", "disposition": "DELETE", "reason": "root",
                                 "via": "root", "parents": [1] * N}]),
    "columns.ids": _col("ids", [1] * N),
    "columns.kinds": _col("kinds", [1] * N),
    "columns.depths": _col("depths", [-1] * N),
    "columns.parents": _col("parents", [[1]] * N),
    "columns.parents.inner": _col("parents", [[1] * N]),
    "columns.erased_parents": _col("erased_parents", [1] * N),
    "columns.terms": _col("terms", [[-1]] * N),
    "columns.reasons": _col("reasons", [1] * N),
    "roots": lambda d: d.__setitem__("roots", [1] * N),
    "missing_roots": lambda d: d.__setitem__("missing_roots", [1] * N),
    "term_checks": lambda d: d.__setitem__("term_checks", [1] * N),
    "tenants": lambda d: d.__setitem__("tenants", [1] * N),
    "retrievals": lambda d: d.__setitem__("retrievals", [{}] * N),
    "retrievals.selected_ids": lambda d: d.__setitem__("retrievals", [
        {"retrieval_id": "q", "selected_ids": [1] * N}]),
    "dangling_citations": lambda d: d.__setitem__("dangling_citations", [{}] * N),
    "subject": lambda d: d.__setitem__("subject", {str(i): i for i in range(N)}),
    "reach.scope": lambda d: d.__setitem__("reach", {
        "clearance": "normal", "scope": {str(i): i for i in range(N)}}),
}


@pytest.mark.parametrize("where", sorted(BAD))
def test_a_sequence_of_bad_items_is_a_few_problems(where: str) -> None:
    data = _plan()
    BAD[where](data)
    with pytest.raises(DeletionError, match="malformed deletion plan") as info:
        DeletionPlan.from_json(json.dumps(data))
    found = re.search(r"\((\d+) problems?;", str(info.value))
    assert found is not None and int(found.group(1)) <= 5, str(info.value)[:200]
