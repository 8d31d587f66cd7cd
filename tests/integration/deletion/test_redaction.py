"""Redaction terms leave every text of the tenant's graph, and the verification proves it by
scanning every string property generically (docs/spec/deletion.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import pytest

from graphmem.client import Memory, store_of
from graphmem.deletion import apply_deletion, plan_deletion, verify_deletion
from graphmem.deletion.redaction import (
    scan_tenant_text,
)
from graphmem.evaluation.faults import run_faults
from graphmem.evaluation.namespace import Namespace
from graphmem.models import Principal

TERM = "CANARY-7731"
NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
T = {"tenant": "t1", "user": "u9"}
OTHER = {"tenant": "t2", "user": "u9"}


def _rec(rid: str, content: str, scope: dict[str, str] = T, **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": scope,
            "created_at": "2026-09-01T09:00:00+00:00", "authority": "human_instruction",
            "provenance": {"source": "chat"}, **extra}


def _holders(memory: Memory, term: str) -> list[tuple[str, str, str]]:
    """Every (labels or type, owner id, key) of the WHOLE database whose string or
    list-of-strings value holds ``term`` (case-insensitive): an independent full scan."""
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props, null AS owner "
        "UNION ALL MATCH (a)-[e]->() RETURN [type(e)] AS labels, properties(e) AS props, "
        "properties(a) AS owner", database_=store_of(memory).database)
    low = term.lower()
    found = []
    for row in rows:
        owner_props = row["owner"] if row["owner"] is not None else row["props"]
        owner = str(owner_props.get("id") or owner_props.get("record_id")
                    or owner_props.get("intention_id") or owner_props.get("retrieval_id")
                    or owner_props.get("key") or "?")
        for key, value in row["props"].items():
            texts = [value] if isinstance(value, str) else (
                [v for v in value if isinstance(v, str)] if isinstance(value, list) else [])
            if any(low in t.lower() for t in texts):
                found.append(("/".join(sorted(row["labels"])), owner, key))
    return sorted(found)


def _issue_input(memory: Memory) -> None:
    """A leak of a name in free text."""
    assert memory.write(_rec("C1", "badge code is CANARY-7731 for the lobby"), now=NOW
                        ).disposition.value == "PERSIST"
    memory.write(_rec("C2", "prefers window seats on flights"), now=NOW)
    memory.write(_rec("CD", "profile: badge CANARY-7731, window seats",
                      derived_from=["C1", "C2"]), now=NOW)
    memory.retract("C2", by="agent", reason="customer CANARY-7731 asked")


def test_issue_input_no_text_keeps_the_term(memory: Memory) -> None:
    _issue_input(memory)
    assert ("Record", "C2", "retracted_reason") in _holders(memory, TERM)
    assert ("Transition", "C2", "reason") in _holders(memory, TERM)
    plan = plan_deletion(store_of(memory), roots=["C1"], redact_terms=[TERM], requested_by="dpo",
                         reason="erase the badge")
    report = apply_deletion(store_of(memory), plan)
    assert _holders(memory, TERM) == []
    assert report.verification.passed, report.verification.problems
    state = store_of(memory).state("C2")  # the retraction itself stays: only its text changed
    assert state.retracted_by == "agent"
    assert state.retracted_reason == "customer [REDACTED] asked"
    history = memory.history("C2")
    assert any(h.get("reason") == "customer [REDACTED] asked" for h in history), history
    again = verify_deletion(store_of(memory), plan.request_id, redact_terms=[TERM])
    assert again.verification.passed and again.verification.text_with_terms == ()


def test_verification_fails_while_a_reason_keeps_the_term(memory: Memory) -> None:
    """The check the issue found missing: the term in a Transition reason fails verification.
    """
    _issue_input(memory)
    plan = plan_deletion(store_of(memory), roots=["C1"], redact_terms=[TERM], requested_by="dpo",
                         reason="erase the badge")
    apply_deletion(store_of(memory), plan)
    # an ad hoc free-text property no code knows about, written before a re-check
    store_of(memory).driver.execute_query(
        "MATCH (t:Transition {record_id: 'C2'}) SET t.note = 'ticket for canary-7731', "
        "t.at = t.at - duration('PT1S')", database_=store_of(memory).database)
    v = verify_deletion(store_of(memory), plan.request_id, redact_terms=[TERM]).verification
    assert not v.passed
    assert v.text_with_terms == ("Transition C2.note",)
    assert any("text with terms" in p for p in v.problems)


ALL_KINDS_TERM = "Jane Roe"


def _every_kind(memory: Memory, scope: dict[str, str], tag: str) -> str:
    """A tenant whose graph holds the term in every kind of free text; returns a retrieval
    id. ``tag`` keeps ids apart between tenants."""
    memory.write(_rec(f"{tag}-root", "Call with Jane Roe about her refund", scope), now=NOW)
    memory.write(_rec(
        f"{tag}-kept", "customer prefers e-mail", scope, asserts="contact.name",
        asserted_value="Jane Roe",
        provenance={"source": "crm", "jane roe": "account owner"},
        metadata={"note": "asked by JANE ROE", "Jane Roe": ["nested", "jane roe"]}), now=NOW)
    memory.write(_rec(f"{tag}-gone", "temporary fact", scope), now=NOW)
    memory.write(_rec(f"{tag}-old", "stale fact", scope), now=NOW)
    memory.retract(f"{tag}-gone", by="Jane Roe's assistant", reason="Jane Roe said so")
    # a discarded duplicate: its decision hangs off no record
    memory.write(_rec(f"{tag}-dup", "customer prefers e-mail", scope), by="jane roe bot",
                 now=NOW)
    memory.intend({"id": f"{tag}-intent", "action": "Call Jane Roe back",
                   "trigger_kind": "ticket", "trigger_value": "jane roe", "scope": scope,
                   "created_at": "2026-09-01T09:00:00+00:00"})
    memory.intend({"id": f"{tag}-intent2", "action": "Send the summary",
                   "trigger_kind": "ticket", "trigger_value": "closed", "scope": scope,
                   "created_at": "2026-09-01T09:00:00+00:00"})
    memory.cancel(f"{tag}-intent2", by="agent", reason="Jane Roe closed the ticket", now=NOW)
    principal = Principal(tenants=frozenset({scope["tenant"]}))
    result = memory.retrieve({"memory_scope": scope, "goal": "How does Jane Roe like contact",
                              "needs_prior_context": True}, principal=principal, now=NOW)
    rid = result.trace.retrieval_id
    assert rid and result.ids
    memory.record_exposure(rid, "reply to Jane Roe", list(result.ids), at=NOW)
    memory.record_use(rid, "reply to Jane Roe", list(result.ids), at=NOW)
    # an earlier deletion request whose reason names the person
    earlier = plan_deletion(store_of(memory), roots=[f"{tag}-old"], requested_by="dpo",
                            reason="Jane Roe asked to drop a stale fact",
                            request_id=f"{tag}-del")
    apply_deletion(store_of(memory), earlier)
    return rid


def test_every_kind_of_free_text_is_redacted_and_other_tenants_untouched(memory: Memory
                                                                         ) -> None:
    _every_kind(memory, OTHER, "b")
    other_tenant = _holders(memory, ALL_KINDS_TERM)
    _every_kind(memory, T, "a")
    before = _holders(memory, ALL_KINDS_TERM)
    kinds = {(labels, key) for labels, _, key in before}
    for expected in [("Record", "content"), ("Record", "asserted_value"),
                     ("Record", "provenance_json"), ("Record", "metadata_json"),
                     ("Record", "retracted_reason"), ("Record", "retracted_by"),
                     ("Transition", "reason"), ("Transition", "by"),
                     ("WriteDecision", "by"), ("Retrieval", "query"),
                     ("Intention", "action"), ("Intention", "trigger_value"),
                     ("Intention", "cancel_reason"), ("Exposure", "action_id"),
                     ("Use", "action_id"), ("DeletionRequest", "reason")]:
        assert expected in kinds, (expected, sorted(kinds))
    plan = plan_deletion(store_of(memory), roots=["a-root"], redact_terms=[ALL_KINDS_TERM],
                         requested_by="dpo", reason="erase Jane Roe")
    assert plan.tenants == ("t1",)
    report = apply_deletion(store_of(memory), plan)
    assert report.verification.passed, report.verification.problems
    # only the other tenant's graph still holds the name, exactly as before
    after = _holders(memory, ALL_KINDS_TERM)
    assert after == other_tenant
    # JSON stays JSON, keys included; fingerprints follow the redacted content
    kept = memory.get("a-kept")
    assert kept.provenance == {"source": "crm", "[REDACTED]": "account owner"}
    assert kept.metadata == {"note": "asked by [REDACTED]",
                             "[REDACTED]": ["nested", "[REDACTED]"]}
    assert kept.asserted_value == "[REDACTED]"
    # applying again and verifying again change nothing
    assert apply_deletion(store_of(memory), plan).verification.passed
    assert _holders(memory, ALL_KINDS_TERM) == after


def test_other_tenant_text_is_untouched(memory: Memory) -> None:
    _issue_input(memory)
    memory.write(_rec("X1", "CANARY-7731 belongs to another tenant", OTHER), now=NOW)
    memory.write(_rec("X2", "unrelated", OTHER), now=NOW)
    memory.retract("X2", by="agent", reason="CANARY-7731 elsewhere")
    plan = plan_deletion(store_of(memory), roots=["C1"], redact_terms=[TERM], requested_by="dpo",
                         reason="erase the badge")
    assert apply_deletion(store_of(memory), plan).verification.passed
    assert memory.get("X1").content == "CANARY-7731 belongs to another tenant"
    assert {h[1] for h in _holders(memory, TERM)} == {"X1", "X2"}


def test_written_after_the_request_is_not_its_failure(memory: Memory) -> None:
    """A retrieval logged after the request finished holds the term: the request's
    verification still passes (it covers what existed when it was applied)."""
    _issue_input(memory)
    plan = plan_deletion(store_of(memory), roots=["C1"], redact_terms=[TERM], requested_by="dpo",
                         reason="erase the badge")
    report = apply_deletion(store_of(memory), plan)
    assert report.request.finished_at is not None
    later = report.request.finished_at + timedelta(days=1)
    memory.retrieve({"memory_scope": T, "goal": "what is CANARY-7731",
                     "needs_prior_context": True},
                    principal=Principal(tenants=frozenset({"t1"})), now=later)
    assert any(h[0] == "Retrieval" for h in _holders(memory, TERM))
    assert verify_deletion(store_of(memory), plan.request_id, redact_terms=[TERM]
                           ).verification.passed


def test_identifiers_are_reported_not_redacted(memory: Memory) -> None:
    memory.write(_rec("u9-note", "call u9 tomorrow"), now=NOW)
    plan = plan_deletion(store_of(memory), roots=["u9-note"], redact_terms=["u9"],
                         requested_by="dpo", reason="erase u9")
    v = apply_deletion(store_of(memory), plan).verification
    assert v.passed, v.problems
    # the tombstone keeps its id and scope; both are reported, neither fails nor is redacted
    assert {"Record u9-note.id", "Record u9-note.scope_json"} <= set(v.identifiers_with_terms)
    assert store_of(memory).state("u9-note").erased


def test_fault_redaction_leaves_free_text(memory: Memory) -> None:
    """graphmem stops the fault; the naive baseline lets it through; and the fault's own
    scan does see free text (a retraction reason) when nothing redacts it."""
    report = run_faults(memory, only=["redaction_leaves_free_text"])
    (result,) = report.results
    assert not result.graphmem.let_through, result.graphmem.evidence
    assert result.naive.let_through, result.naive.evidence
    ns = Namespace.fresh()
    memory.write(ns.record(_rec("C2", "prefers window seats on flights")), now=NOW)
    memory.retract(ns.id("C2"), by="agent", reason="customer CANARY-7731 asked")
    places = store_of(memory).read_values("eval_text_scan", prefix=ns.prefix,
                                      terms=["canary-7731"])[0]["places"]
    assert sorted(places) == ["Record.retracted_reason", "Transition.reason"]


def test_a_term_in_an_asserted_key_leaves_every_assertion_group(memory: Memory) -> None:
    """The asserted key is text as well (the whole kind): after redaction no
    record and no assertion group keeps it, whether the group's members survive (they move
    to the redacted key's group and still conflict) or were all erased."""
    door = f"door code of {TERM}"
    memory.write(_rec("K1", "door code is 1234", asserts=door, asserted_value="1234"), now=NOW)
    memory.write(_rec("K2", "door code is 9999", asserts=door, asserted_value="9999"), now=NOW)
    memory.write(_rec("K3", "the lobby door code is 1234", asserts=door, asserted_value="1234"),
                 now=NOW)
    memory.write(_rec("G1", "the gate is blue", asserts=f"gate colour {TERM.lower()}",
                      asserted_value="blue"), now=NOW)
    memory.write(_rec("P1", "prefers tea", asserts="drink", asserted_value="tea"), now=NOW)
    memory.write(_rec("P2", "prefers coffee", asserts="drink", asserted_value="coffee"), now=NOW)
    assert {h[0] for h in _holders(memory, TERM)} >= {"Assertion", "Record"}
    plan = plan_deletion(store_of(memory), roots=["K1", "G1"], redact_terms=[TERM],
                         requested_by="dpo", reason="erase the badge holder")
    report = apply_deletion(store_of(memory), plan)
    assert report.verification.passed, report.verification.problems
    assert not report.verification.identifiers_with_terms
    assert _holders(memory, TERM) == []
    assert memory.get("K2").asserts == "door code of [REDACTED]"
    result = memory.retrieve({"memory_scope": T, "goal": "which door code and which drink",
                              "needs_prior_context": True},
                             principal=Principal(tenants=frozenset({"t1"})), now=NOW)
    got = {c.key: set(c.record_ids) for c in result.conflicts}
    assert got == {"door code of [REDACTED]": {"K2", "K3"}, "drink": {"P1", "P2"}}
    # applying again changes nothing, and the groups left are exactly the live keys'
    assert apply_deletion(store_of(memory), plan).verification.passed
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (a:Assertion {tenant: 't1'}) RETURN a.key AS key ORDER BY key",
        database_=store_of(memory).database)
    assert [r["key"] for r in rows] == ["door code of [REDACTED]", "drink"]


