"""A client bound to a confined principal stays inside its reach: every call of ``Memory``
that names a record, intention, retrieval or deletion request refuses one of another user
of the same tenant, and one above the caller's clearance, exactly as one that does not
exist, writes nothing, and leaks no id or content (against the real Neo4j).

The table of calls is checked against ``Memory``'s public methods: a method added later that
takes an id fails :func:`test_every_id_taking_method_is_in_the_table` until it is listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from graphmem import (
    Authority,
    AuthorityCeilingError,
    AuthorizationError,
    GraphmemError,
    Memory,
    OutOfReachError,
    Principal,
    RecordNotFoundError,
    Status,
    WriteDisposition,
)
from graphmem.client import store_of
from graphmem.db.access import ScopeQuery
from tests.support.confinement import ANSWERS, CALLS, Victim, _proposal
from tests.support.database import Neo4jUnderTest
from tests.support.principals import PRIVACY, T0, U17, U17_CONF, U99

pytestmark = pytest.mark.neo4j

SECRET_TEXT = "zebra-secret-content"


def _rec(rid: str, scope: dict[str, str], *, sensitivity: str = "normal",
         **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"{SECRET_TEXT} of {rid}",
            "created_at": T0, "scope": {"tenant": "acme", **scope},
            "authority": "human_instruction", "sensitivity": sensitivity,
            "asserts": "plan", "asserted_value": rid, **extra}


def _intention(iid: str, scope: dict[str, str], sensitivity: str = "normal") -> dict[str, Any]:
    return {"id": iid, "action": f"{SECRET_TEXT} action", "trigger_kind": "customer",
            "trigger_value": "c-1", "scope": {"tenant": "acme", **scope},
            "created_at": T0, "sensitivity": sensitivity}


def _retrieval(memory: Memory, principal: Principal) -> str:
    result = memory.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "plan",
                              "needs_prior_context": True}, principal=principal,
                             now=T0 + timedelta(days=1))
    return result.trace.retrieval_id


def _request(memory: Memory, rid: str, scope: dict[str, str], sensitivity: str) -> str:
    memory.put(_rec(rid, scope, sensitivity=sensitivity))
    plan = memory.plan_deletion(roots=[rid], requested_by="ops", reason="test")
    return memory.apply_deletion(plan).request.id


@pytest.fixture()
def world(memory: Memory) -> Iterator[dict[str, Victim]]:
    memory.put(_rec("own", {"user": "u-17"}))
    memory.put(_rec("shared", {}))
    for rid, scope, sens in (("rec-u99", {"user": "u-99"}, "normal"),
                             ("rec-conf", {"user": "u-17"}, "confidential")):
        memory.put(_rec(rid, scope, sensitivity=sens))
    memory.intend(_intention("i-own", {"user": "u-17"}))
    memory.intend(_intention("int-u99", {"user": "u-99"}))
    memory.intend(_intention("int-conf", {"user": "u-17"}, "confidential"))
    yield {
        "other user": Victim("rec-u99", "int-u99", _retrieval(memory, U99),
                             _request(memory, "gone-other", {"user": "u-99"}, "normal")),
        "above clearance": Victim("rec-conf", "int-conf", _retrieval(memory, U17_CONF),
                                  _request(memory, "gone-secret", {"user": "u-17"},
                                           "confidential")),
    }


def _snapshot(memory: Memory, v: Victim) -> tuple[object, ...]:
    props = store_of(memory).get_props([v.record])
    intention = store_of(memory).read("intentions/get", id=v.intention)
    return (props, intention, store_of(memory).counts(),
            store_of(memory).read("retrieval/get", id=v.retrieval))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_confined_client_refuses_what_is_out_of_reach(
        memory: Memory, world: dict[str, Victim], name: str) -> None:
    bound = memory.confined(U17)
    for kind, victim in world.items():
        for call in CALLS[name]:
            before = _snapshot(memory, victim)
            with pytest.raises(AuthorizationError) as info:
                call(bound, memory, victim)
            message = str(info.value)
            for leak in (victim.record, victim.intention, victim.retrieval, victim.request,
                         SECRET_TEXT, "u-99"):
                assert leak not in message, (name, kind, message)
                assert leak not in info.value.record_ids
            assert _snapshot(memory, victim) == before, (name, kind)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_confined_client_answers_as_for_another_tenant(
        memory: Memory, world: dict[str, Victim], name: str) -> None:
    bound = memory.confined(U17)
    memory.put(_rec("rec-globex", {}) | {"scope": {"tenant": "globex"}})
    foreign = ANSWERS[name](bound, memory, Victim("rec-globex", "", "", ""))
    for kind, victim in world.items():
        before = _snapshot(memory, victim)
        answer = ANSWERS[name](bound, memory, victim)
        assert answer.model_copy(update={"record_id": "x"}) == foreign.model_copy(
            update={"record_id": "x"}), (name, kind)
        assert _snapshot(memory, victim) == before


def test_explain_answers_alike_for_unknown_ids_and_discarded_proposals_out_of_reach(
        memory: Memory, world: dict[str, Victim]) -> None:
    """A bound client's explain of an id that names nothing, or another user's discarded
    proposal, or one above its clearance, is the answer for another tenant's record; the
    proposal's own user (and clearance) still learns it was discarded and why."""
    memory.put(_rec("rec-globex", {}) | {"scope": {"tenant": "globex"}})
    for rid, twin, scope, sens in (("prop-u99", "rec-u99", {"user": "u-99"}, "normal"),
                                   ("prop-conf", "rec-conf", {"user": "u-17"}, "confidential")):
        decision = memory.write(_rec(rid, scope, sensitivity=sens)
                                | {"content": f"{SECRET_TEXT} of {twin}"}, now=T0)
        assert decision.disposition is WriteDisposition.DISCARD and twin in decision.reason
    query = {"tenant": "acme"}
    for principal in (U17, U17_CONF):
        bound = memory.confined(principal)
        foreign = bound.explain("rec-globex", scope=query, now=T0)
        assert foreign.status is Status.UNAUTHORIZED
        hidden = ["no-such-id", "prop-u99"] + (["prop-conf"] if principal is U17 else [])
        for rid in hidden:
            answer = bound.explain(rid, scope=query, now=T0)
            assert answer.record_id == rid
            assert answer.model_copy(update={"record_id": "x"}) == foreign.model_copy(
                update={"record_id": "x"}), (principal, rid)
    own = memory.confined(U17_CONF).explain("prop-conf", scope=query, now=T0)
    assert own.status is Status.DISCARDED and "rec-conf" in own.detail
    theirs = memory.confined(U99).explain("prop-u99", scope=query, now=T0)
    assert theirs.status is Status.DISCARDED and "rec-u99" in theirs.detail
    with pytest.raises(RecordNotFoundError):  # the operator's client learns it names nothing
        memory.explain("no-such-id", principal=U17, scope=query, now=T0)
    assert memory.explain("prop-u99", principal=U17, scope=query,
                          now=T0).status is Status.UNAUTHORIZED


