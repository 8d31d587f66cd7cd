"""Lifecycle transitions (docs/spec/write-path.md) on real Neo4j: each declared, with
who/why/when."""

from __future__ import annotations

from datetime import timedelta

import pytest

from graphmem.client import Memory
from graphmem.errors import PolicyError
from graphmem.models import Status
from graphmem.write.policy import WriteDisposition
from tests.support.lifecycle import T0, rec, status


def test_supersede_then_retract_successor_does_not_resurrect(memory: Memory) -> None:
    memory.write(rec("old"), now=T0)
    memory.supersede(["old"], rec("new", content="the new fact"), by="alice", reason="update")
    assert status(memory, "old") is Status.SUPERSEDED
    memory.retract("new", by="alice", reason="mistake", at=T0 + timedelta(days=1))
    assert status(memory, "old") is Status.SUPERSEDED  # re-activation is a new record
    kinds = [h["kind"] for h in memory.history("old")]
    assert "superseded" in kinds


def superseded_log(memory: Memory, rid: str) -> list[tuple[str, str]]:
    return [(h["by"], h["reason"]) for h in memory.history(rid) if h["kind"] == "superseded"]


@pytest.mark.parametrize("path", ["write", "write threaded", "write procedure", "supersede"])
def test_every_supersession_is_a_declared_transition(memory: Memory, path: str) -> None:
    """However a successor that persists is written (one statement, the transaction of a
    threaded record or of a procedure, supersede), each record it supersedes logs one
    "superseded" transition, with who and why, in the same transaction (docs/spec/write-path.md)."""
    memory.write(rec("old-1"), now=T0)
    memory.write(rec("old-2"), now=T0)
    succ = rec("succ", content="the newer fact", supersedes=["old-1", "old-2"])
    if path == "write threaded":
        succ.update(kind="episodic", thread="run-1", position=0)
    if path == "write procedure":  # verified episodes meet the bar (docs/spec/write-path.md)
        for i in range(3):
            memory.write(rec(f"ep-{i}", kind="episodic", content=f"it worked, run {i}"), now=T0)
        succ.update(kind="procedural", evidence_ids=["ep-0", "ep-1", "ep-2"])
    if path == "supersede":
        memory.supersede(["old-1", "old-2"], succ, by="alice", reason="update")
        expected = ("alice", "update (successor succ)")
    else:
        assert memory.write(succ, by="bob", now=T0).disposition is WriteDisposition.PERSIST
        expected = ("bob", "successor succ lists it in supersedes")
    for old in ("old-1", "old-2"):
        assert status(memory, old) is Status.SUPERSEDED
        assert superseded_log(memory, old) == [expected]


def test_a_quarantined_successor_declares_no_supersession(memory: Memory) -> None:
    memory.write(rec("old"), now=T0)
    decision = memory.write(rec("w", authority="untrusted", provenance={"source": "web"},
                                supersedes=["old"]), now=T0)
    assert decision.disposition is WriteDisposition.QUARANTINE
    assert status(memory, "old") is Status.ACTIVE and superseded_log(memory, "old") == []


def test_expire_is_declared_and_checked(memory: Memory) -> None:
    memory.write(rec("a", valid_from=T0.isoformat()), now=T0)
    with pytest.raises(PolicyError):
        memory.expire("a", at=T0, by="bob", reason="too early")
    memory.expire("a", at=T0 + timedelta(days=2), by="bob", reason="policy ended")
    assert status(memory, "a", T0 + timedelta(days=1)) is Status.ACTIVE
    assert status(memory, "a", T0 + timedelta(days=2)) is Status.EXPIRED
    assert [h["kind"] for h in memory.history("a")][-1] == "expire"


