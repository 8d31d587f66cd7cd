"""docs/spec/status.md, rules 2 and 4 as revised.

Rule 2: a record created after ``now`` is NOT_YET_VALID (an "as of" query sees the store as
it was known then), and a successor created after ``now`` does not supersede at ``now``.
Rule 4: nothing that later happens to an admitted successor (retraction, expiry,
supersession, pending recompute, erasure) reactivates its predecessor; a quarantined
successor never supersedes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.db.stats import store_stats
from graphmem.errors import RecordNotFoundError
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity, Status
from graphmem.write.policy import WriteDisposition
from tests.support.database import wipe

U5 = {"tenant": "acme", "user": "u5"}
READER = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.RESTRICTED)
JUNE_1 = datetime(2026, 6, 1, tzinfo=UTC)
JUNE_15 = datetime(2026, 6, 15, tzinfo=UTC)
SEP_1 = datetime(2026, 9, 1, tzinfo=UTC)
OCT_1 = datetime(2026, 10, 1, tzinfo=UTC)


def rec(rid: str, content: str, *, created_at: datetime = JUNE_1, **extra: Any) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, content=content, created_at=created_at,
                        scope=U5, authority=Authority.HUMAN_INSTRUCTION, **extra)


def status(memory: Memory, rid: str, now: datetime) -> tuple[Status, tuple[str, ...]]:
    e = memory.explain(rid, principal=READER, scope=U5, now=now)
    return e.status, e.successor_ids


def active(memory: Memory, now: datetime) -> set[str]:
    return {r.id for r in memory.candidates(principal=READER, scope=U5, now=now)}


IDS = ("ph1", "ph2", "ph3", "src", "src2", "late", "early", "succ", "old")


def assert_stats_agree(memory: Memory, now: datetime) -> None:
    """``graphmem stats`` counts each record under the status explain gives it (every record
    here is in U5 and READER may see everything, so the caller changes nothing)."""
    expected: dict[str, int] = {}
    for rid in IDS:
        try:
            st_ = memory.explain(rid, principal=READER, scope=U5, now=now).status.value
        except RecordNotFoundError:
            continue
        expected[st_] = expected.get(st_, 0) + 1
    counted = store_stats(store_of(memory), now=now, tenant="acme")["records"]["by_status"]
    assert {k: n for k, n in counted.items() if n} == expected


# ------------------------------------------------------------------ item 3 (rule 2)


def test_a_record_created_after_now_is_not_yet_valid(memory: Memory) -> None:
    memory.put(rec("late", "warehouse freeze announced", created_at=SEP_1))
    assert "late" not in active(memory, JUNE_15)
    explained = memory.explain("late", principal=READER, scope=U5, now=JUNE_15)
    assert explained.status is Status.NOT_YET_VALID
    assert "created after now" in explained.detail and "valid_from" not in explained.detail
    assert status(memory, "late", SEP_1 - timedelta(microseconds=1))[0] is Status.NOT_YET_VALID
    assert status(memory, "late", SEP_1)[0] is Status.ACTIVE  # created_at <= now
    assert_stats_agree(memory, JUNE_15)
    assert_stats_agree(memory, SEP_1)
    assert "late" in active(memory, SEP_1)
    # the read path asks "as of" its now too
    state = {"memory_scope": U5, "goal": "warehouse freeze", "needs_prior_context": True}
    assert "late" not in memory.retrieve(state, principal=READER, now=JUNE_15).ids
    assert "late" in memory.retrieve(state, principal=READER, now=OCT_1).ids
    # and the analyst's lineage view
    assert memory.lineage("late", now=JUNE_15).nodes["late"]["status"] \
        == Status.NOT_YET_VALID


def test_explain_says_which_half_of_rule_2_applies(memory: Memory) -> None:
    memory.put_many([
        rec("future", "valid from October", valid_from=OCT_1),
        rec("both", "created in September, valid from October", created_at=SEP_1,
            valid_from=OCT_1),
    ])
    future = memory.explain("future", principal=READER, scope=U5, now=JUNE_15)
    assert future.status is Status.NOT_YET_VALID
    assert "valid_from" in future.detail and "created after now" not in future.detail
    both = memory.explain("both", principal=READER, scope=U5, now=JUNE_15)
    assert "valid_from" in both.detail and "created after now" in both.detail
    only_valid_from = memory.explain("both", principal=READER, scope=U5, now=SEP_1)
    assert only_valid_from.status is Status.NOT_YET_VALID
    assert "created after now" not in only_valid_from.detail
    assert status(memory, "both", OCT_1)[0] is Status.ACTIVE


def test_a_successor_created_after_now_does_not_supersede(memory: Memory) -> None:
    memory.put_many([rec("ph1", "customer phone is 555-0100"),
                     rec("ph2", "customer phone is 555-0199", created_at=SEP_1,
                         supersedes=("ph1",))])
    assert status(memory, "ph1", JUNE_15) == (Status.ACTIVE, ())
    assert status(memory, "ph2", JUNE_15)[0] is Status.NOT_YET_VALID
    assert active(memory, JUNE_15) == {"ph1"}
    assert status(memory, "ph1", SEP_1) == (Status.SUPERSEDED, ("ph2",))
    assert active(memory, SEP_1) == {"ph2"}
    assert_stats_agree(memory, JUNE_15)
    assert_stats_agree(memory, SEP_1)
    lineage = memory.lineage("ph1", direction="down", now=JUNE_15)
    assert lineage.nodes["ph1"]["status"] == Status.ACTIVE


def test_a_record_created_after_now_is_no_duplicate_yet(memory: Memory) -> None:
    """The write policy's duplicate check asks about records active at the write time."""
    memory.put(rec("later", "prefers aisle seats", created_at=SEP_1))
    early = memory.write(rec("early", "Prefers aisle seats"), now=JUNE_15)
    assert early.disposition is WriteDisposition.PERSIST
    again = memory.write(rec("again", "prefers aisle seats", created_at=SEP_1), now=OCT_1)
    assert again.disposition is WriteDisposition.DISCARD