def test_a_node_kind_added_later_is_the_tenants_graph_too(memory: Memory) -> None:
    """Free text on nodes of a label no graphmem code knows (linked to a record of the tenant,
    in either direction, or to its retrieval), and on their relationships, is redacted and
    verified like the rest; such nodes of another tenant, or linked only to its records, are
    left alone (docs/spec/deletion.md: a new free-text field cannot escape)."""
    _issue_input(memory)
    memory.write(_rec("X1", "another tenant's note", OTHER), now=NOW)
    db = store_of(memory).database
    store_of(memory).driver.execute_query(
        "MATCH (c2:Record {id: 'C2'}), (x1:Record {id: 'X1'}) "
        "CREATE (:Note {text: 'called canary-7731 back', tags: ['x', 'CANARY-7731']})"
        "-[:ABOUT {why: 'canary-7731 asked'}]->(c2) "
        "CREATE (c2)-[:FLAGGED]->(:Flag {label: 'vip CANARY-7731'}) "
        "CREATE (:Note {tenant: 't2', text: 'CANARY-7731 seen in t2'})-[:ABOUT]->(c2) "
        "CREATE (:Note {text: 'CANARY-7731 of the other tenant'})-[:ABOUT]->(x1)",
        database_=db)
    plan = plan_deletion(store_of(memory), roots=["C1"], redact_terms=[TERM], requested_by="dpo",
                         reason="erase the badge")
    # before anything is applied, the verification scan sees them (and only the tenant's)
    hits = {(h.labels, h.key) for h in scan_tenant_text(store_of(memory), ["t1"], [TERM])}
    assert {(("Note",), "text"), (("Note",), "tags"), (("ABOUT",), "why"),
            (("Flag",), "label")} <= hits, hits
    assert sum(1 for labels, key in hits if labels == ("Note",) and key == "text") == 1
    report = apply_deletion(store_of(memory), plan)
    assert report.verification.passed, report.verification.problems
    left = _holders(memory, TERM)
    assert sorted(key for _, _, key in left) == ["text", "text"], left  # the two others'
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n:Note) WHERE n.tenant IS NULL AND EXISTS { (n)-[:ABOUT]->(:Record {id: 'C2'}) }"
        " MATCH (n)-[a:ABOUT]->() RETURN n.text AS text, n.tags AS tags, a.why AS why",
        database_=db)
    assert [dict(r) for r in rows] == [{"text": "called [REDACTED] back",
                                        "tags": ["x", "[REDACTED]"], "why": "[REDACTED] asked"}]


