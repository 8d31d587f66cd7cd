"""A retrieve authorizes its caller once (docs/architecture.md, "The store's operations"): the
principal and the query scope are checked at the entry point, and every later step (due
intentions, candidates, the log) takes that one value; a confined caller still reads nothing
out of its reach (docs/spec/eligibility.md)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from graphmem import AuthorizationError, Memory, Principal, ValidationError
from graphmem.db.access import Access, ScopeQuery
from tests.support.principals import T0, U17, U99

pytestmark = pytest.mark.neo4j

LATER = T0 + timedelta(days=1)
CUE = {"customer": "c-1"}


def _rec(rid: str, user: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"callback plan for customer c-1 ({rid})",
            "created_at": T0, "scope": {"tenant": "acme", "user": user},
            "authority": "human_instruction"}


def _intention(iid: str, user: str) -> dict[str, Any]:
    return {"id": iid, "action": "call the customer back", "trigger_kind": "customer",
            "trigger_value": "c-1", "scope": {"tenant": "acme", "user": user},
            "created_at": T0}


@pytest.fixture()
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every authorization check made: the principal a call runs as (``Access.reader``) and a
    query scope checked against it (``ScopeQuery.build``)."""
    calls: Counter[str] = Counter()
    reader, build = Access.reader, ScopeQuery.build

    def counting_reader(self: Access, given: Principal | None) -> Principal:
        calls["reader"] += 1
        return reader(self, given)

    def counting_build(cls: type[ScopeQuery], *args: Any, **kwargs: Any) -> ScopeQuery:
        calls["scope"] += 1
        return build(*args, **kwargs)

    monkeypatch.setattr(Access, "reader", counting_reader)
    monkeypatch.setattr(ScopeQuery, "build", classmethod(counting_build))
    return calls


def test_a_retrieve_is_authorized_once(memory: Memory, counted: Counter[str]) -> None:
    memory.put_many([_rec("own", "u-17"), _rec("other", "u-99")])
    memory.intend(_intention("i-own", "u-17"))
    bound = memory.confined(U17)
    counted.clear()
    # the event makes the caller's intention due: a trigger, so candidates are read too
    result = bound.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
                             "event": CUE}, now=LATER)
    assert result.trace.triggered and "due_cue" in result.trace.triggers
    assert result.ids == ["own"]
    assert counted == Counter(reader=1, scope=1)
    counted.clear()
    memory.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
                     "needs_prior_context": True}, principal=U99, now=LATER)
    assert counted == Counter(reader=1, scope=1)


def test_a_confined_caller_still_reads_nothing_out_of_reach(memory: Memory) -> None:
    memory.put_many([_rec("own", "u-17"), _rec("other", "u-99")])
    memory.intend(_intention("i-other", "u-99"))
    bound = memory.confined(U17)
    # another user's intention is not due for this caller: no trigger, nothing read
    quiet = bound.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
                            "event": CUE}, now=LATER)
    assert not quiet.trace.triggered and quiet.ids == []
    read = bound.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
                           "needs_prior_context": True}, now=LATER)
    assert read.ids == ["own"] and "other" not in read.trace.candidate_ids
    state = {"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
             "needs_prior_context": True}
    with pytest.raises(AuthorizationError):
        bound.retrieve(state, principal=U99, now=LATER)  # beyond the bound principal
    with pytest.raises(AuthorizationError):
        bound.retrieve({**state, "memory_scope": {"tenant": "acme", "user": "u-99"}},
                       now=LATER)  # contradicts the confinement
    with pytest.raises(AuthorizationError):
        bound.retrieve({**state, "memory_scope": {"tenant": "globex"}}, now=LATER)
    with pytest.raises(ValidationError):
        memory.retrieve(state, now=LATER)  # the operator's client names no principal


def test_a_bound_retrieve_asks_no_reach_of_what_it_read(memory: Memory,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound client's memories name only ids within its reach (docs/spec/eligibility.md#
    confinement), but ids among the candidates just read are within it: a retrieve (and a
    candidates call) whose records name only those sends no extra reach query, so the agent
    loop of a bound client (a bridge's replies rest on its user messages) is no slower than
    before that rule; one naming a record out of the candidates still asks."""
    own = {"scope": {"tenant": "acme", "user": "u-17"}, "created_at": T0,
           "authority": "human_instruction"}
    memory.put_many([{**own, "id": "msg", "kind": "episodic",
                      "content": "the customer c-1 asked for a callback plan"},
                     {**own, "id": "reply", "kind": "episodic",
                      "content": "a callback plan for customer c-1 is set",
                      "derived_from": ["msg"], "evidence_ids": ["msg"]}])
    bound = memory.confined(U17)
    store = type(memory._store)
    reads: list[str] = []
    read = store.read

    def counting(self: Any, name: str, **params: Any) -> Any:
        reads.append(name)
        return read(self, name, **params)

    monkeypatch.setattr(store, "read", counting)
    result = bound.retrieve({"memory_scope": {"tenant": "acme"}, "goal": "callback plan",
                             "needs_prior_context": True}, now=LATER)
    assert set(result.ids) == {"msg", "reply"}
    assert [m.record.derived_from for m in result.memories if m.record.id == "reply"] == [
        ("msg",)]
    found = bound.candidates(scope={"tenant": "acme"}, now=LATER)
    assert {r.id for r in found} == {"msg", "reply"}
    assert "records/reach" not in reads, reads
    memory.put({**own, "id": "late", "kind": "semantic", "content": "callback plan, revised",
                "supersedes": ["reply"]})
    bound.get("late")
    assert "records/reach" in reads
