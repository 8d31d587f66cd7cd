"""A procedure needs N (default 3) verified supporting episodes whatever its
authority, unless it is an explicit instruction (human_instruction) or comes from an
authoritative source (a runbook); verified_outcome is not exempt (docs/spec/write-path.md)."""

from __future__ import annotations

import pytest

from graphmem.client import Memory, store_of
from graphmem.models import Authority, MemoryRecord, Principal, Status
from graphmem.write.policy import (
    PROCEDURE_EXEMPT_AUTHORITIES,
    WriteDisposition,
)
from tests.support.procedures import SCOPE, T0, episodes, rec


@pytest.mark.parametrize(("authority", "expected"), [
    ("verified_outcome", WriteDisposition.QUARANTINE),
    ("model_inferred", WriteDisposition.QUARANTINE),
    ("human_instruction", WriteDisposition.PERSIST),
    ("authoritative_source", WriteDisposition.PERSIST),
])
def test_on_the_store(memory: Memory, authority: str, expected: WriteDisposition) -> None:
    memory.put_many(list(episodes(1).values()))
    decision = memory.write(rec("p", authority=authority, evidence_ids=["e0"]), now=T0)
    assert decision.disposition is expected
    reader = Principal(tenants=frozenset({"t"}))
    status = memory.explain("p", principal=reader, scope=SCOPE, now=T0).status
    assert status is (Status.QUARANTINED if expected is WriteDisposition.QUARANTINE
                      else Status.ACTIVE)
    if expected is WriteDisposition.QUARANTINE:  # three verified episodes lift the bar
        memory.put_many([rec(f"e{i}", kind="episodic") for i in (1, 2)])
        more = memory.write(rec("p3", authority=authority, content="do p again",
                                evidence_ids=["e0", "e1", "e2"]), now=T0)
        assert more.disposition is WriteDisposition.PERSIST


def _quarantined(memory: Memory, episode: MemoryRecord) -> None:
    store_of(memory).put_many([episode], quarantined=True)


def _pending_recompute(memory: Memory, episode: MemoryRecord) -> None:
    sources = [rec(f"src-{episode.id}-{i}", kind="episodic", content=f"log {i}")
               for i in (1, 2)]
    memory.put_many([*sources, episode.model_copy(update={
        "derived_from": tuple(s.id for s in sources)})])
    memory.apply_deletion(memory.plan_deletion([sources[0].id], requested_by="p", reason="r"))
    assert store_of(memory).state(episode.id).pending_recompute


def _other_tenant(memory: Memory, episode: MemoryRecord) -> None:
    memory.put(episode.model_copy(update={"scope": {"tenant": "other", "repo": "r"}}))


def _retracted(memory: Memory, episode: MemoryRecord) -> None:
    memory.put(episode)
    memory.retract(episode.id, by="agent", reason="did not happen")


UNSUPPORTING = {"quarantined": _quarantined, "pending_recompute": _pending_recompute,
                "other_tenant": _other_tenant, "retracted": _retracted}


@pytest.mark.parametrize("state", sorted(UNSUPPORTING))
def test_only_admitted_episodes_of_the_tenant_support(memory: Memory, state: str) -> None:
    """Two admitted verified episodes and one that is quarantined (a poisoned 'verified'
    episode), pending recompute, another tenant's or retracted: still under the bar, on the
    write path and on promote_procedure; a third admitted episode lifts it."""
    from graphmem.errors import PolicyError

    memory.put_many([rec(f"e{i}", kind="episodic") for i in (0, 1)])
    UNSUPPORTING[state](memory, rec("bad", kind="episodic"))
    ids = ["e0", "e1", "bad"]
    decision = memory.write(rec("p", evidence_ids=ids), now=T0)
    assert decision.disposition is WriteDisposition.QUARANTINE, decision.reason
    assert "2 verified supporting episodes" in decision.reason
    with pytest.raises(PolicyError, match="2 verified episodes"):
        memory.promote_procedure(ids, rec("p2", content="do p2"), by="r", reason="bar met?")
    memory.put(rec("e2", kind="episodic"))
    ok = memory.write(rec("p3", content="do p3", evidence_ids=[*ids, "e2"]), now=T0)
    assert ok.disposition is WriteDisposition.PERSIST, ok.reason
    promoted = memory.promote_procedure([*ids, "e2"], rec("p4", content="do p4"), by="r",
                                        reason="three verified episodes")
    assert promoted.disposition is WriteDisposition.PERSIST


@pytest.mark.parametrize("authority", list(Authority))
def test_langgraph_puts_cannot_store_procedures_under_the_bar(memory: Memory,
                                                              authority: Authority) -> None:
    """A LangGraph put bypasses the write policy and names no episodes, so a store writing
    procedures is only allowed with an exempt authority (docs/spec/write-path.md)."""
    from graphmem.errors import ValidationError
    from graphmem.integrations.langgraph import GraphmemStore
    from graphmem.models import MemoryKind

    principal = Principal(tenants=frozenset({"t"}))
    if authority in PROCEDURE_EXEMPT_AUTHORITIES:
        store = GraphmemStore(memory, principal=principal, kind=MemoryKind.PROCEDURAL,
                              authority=authority, max_authority=authority)  # who configures
        store.put(("t", "runbooks"), "deploy", {"text": "run make deploy"})
        assert store.get(("t", "runbooks"), "deploy") is not None
    else:
        with pytest.raises(ValidationError, match="procedural"):
            GraphmemStore(memory, principal=principal, kind=MemoryKind.PROCEDURAL,
                          authority=authority)
    GraphmemStore(memory, principal=principal, authority=authority,
                  max_authority=authority)  # other kinds: as before
