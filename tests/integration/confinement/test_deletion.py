"""Deletion by a confined caller reveals and changes nothing outside its reach (against the
real Neo4j): its plans list only the logged retrievals made within its reach, its redaction
terms are looked for and redacted only in what it may change, and no plan, report,
verification, certificate or error of it names, counts or hints at a record or retrieval of
another user of the same tenant, or one above its clearance.

Every deletion entry point of ``Memory`` is driven over a world with a victim of each kind
(see :data:`ENTRY_POINTS`); a call that answers must leak no victim id, a call that refuses
must change nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from mcp import Client

from graphmem import (
    AuthorizationError,
    DeletionError,
    Memory,
    OutOfReachError,
    Principal,
    RecordNotFoundError,
)
from graphmem.client import store_of
from graphmem.deletion import DeletionPlan
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import ok, serve
from tests.support.principals import PRIVACY, T0, U17, U17_CONF, U99

pytestmark = pytest.mark.neo4j

TERM = "Jane Roe"
#: what the victims are called; none may appear in what a u-17 caller is told
VICTIMS = ("rec-u99", "rec-conf", "note-u99", "note-conf")


def _rec(rid: str, scope: dict[str, str], content: str, *, sensitivity: str = "normal",
         **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "created_at": T0,
            "scope": {"tenant": "acme", **scope}, "authority": "human_instruction",
            "sensitivity": sensitivity, **extra}


def _retrieve(memory: Memory, principal: Principal, scope: dict[str, str], goal: str) -> str:
    result = memory.retrieve({"memory_scope": {"tenant": "acme", **scope}, "goal": goal,
                              "needs_prior_context": True}, principal=principal,
                             now=T0 + timedelta(days=1))
    return result.trace.retrieval_id


def _world(memory: Memory) -> dict[str, str]:
    """u-17's root and note, both mentioning the term; the same for u-99 and for a
    confidential record of u-17; a tenant-wide record too; retrievals that selected u-17's
    root, made within u-17's reach and beyond it (a higher clearance); retrievals whose
    queries hold the term, of u-17 and of u-99. Returns the retrieval ids by name."""
    memory.put(_rec("own", {"user": "u-17"}, f"{TERM} lives at 1 Elm St"))
    memory.put(_rec("own-note", {"user": "u-17"}, f"call {TERM} on Mondays"))
    memory.put(_rec("shared", {}, f"{TERM} is on the customer list"))
    memory.put(_rec("rec-u99", {"user": "u-99"}, f"{TERM} is u-99's aunt"))
    memory.put(_rec("note-u99", {"user": "u-99"}, "u-99 keeps a note"))
    memory.put(_rec("rec-conf", {"user": "u-17"}, f"{TERM}'s salary", sensitivity="confidential"))
    memory.put(_rec("note-conf", {"user": "u-17"}, "a confidential note",
                    sensitivity="confidential"))
    return {
        "mine": _retrieve(memory, U17, {"user": "u-17"}, "where does Jane Roe live"),
        "conf-saw-own": _retrieve(memory, U17_CONF, {"user": "u-17"}, "Elm St address"),
        "u99-query": _retrieve(memory, U99, {"user": "u-99"}, "who is Jane Roe"),
    }


def _selected(memory: Memory, retrieval_id: str) -> set[str]:
    return set(memory.get_retrieval(retrieval_id)["retrieval"]["selected_ids"])


def _query(memory: Memory, retrieval_id: str) -> str:
    return str(memory.get_retrieval(retrieval_id)["retrieval"]["query"])


def _assert_silent(text: str, hidden: set[str]) -> None:
    for leak in hidden:
        assert leak not in text, (leak, text[:2000])


def test_a_confined_plan_lists_only_retrievals_made_within_its_reach(memory: Memory) -> None:
    q = _world(memory)
    assert "own" in _selected(memory, q["mine"]) and "own" in _selected(memory,
                                                                       q["conf-saw-own"])
    wide = memory.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="ops",
                                reason="r")
    assert {h.retrieval_id for h in wide.retrievals} >= set(q.values())  # unchanged
    bound = memory.confined(U17)
    plan = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                               reason="r")
    assert {h.retrieval_id for h in plan.retrievals} == {q["mine"]}
    _assert_silent(plan.to_json(), {q["conf-saw-own"], q["u99-query"], *VICTIMS, "shared"})
    report = bound.apply_deletion(plan)
    _assert_silent(report.model_dump_json(), {q["conf-saw-own"], q["u99-query"], *VICTIMS,
                                              "shared"})
    assert TERM not in _query(memory, q["mine"])
    assert TERM in _query(memory, q["u99-query"])  # beyond its reach: left for a wider one


def test_confined_redaction_changes_and_counts_only_what_the_caller_may_change(
        memory: Memory) -> None:
    _world(memory)
    before = store_of(memory).get_props(["rec-u99", "rec-conf", "shared"])
    bound = memory.confined(U17)
    plan = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                               reason="r")
    assert {e.id: e.disposition.value for e in plan.entries} == {
        "own": "DELETE", "own-note": "REDACT"}
    assert plan.reach is not None and plan.reach.scope == {"user": "u-17"}
    report = bound.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems
    assert report.request.reach == plan.reach
    assert memory.get("own-note").content == "call [REDACTED] on Mondays"
    assert store_of(memory).get_props(["rec-u99", "rec-conf", "shared"]) == before
    again = bound.verify_deletion(report.request.id)
    assert again.verification.passed
    _assert_silent(again.model_dump_json(), {*VICTIMS, "shared"})
    cert = bound.deletion_certificate(report.request.id)
    _assert_silent(cert.to_json(), {*VICTIMS, "shared"})
    assert bound.check_certificate(cert).passed
    # the privacy team's tenant-wide principal then redacts the rest, as it always did
    privacy = memory.confined(PRIVACY)
    wide = privacy.plan_deletion(roots=["rec-u99"], redact_terms=[TERM],
                                 requested_by="privacy", reason="r")
    assert wide.reach is None
    assert {"rec-conf", "shared"} <= {e.id for e in wide.entries}
    assert privacy.apply_deletion(wide).verification.passed
    assert TERM not in memory.get("shared").content


def _decided_by(memory: Memory) -> dict[str, str]:
    """Who each logged decision names as its writer, by the proposal's id."""
    rows = store_of(memory).driver.execute_query(
        "MATCH (w:WriteDecision) RETURN w.record_id AS id, w.by AS by",
        database_=store_of(memory).database).records
    return {row["id"]: row["by"] for row in rows}