def test_a_decision_logged_before_decisions_kept_their_scope_explains_as_it_did(
        memory: Memory, world: dict[str, Victim]) -> None:
    """A discarded proposal whose decision has no scope or sensitivity (an older version
    logged it) explains as before to a principal without confinement, and as out of reach to
    a confined one (found by a breaker: every caller but the highest clearance got
    UNAUTHORIZED)."""
    store = store_of(memory)
    store.driver.execute_query(
        "CREATE (:WriteDecision {record_id: 'old-prop', tenant: 'acme', disposition: 'DISCARD', "
        "reason: 'duplicates active record shared in the same scope', at: $at, by: 'agent'})",
        at=T0, database_=store.database)
    query = {"tenant": "acme"}
    tenant_wide = Principal(tenants=frozenset({"acme"}))
    for client in (memory.confined(tenant_wide), memory.confined(PRIVACY)):
        assert client.explain("old-prop", scope=query, now=T0).status is Status.DISCARDED
    assert memory.explain("old-prop", principal=tenant_wide, scope=query,
                          now=T0).status is Status.DISCARDED
    assert memory.confined(U17).explain("old-prop", scope=query,
                                        now=T0).status is Status.UNAUTHORIZED


def test_the_duplicate_check_sees_no_record_above_the_proposal(
        memory: Memory, world: dict[str, Victim]) -> None:
    """A writer of clearance normal who guesses a confidential record's content in its own
    scope is not told (docs/spec/write-path.md#duplicates): its record is stored, at its own
    sensitivity; a confidential twin still duplicates it."""
    guess = {"content": f"{SECRET_TEXT} of rec-conf"}
    twin = memory.confined(U17_CONF).write(
        _rec("twin", {"user": "u-17"}, sensitivity="confidential") | guess, now=T0)
    assert twin.disposition is WriteDisposition.DISCARD and twin.duplicate_of == "rec-conf"
    bound = memory.confined(U17)
    stored = bound.write(_rec("guess", {"user": "u-17"}) | guess, now=T0)
    assert stored.disposition is WriteDisposition.PERSIST, stored.reason
    assert "rec-conf" not in stored.reason
    assert memory.get("guess").sensitivity.value == "normal"
    again = bound.write(_rec("guess-2", {"user": "u-17"}) | guess, now=T0)
    assert again.disposition is WriteDisposition.DISCARD and again.duplicate_of == "guess"


