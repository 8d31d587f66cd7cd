"""Ids that name more than one thing stay within reach (against the real Neo4j;
docs/spec/eligibility.md#confinement): a record and an intention may carry the same id (each
label's ids are unique on their own), and a record may take the id of a proposal another user
had discarded. A call about an intention judges the intention, one about a record the
record, and a record's history shows no decision on another user's proposal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem import (
    IntentionStatus,
    Memory,
    OutOfReachError,
    RecordConflictError,
    ValidationError,
    WriteDisposition,
)
from tests.support.principals import T0, U17, U99

pytestmark = pytest.mark.neo4j


def _rec(rid: str, user: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"a note of {user}", "created_at": T0,
            "scope": {"tenant": "acme", "user": user}, "authority": "human_instruction"}


def _intention(iid: str, user: str) -> dict[str, Any]:
    return {"id": iid, "action": f"call back for {user}", "trigger_kind": "customer",
            "trigger_value": "c-1", "scope": {"tenant": "acme", "user": user},
            "created_at": T0}


def test_a_record_of_ones_own_opens_no_intention_of_another_user_with_its_id(
        memory: Memory) -> None:
    memory.confined(U99).intend(_intention("remind-1", "u-99"))
    bound = memory.confined(U17)
    bound.write(_rec("remind-1", "u-17"))  # ids are unique per label: this is stored
    calls: dict[str, Callable[[], object]] = {
        "get": lambda: bound.intentions.get("remind-1"),
        "history": lambda: bound.intentions.history("remind-1"),
        "fire": lambda: bound.fire("remind-1", by="u-17"),
        "cancel": lambda: bound.cancel("remind-1", by="u-17", reason="mine now"),
    }
    for name, call in calls.items():
        with pytest.raises(OutOfReachError):
            call()
            pytest.fail(f"{name} reached another user's intention")
    assert memory.intentions.get("remind-1").status is IntentionStatus.PENDING
    assert bound.get("remind-1").content == "a note of u-17"


def test_an_intention_of_ones_own_is_reached_though_another_user_has_a_record_of_its_id(
        memory: Memory) -> None:
    memory.confined(U99).write(_rec("remind-2", "u-99"))
    bound = memory.confined(U17)
    bound.intend(_intention("remind-2", "u-17"))
    assert bound.intentions.get("remind-2").scope["user"] == "u-17"
    assert bound.cancel("remind-2", by="u-17", reason="done")
    with pytest.raises(OutOfReachError):
        bound.get("remind-2")
    plan = bound.plan_deletion(subject={}, requested_by="u-17", reason="forget me")
    assert "remind-2" in [e.id for e in plan.entries]
    bound.apply_deletion(plan)
    assert memory.get("remind-2").content == "a note of u-99"


def test_history_shows_no_decision_on_another_users_proposal_of_the_same_id(
        memory: Memory) -> None:
    """A proposal the policy discarded leaves its decision under its id, and no record: the
    id is free, and a record written with it later must not show that decision."""
    u99 = memory.confined(U99)
    u99.write({**_rec("first", "u-99"), "content": "the plan of u-99"}, by="bob")
    assert u99.write({**_rec("dup", "u-99"), "content": "the plan of u-99"},
                     by="bob").disposition is WriteDisposition.DISCARD
    bound = memory.confined(U17)
    bound.write(_rec("dup", "u-17"), by="alice")
    shown = bound.history("dup")
    assert [h["kind"] for h in shown] == ["write:PERSIST"]
    assert not any("u-99" in str(h) or "first" in str(h) or "bob" in str(h) for h in shown)
    assert [h["kind"] for h in memory.history("dup")] == ["write:DISCARD", "write:PERSIST"]


def test_history_names_no_successor_out_of_reach(memory: Memory) -> None:
    """The operator superseded u-17's records with u-99's (by supersede, a write listing
    them, a consolidation, an episode of a thread): u-17 reads its own records' history,
    whose reasons named the successor, without that id; a successor within its reach is
    still named, and the operator sees every id."""
    memory.put(_rec("mine-1", "u-17"))
    memory.put(_rec("mine-2", "u-17"))
    memory.put(_rec("mine-3", "u-17"))
    memory.supersede(["mine-1"], {**_rec("new99", "u-99"), "content": "merged"}, by="ops",
                     reason="merged into new99's note")
    memory.write({**_rec("new99b", "u-99"), "content": "merged again",
                  "supersedes": ["mine-2"]})
    memory.supersede(["mine-3"], {**_rec("new17", "u-17"), "content": "own merge"},
                     by="ops", reason="merged")
    memory.put(_rec("mine-4", "u-17"))
    memory.put(_rec("mine-5", "u-17"))
    memory.consolidate(["mine-4", "mine-5"], into={**_rec("new99c", "u-99"),
                                                  "content": "both"}, by="ops", reason="dup")
    memory.put({**_rec("mine-6", "u-17"), "kind": "episodic", "thread": "t", "position": 0})
    memory.write({**_rec("new99d", "u-99"), "kind": "episodic", "content": "in a thread",
                  "thread": "t2", "position": 0, "supersedes": ["mine-6"]})
    bound = memory.confined(U17)
    for rid, hidden in (("mine-1", "new99"), ("mine-2", "new99b"), ("mine-4", "new99c"),
                        ("mine-6", "new99d")):
        told = " ".join(str(h.get("reason")) for h in bound.history(rid))
        assert "superseded" in {h["kind"] for h in bound.history(rid)}
        assert hidden not in told and "a record out of reach" in told, told
        assert hidden in " ".join(str(h.get("reason")) for h in memory.history(rid))
    assert "new17" in " ".join(str(h.get("reason")) for h in bound.history("mine-3"))


def _episode(rid: str, user: str, position: int) -> dict[str, Any]:
    return {**_rec(rid, user), "kind": "episodic", "thread": "support-chat",
            "position": position}


def test_a_thread_position_another_user_holds_is_refused_without_naming_its_record(
        memory: Memory) -> None:
    """Thread positions are unique in a tenant's thread, as ids are in the store: a write
    cannot hide that a position is taken, but the refusal names no record of another user
    (its id is not the writer's to learn, nor to look up with)."""
    memory.confined(U99).write(_episode("u99-secret-episode", "u-99", 0))
    bound = memory.confined(U17)
    bound.write(_rec("own-first", "u-17"))
    calls: list[Callable[[], object]] = [
        lambda: bound.write(_episode("mine", "u-17", 0)),
        lambda: bound.supersede(["own-first"], _episode("mine-2", "u-17", 0), by="u-17",
                                reason="r")]
    for call in calls:
        with pytest.raises(ValidationError) as refused:
            call()
        assert "u99-secret-episode" not in str(refused.value)
        assert "u99-secret-episode" not in refused.value.record_ids
    assert bound.write(_episode("mine", "u-17", 1)).disposition is WriteDisposition.PERSIST


def test_a_record_names_no_record_out_of_reach(memory: Memory) -> None:
    """The operator wrote u-17 records that supersede, derive from and cite u-99's: u-17
    reads them (get, candidates, retrieve) without those ids, as its lineage leaves those
    records out; a reference within its reach is still named, and the operator sees all."""
    for rid, user in (("u99-old", "u-99"), ("u99-parent", "u-99"), ("u99-cited", "u-99"),
                      ("own-parent", "u-17")):
        memory.put(_rec(rid, user))
    memory.put({**_rec("mixed", "u-17"), "content": "a merged plan note",
                "derived_from": ["u99-parent", "own-parent"], "evidence_ids": ["u99-cited"]})
    memory.supersede(["u99-old"], {**_rec("moved", "u-17"), "content": "a moved plan note"},
                     by="ops", reason="moved to u-17")
    bound = memory.confined(U17)
    hidden = {"u99-old", "u99-parent", "u99-cited"}
    state = {"memory_scope": {"tenant": "acme"}, "goal": "plan note",
             "needs_prior_context": True}
    seen = [bound.get("mixed"), bound.get("moved"),
            *bound.candidates(scope={"tenant": "acme"}),
            *(m.record for m in bound.retrieve(state, now=T0 + timedelta(days=1)).memories)]
    assert {r.id for r in seen} >= {"mixed", "moved"}
    for record in seen:
        named = {*record.supersedes, *record.derived_from, *record.evidence_ids}
        assert not named & hidden, (record.id, named)
    assert bound.get("mixed").derived_from == ("own-parent",)
    assert set(memory.get("mixed").derived_from) == {"u99-parent", "own-parent"}
    assert memory.get("moved").supersedes == ("u99-old",)
    # a recompute keeps the parents that remain, and shows u-17 only its own
    memory.apply_deletion(memory.plan_deletion(roots=["own-parent"], requested_by="ops",
                                               reason="r"))
    again = bound.recompute("mixed", "a plan note, recomputed", by="u-17", reason="r")
    assert not {*again.derived_from, *again.evidence_ids} & hidden
    assert memory.get("mixed").derived_from == ("u99-parent",)


def test_lineage_reaches_nothing_through_a_record_out_of_reach(memory: Memory) -> None:
    """u-17's own B and A with u-99's H between them (A from H from B, written by the
    operator): u-17's lineage of A shows no B at depth 2 without an edge, which told it a
    record out of reach lies between; the operator sees the whole chain."""
    memory.put(_rec("B", "u-17"))
    memory.put({**_rec("H", "u-99"), "derived_from": ["B"]})
    memory.put({**_rec("A", "u-17"), "derived_from": ["H"]})
    memory.put({**_rec("C", "u-17"), "derived_from": ["A"]})
    bound = memory.confined(U17)
    assert set(bound.lineage("A", "up").nodes) == {"A"}
    assert set(bound.lineage("B", "down").nodes) == {"B"}
    both = bound.lineage("A", "both")
    assert set(both.nodes) == {"A", "C"} and both.nodes["C"]["depth"] == 1
    assert set(memory.lineage("A", "up").nodes) == {"A", "H", "B"}
    assert memory.lineage("A", "up").nodes["B"]["depth"] == 2


def test_an_id_another_user_holds_is_refused_alike_for_records_and_intentions(
        memory: Memory) -> None:
    """What a write cannot hide (docs/spec/eligibility.md#confinement): ids are unique in the
    whole store, so a confined caller's record or intention under an id another user holds is
    refused (RecordConflictError), and the error names only the id the caller gave, nothing
    of the other user's node; nothing is written and the other's node is intact."""
    theirs = memory.confined(U99)
    theirs.write(_rec("taken-1", "u-99"))
    theirs.intend(_intention("taken-2", "u-99"))
    mine = memory.confined(U17)
    refusals: dict[str, Callable[[], object]] = {
        "taken-1": lambda: mine.write(_rec("taken-1", "u-17")),
        "taken-2": lambda: mine.intend(_intention("taken-2", "u-17"))}
    for rid, call in refusals.items():
        with pytest.raises(RecordConflictError) as caught:
            call()
        assert caught.value.record_ids == (rid,)
        assert "u-99" not in str(caught.value) and "call back" not in str(caught.value)
    assert theirs.get("taken-1").content == "a note of u-99"
    assert theirs.intentions.get("taken-2").action == "call back for u-99"
    assert mine.candidates(scope={"tenant": "acme", "user": "u-17"}) == []