def test_a_confined_erasure_redacts_the_discarded_proposals_within_its_reach(
        memory: Memory) -> None:
    """A discarded proposal leaves a decision and no record. A confined erasure redacts the
    decisions logged within its reach (by the proposal's stored scope and sensitivity), and
    verifies them, as it does records; another user's, a higher clearance's and one logged
    before decisions kept their scope are a wider principal's (docs/spec/deletion.md)."""
    _world(memory)
    bot = f"{TERM}'s bot"
    memory.confined(U17).write(_rec("own-dup", {"user": "u-17"}, f"{TERM} lives at 1 Elm St"),
                               by=bot, now=T0)
    memory.confined(U99).write(_rec("u99-dup", {"user": "u-99"}, f"{TERM} is u-99's aunt"),
                               by=bot, now=T0)
    memory.confined(U17_CONF).write(_rec("conf-dup", {"user": "u-17"}, f"{TERM}'s salary",
                                         sensitivity="confidential"), by=bot, now=T0)
    memory.confined(U17).write(_rec("old-dup", {"user": "u-17"}, f"call {TERM} on Mondays"),
                               by=bot, now=T0)
    store_of(memory).driver.execute_query(  # as logged before decisions kept their scope
        "MATCH (w:WriteDecision {record_id: 'old-dup'}) REMOVE w.pairs, w.sensitivity_rank",
        database_=store_of(memory).database)
    for rid in ("own-dup", "u99-dup", "conf-dup", "old-dup"):
        with pytest.raises(RecordNotFoundError):  # discarded: nothing stored but the decision
            memory.get(rid)
    holders = {rid for rid, by in _decided_by(memory).items() if TERM in by}
    assert holders >= {"own-dup", "u99-dup", "conf-dup", "old-dup"}
    bound = memory.confined(U17)
    report = bound.apply_deletion(bound.plan_deletion(
        roots=["own"], redact_terms=[TERM], requested_by="a", reason="r"))
    assert report.verification.passed, report.verification.problems
    decided = _decided_by(memory)
    assert decided["own-dup"].startswith("[REDACTED]'s bot [")
    assert {rid for rid, by in decided.items() if TERM in by} == holders - {"own-dup"}
    privacy = memory.confined(PRIVACY)
    assert privacy.apply_deletion(privacy.plan_deletion(
        roots=["rec-u99"], redact_terms=[TERM], requested_by="privacy",
        reason="r")).verification.passed
    assert TERM not in "".join(_decided_by(memory).values())


def test_a_term_held_beyond_reach_does_not_decide_a_confined_plan(memory: Memory) -> None:
    """Whether another user's record mentions the term changes nothing in u-17's plan."""
    memory.put(_rec("own", {"user": "u-17"}, f"{TERM} lives at 1 Elm St"))
    bound = memory.confined(U17)
    alone = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                                reason="r", request_id="del-1")
    memory.put(_rec("rec-u99", {"user": "u-99"}, f"{TERM} is u-99's aunt"))
    memory.put(_rec("rec-conf", {"user": "u-17"}, f"{TERM}'s salary",
                    sensitivity="confidential"))
    _retrieve(memory, U99, {"user": "u-99"}, "who is Jane Roe")
    crowded = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                                  reason="r", request_id="del-1")
    same = {"term_salt": "", "term_checks": (), "planned_at": T0, "digest": ""}
    assert alone.model_copy(update=same) == crowded.model_copy(update=same)