def test_consolidate_keeps_lineage_and_retires_duplicates(memory: Memory) -> None:
    memory.write(rec("d1", content="Deploy window is Tuesday."), now=T0)
    memory.write(rec("d2", content="Deploys happen on Tuesdays."), now=T0)
    memory.consolidate(["d1", "d2"], into=rec("d", content="Deploy window: Tuesday."),
                       by="curator", reason="duplicates")
    merged = memory.get("d")
    assert set(merged.derived_from) == {"d1", "d2"} and set(merged.supersedes) == {"d1", "d2"}
    assert status(memory, "d1") is Status.SUPERSEDED and status(memory, "d") is Status.ACTIVE


def test_quarantine_and_promote(memory: Memory) -> None:
    decision = memory.write(rec("w", authority="untrusted", provenance={"source": "web"}),
                            now=T0)
    assert decision.disposition is WriteDisposition.QUARANTINE
    assert status(memory, "w") is Status.QUARANTINED
    memory.promote("w", by="reviewer", reason="checked against the handbook")
    assert status(memory, "w") is Status.ACTIVE
    with pytest.raises(PolicyError):
        memory.promote("w", by="reviewer", reason="again")
    assert [h["kind"] for h in memory.history("w")] == ["write:QUARANTINE", "promote"]


def test_promote_procedure_enforces_the_bar(memory: Memory) -> None:
    for i in range(3):
        memory.write(rec(f"ep{i}", kind="episodic", content=f"run {i}: make test passed"),
                     now=T0)
    memory.write(rec("ep-weak", kind="episodic", authority="model_inferred",
                     evidence_ids=["ep0"], content="it probably passed"), now=T0)
    procedure = rec("proc", kind="procedural", authority="model_inferred",
                    content="Run the tests with: make test")
    with pytest.raises(PolicyError):
        memory.promote_procedure(["ep0", "ep1", "ep-weak"], procedure, by="agent",
                                 reason="three runs")
    decision = memory.promote_procedure(["ep0", "ep1", "ep2"], procedure, by="agent",
                                        reason="three verified runs")
    assert decision.disposition is WriteDisposition.PERSIST
    assert set(memory.get("proc").evidence_ids) == {"ep0", "ep1", "ep2"}


def test_duplicate_of_active_record_is_discarded_but_not_of_a_retracted_one(
        memory: Memory) -> None:
    memory.write(rec("a", content="Refunds need approval."), now=T0)
    dup = memory.write(rec("b", content="  refunds need   APPROVAL. "), now=T0)
    assert dup.disposition is WriteDisposition.DISCARD and dup.duplicate_of == "a"
    memory.retract("a", by="x", reason="wrong", at=T0)
    assert memory.write(rec("c", content="Refunds need approval."), now=T0).disposition is \
        WriteDisposition.PERSIST
    other_scope = rec("d", content="Refunds need approval.",
                      scope={"tenant": "acme", "repo": "r"})
    assert memory.write(other_scope, now=T0).disposition is WriteDisposition.PERSIST


def test_retracting_a_retracted_record_again_keeps_the_first_tombstone(memory: Memory
                                                                        ) -> None:
    """A retract repeated (a retry after a timeout, two workers, a loader run again) is the
    retraction already made: the tombstone's who, why and when stay those of the first and
    history shows one retraction. The second overwrote them and logged a second one, so the
    record seemed retracted later, by another, and twice."""
    memory.write(rec("r"), now=T0)
    first = T0 + timedelta(days=1)
    memory.retract("r", by="alice", reason="wrong customer", at=first)
    memory.retract("r", by="bob", reason="duplicate ticket", at=first + timedelta(hours=3))
    retractions = [h for h in memory.history("r") if h["kind"] == "retract"]
    assert [(h["by"], h["reason"], h["at"]) for h in retractions] == [
        ("alice", "wrong customer", first)]
    from graphmem.client import store_of
    state = store_of(memory).state("r")
    assert (state.retracted_by, state.retracted_reason, state.retracted_at) == (
        "alice", "wrong customer", first)
    assert status(memory, "r") is Status.RETRACTED
