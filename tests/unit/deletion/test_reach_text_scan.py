"""The tenant text scan and the retrieval reach, over stand-in sources (no database)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graphmem.db.codec import scope_pairs
from graphmem.db.ops.deletion import LoggedRetrieval, TextRow
from graphmem.deletion.models import PlanReach, RetrievalHit
from graphmem.deletion.reach import reach_key, retrievals_within, text_reach
from graphmem.deletion.redaction import scan_tenant_text
from graphmem.models import Sensitivity

LOGGED = [
    LoggedRetrieval(id="q-own", tenant="t1", clearance="normal",
                    scope_json=json.dumps({"tenant": "t1", "user": "u1"})),
    LoggedRetrieval(id="q-other", tenant="t1", clearance="normal",
                    scope_json=json.dumps({"tenant": "t1", "user": "u2"})),
    LoggedRetrieval(id="q-high", tenant="t1", clearance="restricted",
                    scope_json=json.dumps({"tenant": "t1", "user": "u1"})),
]


def _row(key: str, value: Any, *, owner: Any = "r1", rel: bool = False) -> TextRow:
    return TextRow(eid=f"e-{key}", rel=rel, labels=["Record"], key=key, value=value,
                   owner=owner, live_record=True, held=False)


class _Texts:
    """A TextSource answering fixed rows, remembering what it was asked."""

    def __init__(self, rows: list[TextRow]) -> None:
        self.rows = rows
        self.asked: list[dict[str, Any]] = []
        self.clearances: list[list[str]] = []

    def tenant_retrievals(self, tenants: Sequence[str], clearances: Sequence[str]
                          ) -> list[LoggedRetrieval]:
        self.clearances.append(list(clearances))
        return [r for r in LOGGED if r["clearance"] in clearances]

    def tenant_text(self, tenants: Sequence[str], *, pattern: str | None,
                    after: datetime | None, skip: Sequence[str],
                    reach: dict[str, Any] | None) -> list[TextRow]:
        self.asked.append({"tenants": list(tenants), "pattern": pattern, "skip": list(skip),
                           "reach": reach})
        return self.rows


def test_only_properties_that_hold_a_term_are_hits() -> None:
    source = _Texts([_row("content", "Jane  ROE called", owner=7),
                     _row("reason", "no name here"),
                     _row("notes", ["x", "spoke to jane roe"], rel=True)])
    hits = scan_tenant_text(source, ["t1"], ["Jane Roe"], skip=["id", "tenant"])
    assert [(h.key, h.owner, h.rel, h.labels) for h in hits] == [
        ("content", "7", False, ("Record",)), ("notes", "r1", True, ("Record",))]
    assert source.asked[0]["skip"] == ["id", "tenant"]
    assert source.asked[0]["reach"] is None


def test_no_terms_or_no_tenants_read_nothing() -> None:
    source = _Texts([_row("content", "Jane Roe")])
    assert scan_tenant_text(source, [], ["Jane Roe"]) == []
    assert scan_tenant_text(source, ["t1"], []) == []
    assert source.asked == []


def test_a_reach_names_only_the_retrievals_made_within_it() -> None:
    reach = PlanReach(clearance=Sensitivity.NORMAL, scope={"user": "u1"})
    source = _Texts([])
    found = text_reach(source, ["t1"], reach)
    assert source.clearances == [[s.value for s in Sensitivity if s <= Sensitivity.NORMAL]]
    assert found == {"pairs": scope_pairs({"user": "u1"}), "max_rank": Sensitivity.NORMAL.rank,
                     "retrievals": ["q-own"], "request": reach_key(reach)}
    assert text_reach(source, ["t1"], None) is None
    assert len(source.clearances) == 1  # no reach: nothing read


class _Reach:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def retrieval_reach(self, ids: Sequence[str]) -> list[LoggedRetrieval]:
        self.asked.append(list(ids))
        return [r for r in LOGGED if r["id"] in ids]


def test_retrievals_out_of_reach_are_left_out_of_a_plan() -> None:
    hits = [RetrievalHit(retrieval_id=q) for q in ("q-own", "q-other", "q-high", "q-own")]
    source = _Reach()
    kept = retrievals_within(source, PlanReach(clearance=Sensitivity.NORMAL,
                                               scope={"user": "u1"}), hits)
    assert [h.retrieval_id for h in kept] == ["q-own", "q-own"]
    assert source.asked == [["q-high", "q-other", "q-own"]]
    assert retrievals_within(source, None, hits) == tuple(hits)
    assert len(source.asked) == 1