def test_a_plan_naming_a_parent_beyond_reach_is_refused_whole(memory: Memory) -> None:
    memory.put(_rec("own", {"user": "u-17"}, "a fact"))
    memory.put(_rec("rec-u99", {"user": "u-99"}, "another fact"))
    memory.put(_rec("mixed", {"user": "u-17"}, "from both", derived_from=["own", "rec-u99"]))
    bound = memory.confined(U17)
    with pytest.raises(AuthorizationError) as info:
        bound.plan_deletion(roots=["own"], requested_by="a", reason="r")
    assert "rec-u99" not in str(info.value) and "wider reach" in str(info.value)
    shared_parent = memory.confined(U17)
    memory.put(_rec("shared", {}, "a tenant fact"))
    memory.put(_rec("mixed2", {"user": "u-17"}, "from shared", derived_from=["shared"]))
    memory.put(_rec("own2", {"user": "u-17"}, "own fact"))
    memory.put(_rec("mixed3", {"user": "u-17"}, "x", derived_from=["own2", "shared"]))
    plan = shared_parent.plan_deletion(roots=["own2"], requested_by="a", reason="r")
    assert plan.disposition_of("mixed3") is not None  # a parent it may read is named


def test_a_stale_confined_plan_names_nothing_beyond_reach(memory: Memory) -> None:
    memory.put(_rec("own", {"user": "u-17"}, "a fact"))
    bound = memory.confined(U17)
    plan = bound.plan_deletion(roots=["own"], requested_by="a", reason="r")
    memory.put(_rec("child-u99", {"user": "u-99"}, "derived", derived_from=["own"]))
    with pytest.raises(DeletionError) as info:
        bound.apply_deletion(plan)
    assert "child-u99" not in str(info.value) and "child-u99" not in info.value.record_ids
    assert memory.get("own").content == "a fact"


def test_a_request_made_with_wider_reach_is_not_the_confined_callers(memory: Memory) -> None:
    """An operator's request, even one that only erased u-17's records, verified over the
    whole tenant: a u-17 caller reaches neither its report nor its certificate."""
    q = _world(memory)
    done = memory.apply_deletion(memory.plan_deletion(
        roots=["own"], redact_terms=[TERM], requested_by="ops", reason="r"))
    assert q["conf-saw-own"] in {h.retrieval_id for h in done.retrievals}
    bound = memory.confined(U17)
    for call in (lambda: bound.verify_deletion(done.request.id),
                 lambda: bound.deletion_certificate(done.request.id)):
        with pytest.raises(OutOfReachError) as info:
            call()
        _assert_silent(str(info.value), {done.request.id, q["conf-saw-own"], *VICTIMS})
    with pytest.raises(AuthorizationError):  # nor applies a plan made wider than its reach
        bound.apply_deletion(memory.plan_deletion(roots=["own-note"], requested_by="ops",
                                                  reason="r"))


# -- every deletion entry point, over victims of both kinds -------------------------------

Entry = Callable[[Memory, Memory], object]

#: every deletion call of Memory, made by a u-17 client (first argument) over the world,
#: with the operator's client (second) to prepare what it needs
ENTRY_POINTS: dict[str, Entry] = {
    "plan_deletion(roots)": lambda b, m: b.plan_deletion(
        roots=["own"], redact_terms=[TERM], requested_by="a", reason="r"),
    "plan_deletion(subject)": lambda b, m: b.plan_deletion(
        subject={"topic": "t"}, redact_terms=[TERM], requested_by="a", reason="r"),
    "apply_deletion": lambda b, m: b.apply_deletion(b.plan_deletion(
        roots=["own"], redact_terms=[TERM], requested_by="a", reason="r")),
    "apply_deletion(json)": lambda b, m: b.apply_deletion(DeletionPlan.from_json(
        b.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                        reason="r").to_json()), redact_terms=[TERM]),
    "verify_deletion": lambda b, m: b.verify_deletion(b.apply_deletion(b.plan_deletion(
        roots=["own"], redact_terms=[TERM], requested_by="a", reason="r")).request.id),
    "deletion_certificate": lambda b, m: b.deletion_certificate(b.apply_deletion(
        b.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                        reason="r")).request.id),
    "check_certificate": lambda b, m: b.check_certificate(b.deletion_certificate(
        b.apply_deletion(b.plan_deletion(roots=["own"], redact_terms=[TERM],
                                         requested_by="a", reason="r")).request.id)),
}