# ------------------------------------------------------------------ item 2 (rule 4)


def test_erasing_a_successor_does_not_resurrect_its_predecessor(memory: Memory) -> None:
    """The issue's input: erase ph2 alone; ph1 stays SUPERSEDED (successor ph2)."""
    memory.put(rec("ph1", "customer phone is 555-0100"))
    memory.put(rec("ph2", "customer phone is 555-0199", supersedes=("ph1",)))
    plan = memory.plan_deletion(roots=["ph2"], requested_by="privacy", reason="erase ph2")
    assert plan.ids() == ["ph2"]
    report = memory.apply_deletion(plan)
    assert report.verification.passed
    assert status(memory, "ph1", JUNE_15) == (Status.SUPERSEDED, ("ph2",))
    assert status(memory, "ph2", JUNE_15)[0] is Status.ERASED
    assert active(memory, JUNE_15) == set()
    assert memory.lineage("ph1", direction="down", now=JUNE_15).nodes["ph1"]["status"] \
        == Status.SUPERSEDED
    # the old number is not "active" for the write policy either: writing it again persists
    again = memory.write(rec("ph3", "customer phone is 555-0100"), now=JUNE_15)
    assert again.disposition is WriteDisposition.PERSIST
    # ... and a successor created after now still does not count, erased or not
    assert status(memory, "ph1", JUNE_1 - timedelta(days=1))[0] is Status.NOT_YET_VALID