def test_an_unknown_id_and_an_id_out_of_reach_look_alike(
        memory: Memory, world: dict[str, Victim]) -> None:
    bound = memory.confined(U17)
    with pytest.raises(OutOfReachError) as unknown:
        bound.get("no-such-id")
    with pytest.raises(OutOfReachError) as hidden:
        bound.get("rec-u99")
    assert str(unknown.value) == str(hidden.value)
    with pytest.raises(RecordNotFoundError):  # as it always was for callers catching this
        bound.history("rec-u99")
    assert memory.get("rec-u99").id == "rec-u99"  # the operator's client is unchanged


def test_a_confined_client_reads_its_own_and_shared_records_and_changes_only_its_own(
        memory: Memory, world: dict[str, Victim]) -> None:
    bound = memory.confined(U17)
    assert bound.get("own").id == "own" and bound.get("shared").id == "shared"
    assert bound.explain("shared", scope={"tenant": "acme"}, now=T0).status is Status.ACTIVE
    seen = {r.id for r in bound.candidates(scope={"tenant": "acme"}, now=T0)}
    assert seen == {"own", "shared"}
    with pytest.raises(OutOfReachError):
        bound.retract("shared", by="a", reason="r")
    with pytest.raises(AuthorizationError):
        bound.candidates(scope={"tenant": "acme", "user": "u-99"}, now=T0)
    with pytest.raises(AuthorizationError):
        bound.candidates(principal=PRIVACY, scope={"tenant": "acme"}, now=T0)
    assert {n for n in bound.lineage("own", "both").nodes} == {"own"}
    bound.retract("own", by="a", reason="r")
    assert store_of(memory).state("own").retracted_by == "a"
    assert bound.intentions.get("i-own").id == "i-own"
    assert [i.id for i in bound.due({"customer": "c-1"}, scope={"tenant": "acme"},
                                    now=T0)] == ["i-own"]
    assert bound.fire("i-own", by="a", now=T0)


def test_explain_for_a_confined_principal_answers_unauthorized_as_another_tenants(
        memory: Memory, world: dict[str, Victim]) -> None:
    e = memory.explain("rec-u99", principal=U17, scope={"tenant": "acme"}, now=T0)
    assert e.status is Status.UNAUTHORIZED and not e.successor_ids
    assert memory.explain("rec-u99", principal=U99, scope={"tenant": "acme"},
                          now=T0).status is Status.ACTIVE


def test_retrievals_of_a_confined_principal_are_confined_and_logged_so(
        memory: Memory, world: dict[str, Victim]) -> None:
    bound = memory.confined(U17)
    result = bound.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "plan",
                             "needs_prior_context": True}, now=T0 + timedelta(days=1))
    assert {m.record.id for m in result.memories} <= {"own", "shared"}
    assert "rec-u99" not in result.trace.candidate_ids
    logged = bound.get_retrieval(result.trace.retrieval_id)["retrieval"]
    assert '"user": "u-17"' in logged["scope_json"]


def test_bulk_imports_are_the_operators_only(memory: Memory) -> None:
    bound = memory.confined(U17)
    for call in (lambda: bound.put(_rec("x", {"user": "u-17"})),
                 lambda: bound.put_many([_rec("x", {"user": "u-17"})])):
        with pytest.raises(AuthorizationError):
            call()
    assert "x" not in store_of(memory).get_props(["x"])