@pytest.mark.parametrize(("term_form", "text_form"), [("NFC", "NFD"), ("NFD", "NFC")])
def test_a_term_in_another_unicode_form_is_the_same_term(
        memory: Memory, term_form: Literal["NFC", "NFD"], text_form: Literal["NFC", "NFD"]
) -> None:
    """'René Dupont' written decomposed (e + U+0301) in a record, a retraction reason, a
    derived record, an intention and a retrieval query is the same name as the composed
    term: the plan finds it, redaction removes it and the verification checks it, whichever
    form either side uses (docs/spec/deletion.md: every text)."""
    import unicodedata

    def form(text: str, kind: Literal["NFC", "NFD"]) -> str:
        return unicodedata.normalize(kind, text)

    name, term = form("René Dupont", text_form), form("RENÉ DUPONT", term_form)
    memory.write(_rec("N1", f"call {name} about the refund"), now=NOW)
    memory.write(_rec("N2", "prefers window seats"), now=NOW)
    memory.write(_rec("ND", f"profile of {name}", derived_from=["N2"]), now=NOW)
    memory.retract("N2", by="agent", reason=f"{name} asked")
    memory.intend({"id": "NI", "action": f"phone {name}", "trigger_kind": "ticket",
                   "trigger_value": "t-1", "scope": T, "created_at": "2026-09-01T09:00:00+00:00"})
    memory.retrieve({"memory_scope": T, "goal": f"how to reach {name}",
                     "needs_prior_context": True},
                    principal=Principal(tenants=frozenset({"t1"})), now=NOW)
    plan = plan_deletion(store_of(memory), roots=["N1"], redact_terms=[term], requested_by="dpo",
                         reason="erase the customer")
    assert {"ND", "NI"} <= {e.id for e in plan.entries if e.terms}
    assert any(h.query_holds_terms for h in plan.retrievals)
    assert scan_tenant_text(store_of(memory), ["t1"], [term])  # the verification's scan sees it
    report = apply_deletion(store_of(memory), plan)
    assert report.verification.passed, report.verification.problems
    nfc_name = form("rené dupont", "NFC")
    assert [h for h in _holders(memory, "dupont")
            if nfc_name in form(str(h), "NFC").lower()] == []
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n) UNWIND keys(n) AS k WITH n[k] AS v WHERE v IS :: STRING "
        "AND toLower(normalize(v)) CONTAINS 'dupont' RETURN count(*) AS n",
        database_=store_of(memory).database)
    assert rows[0]["n"] == 0
    assert memory.get("ND").content == "profile of [REDACTED]"