def test_tombstones_from_before_rule_4_are_migrated(memory: Memory) -> None:
    """Tombstones erased before they kept times and ``admitted`` (the whole kind: an admitted
    successor written through the policy, one put without it, one promoted after quarantine,
    and one still quarantined when erased) are completed by the migration on connect, so the
    admitted ones keep superseding and the quarantined one never did."""
    from graphmem.db.migrations import migrate

    def untrusted(r: MemoryRecord) -> MemoryRecord:
        return r.model_copy(update={"authority": Authority.UNTRUSTED})

    pairs = {"a": "write", "b": "put", "c": "promoted", "d": "quarantined"}
    for tag, how in pairs.items():
        memory.put(rec(f"{tag}1", f"customer {tag} phone is 555-0100"))
        succ = rec(f"{tag}2", f"customer {tag} phone is 555-0199", supersedes=(f"{tag}1",))
        if how == "put":
            memory.put(succ)
            continue
        decision = memory.write(succ if how == "write" else untrusted(succ), now=JUNE_15)
        wanted = WriteDisposition.PERSIST if how == "write" else WriteDisposition.QUARANTINE
        assert decision.disposition is wanted
        if how == "promoted":
            memory.promote(f"{tag}2", by="reviewer", reason="checked with the customer")
    memory.apply_deletion(memory.plan_deletion([f"{t}2" for t in pairs], requested_by="p",
                                               reason="erase the new numbers"))
    later = datetime.now(UTC) + timedelta(days=1)  # after the erasure
    driver, db = store_of(memory).driver, store_of(memory).database
    # what an erasure wrote before rule 4 was revised: no times, no `admitted`
    driver.execute_query("MATCH (r:Record) WHERE r.erased REMOVE r.admitted, r.created_at, "
                         "r.valid_from, r.expires_at", database_=db)
    driver.execute_query("MATCH (m:GraphmemMigration) DELETE m", database_=db)
    assert status(memory, "a1", later) == (Status.ACTIVE, ())  # resurrected, before
    assert migrate(store_of(memory)) == 4
    for tag in ("a", "b", "c"):
        assert status(memory, f"{tag}1", later) == (Status.SUPERSEDED, (f"{tag}2",)), tag
    assert status(memory, "d1", later) == (Status.ACTIVE, ())
    assert active(memory, later) == {"d1"}
    assert migrate(store_of(memory)) == 0  # once


def test_an_erased_successor_still_waits_for_its_own_times(memory: Memory) -> None:
    """The tombstone keeps created_at and valid_from: before them, the predecessor is ACTIVE."""
    memory.put_many([rec("ph1", "customer phone is 555-0100"),
                     rec("ph2", "customer phone is 555-0199", created_at=SEP_1,
                         valid_from=OCT_1, supersedes=("ph1",))])
    memory.apply_deletion(memory.plan_deletion(["ph2"], requested_by="p", reason="r"))
    assert status(memory, "ph1", JUNE_15) == (Status.ACTIVE, ())
    assert status(memory, "ph1", SEP_1) == (Status.ACTIVE, ())
    assert status(memory, "ph1", OCT_1) == (Status.SUPERSEDED, ("ph2",))


def test_a_quarantined_successor_never_supersedes_even_when_erased(memory: Memory) -> None:
    memory.put(rec("ph1", "customer phone is 555-0100"))
    store_of(memory).put_many([rec("ph2", "customer phone is 555-0199", supersedes=("ph1",))],
                          quarantined=True)
    assert status(memory, "ph1", JUNE_15) == (Status.ACTIVE, ())
    memory.apply_deletion(memory.plan_deletion(["ph2"], requested_by="p", reason="r"))
    assert status(memory, "ph2", JUNE_15)[0] is Status.ERASED
    assert status(memory, "ph1", JUNE_15) == (Status.ACTIVE, ())  # never admitted
    assert active(memory, JUNE_15) == {"ph1"}
    assert_stats_agree(memory, JUNE_15)


def _retract(memory: Memory) -> None:
    memory.retract("ph2", by="agent", reason="withdrawn")


def _expire(memory: Memory) -> None:
    memory.expire("ph2", at=JUNE_1 + timedelta(days=1))


def _supersede_then_erase(memory: Memory) -> None:
    memory.put(rec("ph3", "customer phone is 555-0111", supersedes=("ph2",)))
    memory.apply_deletion(memory.plan_deletion(["ph3"], requested_by="p", reason="r"))


def _pending_recompute(memory: Memory) -> None:
    memory.apply_deletion(memory.plan_deletion(["src"], requested_by="p", reason="r"))
    assert store_of(memory).state("ph2").pending_recompute


def _erase(memory: Memory) -> None:
    memory.apply_deletion(memory.plan_deletion(["ph2"], requested_by="p", reason="r"))