def test_writes_are_confined_and_the_ceiling_refuses_and_records_claims(
        memory: Memory) -> None:
    bound = memory.confined(U17)
    before = store_of(memory).counts()
    with pytest.raises(AuthorityCeilingError, match="max_authority"):
        bound.write({**_proposal("planted"), "authority": "authoritative_source"})
    assert store_of(memory).counts() == before and not store_of(memory).get_props(["planted"])
    with pytest.raises(AuthorizationError):
        bound.write({**_proposal("w-99"), "scope": {"tenant": "acme", "user": "u-99"}})
    decision = bound.write(_proposal("mine"))
    assert decision.disposition.value == "PERSIST"
    assert memory.get("mine").scope == {"tenant": "acme", "user": "u-17"}
    by = [h["by"] for h in memory.history("mine") if str(h["kind"]).startswith("write:")]
    assert by and "claimed human_instruction" in by[0] and "max_authority human_instruction" \
        in by[0] and "user=u-17" in by[0]
    trusted = memory.confined(U17, max_authority=Authority.AUTHORITATIVE_SOURCE)
    assert trusted.write({**_proposal("trusted"), "authority": "authoritative_source",
                          "content": "the contract says so"}).disposition.value == "PERSIST"
    memory.write({**_proposal("op"), "authority": "authoritative_source"})  # the operator


def test_a_bound_client_can_only_be_narrowed(memory: Memory) -> None:
    bound = memory.confined(U17)
    with pytest.raises(AuthorizationError):
        bound.confined(PRIVACY)
    narrower = bound.confined(U17, max_authority=Authority.AUTHORITATIVE_SOURCE)
    assert narrower.access.max_authority is Authority.HUMAN_INSTRUCTION
    bound.close()  # a view closes nothing
    assert store_of(memory).counts() is not None


# -- deletion across the confinement ------------------------------------------------------


def test_subject_deletion_is_confined_and_holds_clearance(memory: Memory) -> None:
    memory.put(_rec("own", {"user": "u-17"}))
    memory.put(_rec("rec-u99", {"user": "u-99"}))
    memory.put(_rec("shared", {}))
    bound = memory.confined(U17)
    with pytest.raises(AuthorizationError) as info:
        bound.plan_deletion(subject={"user": "u-99"}, requested_by="a", reason="r")
    assert "rec-u99" not in str(info.value)
    plan = bound.plan_deletion(subject={}, requested_by="a", reason="r")
    assert plan.subject == {"tenant": "acme", "user": "u-17"}
    assert {e.id for e in plan.entries} == {"own"}
    memory.put(_rec("rec-conf", {"user": "u-17"}, sensitivity="confidential"))
    for subject in ({}, {"user": "u-17"}):
        with pytest.raises(AuthorizationError) as info:
            bound.plan_deletion(subject=subject, requested_by="a", reason="r")
        assert "rec-conf" not in str(info.value) and "wider reach" in str(info.value)
    cleared = memory.confined(U17_CONF)
    report = cleared.apply_deletion(cleared.plan_deletion(subject={}, requested_by="a",
                                                          reason="r"))
    assert {e.id for e in report.entries} == {"own", "rec-conf"}
    assert memory.get("rec-u99").id == "rec-u99" and memory.get("shared").id == "shared"


def test_lineage_deletion_reaching_another_user_needs_a_wider_principal(
        memory: Memory) -> None:
    memory.put(_rec("root", {"user": "u-17"}))
    memory.put(_rec("child", {"user": "u-99"}, derived_from=["root"]))
    bound = memory.confined(U17)
    before = store_of(memory).get_props(["root", "child"])
    with pytest.raises(AuthorizationError) as info:
        bound.plan_deletion(roots=["root"], requested_by="a", reason="r")
    assert "child" not in str(info.value) and "wider reach" in str(info.value)
    wide_plan = memory.plan_deletion(roots=["root"], requested_by="ops", reason="r")
    with pytest.raises(AuthorizationError):
        bound.apply_deletion(wide_plan)
    assert store_of(memory).get_props(["root", "child"]) == before
    privacy = memory.confined(PRIVACY)
    report = privacy.apply_deletion(privacy.plan_deletion(roots=["root"], requested_by="p",
                                                          reason="r"))
    assert {e.id for e in report.entries} == {"root", "child"}
    assert privacy.verify_deletion(report.request.id).verification.passed
    with pytest.raises(OutOfReachError):
        bound.verify_deletion(report.request.id)


