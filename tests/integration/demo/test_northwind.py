"""The northwind scenario's write-path and query expectations, on real Neo4j."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.errors import AuthorizationError
from graphmem.models import Principal, Sensitivity, Status
from graphmem.write.policy import WriteDisposition
from tests.support.northwind import lines, load

QUERIES = {q["id"]: q for q in lines("queries.jsonl")}
NO_TRIGGER_EXPECT = {"retrieved": False}
CROSS_TENANT_EXPECT = {"error": "authorization"}


@pytest.fixture()
def northwind(memory: Memory) -> Memory:
    load(memory)
    return memory


def _call(q: dict[str, Any]) -> tuple[Principal, dict[str, str], datetime]:
    return (Principal(**q["principal"]), q["state"]["memory_scope"],
            datetime.fromisoformat(q["now"]))


def test_write_path_dispositions(memory: Memory) -> None:
    decisions = load(memory)
    assert decisions["web-poison"].disposition is WriteDisposition.QUARANTINE
    others = {rid: d.disposition for rid, d in decisions.items() if rid != "web-poison"}
    assert len(others) == 26
    assert set(others.values()) == {WriteDisposition.PERSIST}
    # quarantined: stored for audit, with the decision kept
    history = memory.history("web-poison")
    assert [h["kind"] for h in history] == ["write:QUARANTINE"]
    assert store_of(memory).state("web-poison").quarantined


@pytest.mark.parametrize("qid", [q for q in QUERIES if "must_include" in QUERIES[q]["expect"]])
def test_query_expectations(northwind: Memory, qid: str) -> None:
    q = QUERIES[qid]
    principal, scope, now = _call(q)
    result = northwind.retrieve(q["state"], principal=principal, now=now)
    expect = q["expect"]
    for rid in expect["must_include"]:
        assert rid in result.ids, f"{qid}: {rid} missing from {result.ids}"
    eligible = {r.id for r in northwind.candidates(principal=principal, scope=scope, now=now)}
    for rid, status in expect["must_exclude"].items():
        assert rid not in result.ids
        assert rid not in eligible
        explanation = northwind.explain(rid, principal=principal, scope=scope, now=now)
        assert explanation.status is Status(status), (qid, rid, explanation)
        if explanation.status is Status.NOT_YET_VALID:  # says which half of rule 2 applies
            record = northwind.get(rid)
            assert ("created after now" in explanation.detail) == (now < record.created_at)
            assert ("valid_from" in explanation.detail) == (
                record.valid_from is not None and now < record.valid_from), explanation
    got = {c.key: set(c.values) for c in result.conflicts}
    assert got == {k: set(v) for k, v in expect["conflicts"].items()}
    # each memory is rendered with its id, kind, source and created time
    for m in result.memories:
        assert f"Memory ID: {m.record.id}" in result.rendered
        assert f"Created: {m.record.created_at.isoformat()}" in result.rendered


def test_supersession_names_the_successor(northwind: Memory) -> None:
    principal, scope, now = _call(QUERIES["q-refund"])
    explanation = northwind.explain("pol-refund-v1", principal=principal, scope=scope, now=now)
    assert explanation.successor_ids == ("pol-refund-v2",)


def test_refund_conflict_is_shown_whole_and_resolves_on_authority(northwind: Memory) -> None:
    q = QUERIES["q-refund"]
    principal, _, now = _call(q)
    result = northwind.retrieve(q["state"], principal=principal, now=now)
    (conflict,) = result.conflicts
    assert set(conflict.record_ids) == {"pol-refund-v2", "inf-refund-750"}
    resolution = northwind.resolve(conflict)
    assert resolution.value == "1000" and resolution.decided_by == "authority"
    # under a budget too small for both sides, neither side is shown, but the conflict is
    tight = northwind.retrieve(q["state"], principal=principal, now=now, budget_chars=300)
    assert not {"pol-refund-v2", "inf-refund-750"} & set(tight.ids)
    assert [c.key for c in tight.conflicts] == ["refund_manual_approval_threshold_eur"]
    assert len(tight.rendered) <= 300
    # the text says so, and marks the group where it is shown
    assert ("Unresolved conflict on `refund_manual_approval_threshold_eur` left out"
            in tight.rendered)
    assert ("Conflict on `refund_manual_approval_threshold_eur`: " in result.rendered
            and "pol-refund-v2 says 1000" in result.rendered
            and "inf-refund-750 says 750" in result.rendered)


@pytest.mark.parametrize("qid", [q for q in QUERIES if QUERIES[q]["expect"] == NO_TRIGGER_EXPECT])
def test_no_trigger_retrieves_nothing_and_says_so(northwind: Memory, qid: str) -> None:
    q = QUERIES[qid]
    principal, _, now = _call(q)
    result = northwind.retrieve(q["state"], principal=principal, now=now)
    assert result.memories == () and not result.trace.triggered
    assert "no trigger" in result.trace.notes[0]
    logged = northwind.get_retrieval(result.trace.retrieval_id)
    assert logged["retrieval"]["triggered"] is False


@pytest.mark.parametrize("qid", [q for q in QUERIES
                                 if QUERIES[q]["expect"] == CROSS_TENANT_EXPECT])
def test_cross_tenant_is_an_authorization_error(northwind: Memory, qid: str) -> None:
    q = QUERIES[qid]
    principal, scope, now = _call(q)
    with pytest.raises(AuthorizationError):
        northwind.retrieve(q["state"], principal=principal, now=now)
    with pytest.raises(AuthorizationError):
        northwind.candidates(principal=principal, scope=scope, now=now)
    with pytest.raises(AuthorizationError):
        northwind.explain("gx-test-cmd", principal=principal, scope=scope, now=now)


def test_test_command_never_conflicts(northwind: Memory) -> None:
    now = datetime.fromisoformat("2026-09-15T12:00:00+00:00")
    scopes = [
        ({"acme"}, {"tenant": "acme", "repo": "checkout-api"}),
        ({"acme"}, {"tenant": "acme", "repo": "billing-web"}),
        ({"acme"}, {"tenant": "acme"}),
        ({"globex"}, {"tenant": "globex", "repo": "checkout-api"}),
        ({"acme", "globex"}, {"tenant": "globex", "repo": "checkout-api"}),
    ]
    for tenants, scope in scopes:
        principal = Principal(tenants=frozenset(tenants), clearance=Sensitivity.RESTRICTED)
        result = northwind.retrieve(
            {"memory_scope": scope, "goal": "run the unit tests", "new_error": True,
             "entities": ["test_command"]}, principal=principal, now=now, k=50)
        assert "test_command" not in {c.key for c in result.conflicts}, scope


def test_retrieval_is_logged_for_attribution(northwind: Memory) -> None:
    q = QUERIES["q-tests"]
    principal, _, now = _call(q)
    result = northwind.retrieve(q["state"], principal=principal, now=now)
    logged = northwind.get_retrieval(result.trace.retrieval_id)
    assert logged["retrieval"]["query"] == result.trace.query
    assert sorted(logged["retrieval"]["candidate_ids"]) == sorted(result.trace.candidate_ids)
    assert [s["id"] for s in sorted(logged["selected"], key=lambda s: s["rank"])] == result.ids
    northwind.record_exposure(result.trace.retrieval_id, "act-1", result.ids[:2])
    northwind.record_use(result.trace.retrieval_id, "act-1", result.ids[:1], helped=True)
    from graphmem.errors import ValidationError

    with pytest.raises(ValidationError):
        northwind.record_exposure(result.trace.retrieval_id, "act-2", ["pol-refund-v1"])