TRANSITIONS: dict[str, Callable[[Memory], None]] = {
    "retract": _retract, "expire": _expire, "supersede_then_erase": _supersede_then_erase,
    "pending_recompute": _pending_recompute, "erase": _erase,
}


def _successor_setup(memory: Memory) -> None:
    """ph2 supersedes ph1 and derives from two sources (so erasing one leaves it pending
    recompute rather than erased)."""
    memory.put_many([rec("ph1", "customer phone is 555-0100"),
                     rec("src", "call log 1"), rec("src2", "call log 2")])
    memory.put(rec("ph2", "customer phone is 555-0199", supersedes=("ph1",),
                   derived_from=("src", "src2")))
    assert status(memory, "ph1", JUNE_15) == (Status.SUPERSEDED, ("ph2",))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=st.lists(st.sampled_from(sorted(TRANSITIONS)), min_size=1, max_size=4,
                      unique=True))
def test_no_later_transition_of_a_successor_reactivates(memory: Memory,
                                                        steps: list[str]) -> None:
    """Any sequence of what may happen to an admitted successor leaves its predecessor
    SUPERSEDED by it, in candidates, explain and the lineage view."""
    wipe(memory)
    _successor_setup(memory)
    for step in steps:
        if step != "erase" and "erase" in steps[:steps.index(step)]:
            continue  # an erased record has no further lifecycle
        TRANSITIONS[step](memory)
        assert status(memory, "ph1", JUNE_15) == (Status.SUPERSEDED, ("ph2",)), steps
        assert "ph1" not in active(memory, JUNE_15)
        assert_stats_agree(memory, JUNE_15)
        assert memory.lineage("ph1", direction="down", now=JUNE_15).nodes["ph1"][
            "status"] == Status.SUPERSEDED


def test_promoting_a_quarantined_successor_makes_it_supersede(memory: Memory) -> None:
    memory.put(rec("ph1", "customer phone is 555-0100"))
    store_of(memory).put_many([rec("ph2", "customer phone is 555-0199", supersedes=("ph1",))],
                          quarantined=True)
    assert status(memory, "ph1", JUNE_15) == (Status.ACTIVE, ())
    memory.promote("ph2", by="reviewer", reason="checked")
    assert status(memory, "ph1", JUNE_15) == (Status.SUPERSEDED, ("ph2",))
    memory.apply_deletion(memory.plan_deletion(["ph2"], requested_by="p", reason="r"))
    assert status(memory, "ph1", JUNE_15) == (Status.SUPERSEDED, ("ph2",))


def test_only_a_successor_in_scope_makes_a_record_no_duplicate(memory: Memory) -> None:
    """The write policy's duplicate check sees the scope as a caller querying that scope does
    (rule 4: the successor must pass rule 3): a tenant-wide record superseded only inside one
    user's scope is still active tenant-wide, so restating it there is a duplicate."""
    wide = {"tenant": "acme"}
    memory.put(MemoryRecord(id="w1", kind=MemoryKind.SEMANTIC, content="office opens at 9",
                            created_at=JUNE_1, scope=wide, authority=Authority.HUMAN_INSTRUCTION))
    memory.put(rec("w2", "office opens at 10 for u5", supersedes=("w1",)))
    tenant_reader = Principal(tenants=frozenset({"acme"}))
    assert memory.explain("w1", principal=tenant_reader, scope=wide, now=JUNE_15
                          ).status is Status.ACTIVE
    assert status(memory, "w1", JUNE_15) == (Status.SUPERSEDED, ("w2",))
    again = memory.write(MemoryRecord(id="w3", kind=MemoryKind.SEMANTIC,
                                      content="Office opens at 9.", created_at=JUNE_1, scope=wide,
                                      authority=Authority.HUMAN_INSTRUCTION), now=JUNE_15)
    assert again.disposition is WriteDisposition.DISCARD and again.duplicate_of == "w1"
    # u5's scope is another scope (and w1 is superseded there): no duplicate
    mine = memory.write(rec("w4", "office opens at 9"), now=JUNE_15)
    assert mine.disposition is WriteDisposition.PERSIST