def test_errors_are_graphmem_errors(memory: Memory) -> None:
    bound = memory.confined(U17)
    with pytest.raises(GraphmemError):
        bound.get("nothing-here")


def test_connect_binds_a_principal_and_process_event_fires_only_its_own(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    memory.put(_rec("rec-u99", {"user": "u-99"}))
    memory.intend(_intention("int-own", {"user": "u-17"}))
    memory.intend(_intention("int-wide", {}))
    memory.intend(_intention("int-u99", {"user": "u-99"}))
    with Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False,
                        principal=U17) as bound:
        with pytest.raises(OutOfReachError):
            bound.get("rec-u99")
        with pytest.raises(AuthorityCeilingError):
            bound.write({**_proposal("planted"), "authority": "verified_outcome"})
        due = {i.id for i in bound.due({"customer": "c-1"}, scope={"tenant": "acme"}, now=T0)}
        assert due == {"int-own", "int-wide"}  # a tenant-wide intention is due for u-17
        fired = bound.process_event({"customer": "c-1"}, scope={"tenant": "acme"}, by="a",
                                    now=T0)
        assert [i.id for i in fired] == ["int-own"]  # but not its to fire
    assert memory.intentions.get("int-wide").status.value == "pending"
    assert memory.intentions.get("int-u99").status.value == "pending"
    assert memory.get("rec-u99").id == "rec-u99"  # the operator's client still reaches it


def test_a_bound_clients_intentions_object_holds_its_confinement(memory: Memory) -> None:
    """``bound.intentions`` (and AsyncMemory's) takes a ``principal`` in ``due`` and
    ``process_event``, and a ready reach in ``due_within``, as the read path hands it: each
    must reach no further than the client, as ``bound.due`` does. It read u-99's
    confidential intention, action and all, given a tenant-wide principal."""
    memory.intend(_intention("int-u99", {"user": "u-99"}, "confidential"))
    memory.intend(_intention("int-own", {"user": "u-17"}))
    bound = memory.confined(U17)
    event, u99 = {"customer": "c-1"}, {"tenant": "acme", "user": "u-99"}
    calls: list[Callable[[], object]] = [
        lambda: bound.intentions.due(event, principal=PRIVACY, scope=u99, now=T0),
        lambda: bound.intentions.process_event(event, principal=PRIVACY, scope=u99, by="a",
                                               now=T0),
        lambda: bound.intentions.due_within(event, ScopeQuery.build(PRIVACY, u99, T0)),
    ]
    for call in calls:
        with pytest.raises(AuthorizationError):
            call()
    assert [i.id for i in bound.intentions.due(event, principal=U17,
                                               scope={"tenant": "acme"}, now=T0)] == ["int-own"]
    assert memory.intentions.get("int-u99").status.value == "pending"


def test_a_retrieval_made_in_reach_by_a_wider_principal_names_no_other_tenant(
        memory: Memory) -> None:
    """A principal of tenants acme and globex read u-17's scope of acme: u-17 may read that
    retrieval, but not learn from it that a tenant globex exists."""
    memory.put(_rec("own", {"user": "u-17"}))
    wide = Principal(tenants=frozenset({"acme", "globex"}))
    rid = memory.confined(wide).retrieve(
        {"memory_scope": {"tenant": "acme", "user": "u-17"}, "goal": "plan",
         "needs_prior_context": True}, now=T0 + timedelta(days=1)).trace.retrieval_id
    logged = memory.confined(U17).get_retrieval(rid)["retrieval"]
    assert "globex" not in str(logged)
    assert logged["principal_tenants"] == ["acme"]
    assert "globex" in memory.get_retrieval(rid)["retrieval"]["principal_tenants"]


def test_a_write_decision_by_a_wider_principal_names_no_other_tenant(memory: Memory) -> None:
    """A bound principal of tenants acme and globex wrote into u-17's scope: its write
    decision's ``by`` records its tenants for the operator, and u-17's history of the record
    names only the tenants u-17 has."""
    wide = Principal(tenants=frozenset({"acme", "globex"}))
    memory.confined(wide).write(_proposal("by-wide") | {
        "scope": {"tenant": "acme", "user": "u-17"}})
    told = " ".join(str(h["by"]) for h in memory.confined(U17).history("by-wide"))
    assert "globex" not in told and "tenants acme;" in told
    assert "globex" in " ".join(str(h["by"]) for h in memory.history("by-wide"))