def _dump(answer: object) -> str:
    dump = getattr(answer, "model_dump_json", None)
    return str(dump()) if callable(dump) else repr(answer)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_no_deletion_entry_point_reveals_what_is_beyond_reach(memory: Memory,
                                                              name: str) -> None:
    q = _world(memory)
    memory.put(_rec("topic-own", {"user": "u-17", "topic": "t"}, f"{TERM} topic"))
    memory.put(_rec("topic-u99", {"user": "u-99", "topic": "t"}, f"{TERM} topic"))
    # the victims also cite and derive from what u-17 plans, beyond its reach... not: that
    # refuses the plan whole (tested above); here they only share its terms and queries
    hidden = {q["conf-saw-own"], q["u99-query"], *VICTIMS, "topic-u99", "shared"}
    before = store_of(memory).get_props(["rec-u99", "rec-conf", "note-u99", "note-conf",
                                     "topic-u99", "shared"])
    queries = {k: _query(memory, v) for k, v in q.items() if k != "mine"}
    answer = ENTRY_POINTS[name](memory.confined(U17), memory)
    _assert_silent(_dump(answer), hidden)
    assert store_of(memory).get_props(["rec-u99", "rec-conf", "note-u99", "note-conf",
                                   "topic-u99", "shared"]) == before
    assert {k: _query(memory, v) for k, v in q.items() if k != "mine"} == queries


def test_a_confined_certificate_is_chained_within_its_reach_only(memory: Memory) -> None:
    """Its place in the chain and its predecessor say nothing of other callers' erasures."""
    for rid in ("gone-1", "gone-2"):
        memory.put(_rec(rid, {"user": "u-99"}, "a fact"))
        memory.deletion_certificate(memory.apply_deletion(memory.plan_deletion(
            roots=[rid], requested_by="ops", reason="r")).request.id)
    memory.put(_rec("own", {"user": "u-17"}, "a fact"))
    bound = memory.confined(U17)
    done = bound.apply_deletion(bound.plan_deletion(roots=["own"], requested_by="a",
                                                    reason="r"))
    cert = bound.deletion_certificate(done.request.id)
    assert cert.position == {"acme": 1} and cert.previous == {"acme": None}
    assert cert.reach is not None and cert.reach.scope == {"user": "u-17"}
    assert bound.check_certificate(cert).passed and memory.check_certificate(cert).passed
    memory.put(_rec("own-2", {"user": "u-17"}, "another fact"))
    second = bound.deletion_certificate(bound.apply_deletion(bound.plan_deletion(
        roots=["own-2"], requested_by="a", reason="r")).request.id)
    assert second.position == {"acme": 2} and second.previous == {"acme": cert.digest}
    assert bound.check_certificate(second).passed
    memory.put(_rec("gone-3", {"user": "u-99"}, "a fact"))
    wide = memory.deletion_certificate(memory.apply_deletion(memory.plan_deletion(
        roots=["gone-3"], requested_by="ops", reason="r")).request.id)
    assert wide.position == {"acme": 3} and wide.reach is None  # the tenant's own chain
    assert memory.check_certificate(wide).passed


def test_the_mcp_deletion_tools_reveal_nothing_beyond_the_servers_reach(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    q = _world(memory)
    hidden = {q["conf-saw-own"], q["u99-query"], *VICTIMS, "shared"}
    before = store_of(memory).get_props(["rec-u99", "rec-conf", "shared"])
    seen: list[str] = []

    async def body(client: Client) -> None:
        abandoned = await ok(client, "plan_deletion", {"roots": ["own-note"],
                                                       "reason": f"{TERM} asked"})
        seen.append(abandoned["request_id"])
        planned = await ok(client, "plan_deletion", {"roots": ["own"], "reason": "r",
                                                     "redact_terms": [TERM]})
        assert {h["retrieval_id"] for h in planned["plan"]["retrievals"]} == {q["mine"]}
        applied = await ok(client, "apply_deletion", {"digest": planned["digest"],
                                                      "redact_terms": [TERM]})
        assert applied["verification"]["passed"] is True
        again = await ok(client, "verify_deletion", {"request_id": planned["request_id"]})
        seen.extend(json.dumps(x) for x in (planned, applied, again))

    serve(neo4j_db, body, scope={"user": "u-17"}, allow_deletion=True, agent="a1")
    # a plan this server made and never applied is within its reach: its reason is redacted
    reasons = store_of(memory).driver.execute_query(
        "MATCH (r:DeletionRequest {id: $id}) RETURN r.reason AS reason", id=seen.pop(0),
        database_=store_of(memory).database).records
    assert [r["reason"] for r in reasons] == ["[REDACTED] asked"]
    for text in seen:
        _assert_silent(text, hidden)
    assert store_of(memory).get_props(["rec-u99", "rec-conf", "shared"]) == before
    assert TERM in _query(memory, q["u99-query"])
