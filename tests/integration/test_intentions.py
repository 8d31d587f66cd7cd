"""Prospective memory on real Neo4j (docs/spec/intentions.md, northwind README 'Prospective
memory')."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import catalogue as cypher
from graphmem.errors import (
    AuthorizationError,
    NaiveDatetimeError,
    RecordConflictError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.fields import MAX_NAME_BYTES, MAX_SCOPE_BYTES
from graphmem.models import DeferredIntention, IntentionStatus, Principal, Sensitivity
from tests.support.northwind import lines
from tests.support.sizes import size

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
GLOBEX = Principal(tenants=frozenset({"globex"}))
CHECKOUT = {"tenant": "acme", "repo": "checkout-api"}
MIGRATION = {"migration_completed": "014"}


@pytest.fixture()
def northwind_intentions(memory: Memory) -> Memory:
    for obj in lines("intentions.jsonl"):
        assert memory.intend(obj) is True
    return memory


def _intention(iid: str, **changes: Any) -> DeferredIntention:
    base: dict[str, Any] = {
        "id": iid, "action": f"do {iid}", "trigger_kind": "migration_completed",
        "trigger_value": "014", "scope": dict(CHECKOUT),
        "created_at": datetime(2026, 9, 1, tzinfo=UTC),
    }
    base.update(changes)
    return DeferredIntention.model_validate(base)


# -- northwind expectations --------------------------------------------------------------


def test_migration_event_fires_intent_once_even_when_sent_twice(
    northwind_intentions: Memory,
) -> None:
    mem = northwind_intentions
    due = mem.due(MIGRATION, principal=ACME, scope=CHECKOUT, now=NOW)
    assert [i.id for i in due] == ["intent-migr-014"]

    first = mem.process_event(MIGRATION, principal=ACME, scope=CHECKOUT, by="worker-1", now=NOW)
    second = mem.process_event(MIGRATION, principal=ACME, scope=CHECKOUT, by="worker-2",
                               now=NOW + timedelta(seconds=1))
    assert [i.id for i in first] == ["intent-migr-014"]
    assert first[0].status is IntentionStatus.FIRED
    assert second == []
    assert mem.intentions.get("intent-migr-014").status is IntentionStatus.FIRED
    assert mem.due(MIGRATION, principal=ACME, scope=CHECKOUT, now=NOW) == []
    history = mem.intentions.history("intent-migr-014")
    assert [(h.kind, h.by, h.at) for h in history] == [("fire", "worker-1", NOW)]
    # the other intention was never touched
    assert mem.intentions.get("intent-u17-callback").status is IntentionStatus.PENDING


def test_near_miss_cue_0141_fires_nothing(northwind_intentions: Memory) -> None:
    mem = northwind_intentions
    event = {"migration_completed": "0141"}
    assert mem.due(event, principal=ACME, scope=CHECKOUT, now=NOW) == []
    assert mem.process_event(event, principal=ACME, scope=CHECKOUT, by="w", now=NOW) == []
    assert mem.intentions.get("intent-migr-014").status is IntentionStatus.PENDING


def test_same_event_in_globex_fires_nothing(northwind_intentions: Memory) -> None:
    mem = northwind_intentions
    globex_scope = {"tenant": "globex", "repo": "checkout-api"}
    with pytest.raises(AuthorizationError):
        mem.due(MIGRATION, principal=ACME, scope=globex_scope, now=NOW)
    with pytest.raises(AuthorizationError):
        mem.process_event(MIGRATION, principal=ACME, scope=globex_scope, by="w", now=NOW)
    assert mem.process_event(MIGRATION, principal=GLOBEX, scope=globex_scope, by="w",
                             now=NOW) == []
    assert mem.intentions.get("intent-migr-014").status is IntentionStatus.PENDING


# -- near misses ---------------------------------------------------------------------------

NEAR_MISS_EVENTS = [
    {"migration_completed": "01"},          # prefix of the cue
    {"migration_completed": "0"},
    {"migration_completed": "14"},          # suffix
    {"migration_completed": "0014"},
    {"migration_completed": "014 "},        # trailing space
    {"migration_completed": " 014"},
    {"migration_completed": "O14"},         # letter O for zero
    {"migration_completed": "015"},
    {"migration_completed": ""},
    {"migration_complete": "014"},          # kind is a prefix
    {"Migration_completed": "014"},         # kind differs in case
    {"migration_completed_at": "014"},
    {"migration_started": "014", "deploy": "014"},  # the value under other kinds
]


@pytest.mark.parametrize("event", NEAR_MISS_EVENTS, ids=lambda e: repr(e))
def test_near_miss_events_fire_nothing(northwind_intentions: Memory,
                                       event: dict[str, str]) -> None:
    mem = northwind_intentions
    assert mem.process_event(event, principal=ACME, scope=CHECKOUT, by="w", now=NOW) == []
    assert mem.intentions.get("intent-migr-014").status is IntentionStatus.PENDING


def test_exact_cue_among_other_keys_is_due(northwind_intentions: Memory) -> None:
    event = {"deploy": "done", "migration_completed": "014"}
    due = northwind_intentions.due(event, principal=ACME, scope=CHECKOUT, now=NOW)
    assert [i.id for i in due] == ["intent-migr-014"]


def test_other_tenants_identical_cue_never_fires(memory: Memory) -> None:
    memory.intend(_intention("gx-migr", scope={"tenant": "globex", "repo": "checkout-api"}))
    memory.intend(_intention("acme-migr"))
    both = Principal(tenants=frozenset({"acme", "globex"}))
    fired = memory.process_event(MIGRATION, principal=both, scope=CHECKOUT, by="w", now=NOW)
    assert [i.id for i in fired] == ["acme-migr"]
    assert memory.intentions.get("gx-migr").status is IntentionStatus.PENDING


def test_scope_is_a_subset_rule(memory: Memory) -> None:
    memory.intend(_intention("repo-scoped"))
    memory.intend(_intention("tenant-wide", scope={"tenant": "acme"}))
    # another repo of the same tenant: only the tenant-wide intention applies
    billing = {"tenant": "acme", "repo": "billing-web"}
    assert [i.id for i in memory.due(MIGRATION, principal=ACME, scope=billing, now=NOW)] == [
        "tenant-wide"]
    # a tenant-wide query does not reach the repo-scoped intention
    assert [i.id for i in memory.due(MIGRATION, principal=ACME, scope={"tenant": "acme"},
                                     now=NOW)] == ["tenant-wide"]
    # a more specific query reaches both
    specific = {**CHECKOUT, "user": "u-17"}
    assert {i.id for i in memory.due(MIGRATION, principal=ACME, scope=specific, now=NOW)} == {
        "repo-scoped", "tenant-wide"}


def test_expired_cancelled_and_sensitive_intentions_are_not_due(memory: Memory) -> None:
    memory.intend(_intention("expiring", expires_at=NOW))
    memory.intend(_intention("cancel-me"))
    memory.intend(_intention("secret", sensitivity="confidential"))
    just_before = NOW - timedelta(microseconds=1)
    assert {i.id for i in memory.due(MIGRATION, principal=ACME, scope=CHECKOUT,
                                     now=just_before)} == {"expiring", "cancel-me"}
    # now >= expires_at is expired, and an expired intention cannot be fired either
    assert [i.id for i in memory.due(MIGRATION, principal=ACME, scope=CHECKOUT,
                                     now=NOW)] == ["cancel-me"]
    assert memory.fire("expiring", by="w", now=NOW) is False

    assert memory.cancel("cancel-me", by="ops", reason="migration abandoned", now=NOW) is True
    assert memory.cancel("cancel-me", by="ops", reason="again", now=NOW) is False
    assert memory.fire("cancel-me", by="w", now=NOW) is False
    assert memory.intentions.get("cancel-me").status is IntentionStatus.CANCELLED
    assert [(h.kind, h.by) for h in memory.intentions.history("cancel-me")] == [
        ("cancel", "ops")]

    cleared = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.CONFIDENTIAL)
    assert {i.id for i in memory.due(MIGRATION, principal=cleared, scope=CHECKOUT,
                                     now=just_before)} == {"expiring", "secret"}
    assert {i.id for i in memory.due(MIGRATION, principal=cleared, scope=CHECKOUT,
                                     now=NOW)} == {"secret"}


def test_erased_intention_is_never_due_nor_fired(memory: Memory) -> None:
    memory.intend(_intention("erase-me"))
    # what the deletion walk does to an intention in the erased subject's scope
    store_of(memory).driver.execute_query(
        "MATCH (i:Intention {id: $id}) SET i.erased = true, i.status = 'cancelled'",
        id="erase-me", database_=store_of(memory).database)
    assert memory.due(MIGRATION, principal=ACME, scope=CHECKOUT, now=NOW) == []
    assert memory.fire("erase-me", by="w", now=NOW) is False
    with pytest.raises(RecordNotFoundError):
        memory.intentions.get("erase-me")


# -- writing -------------------------------------------------------------------------------


def test_intend_is_idempotent_and_rejects_a_changed_definition(memory: Memory) -> None:
    assert memory.intend(_intention("i-1")) is True
    assert memory.intend(_intention("i-1")) is False
    with pytest.raises(RecordConflictError) as err:
        memory.intend(_intention("i-1", trigger_value="015"))
    assert err.value.record_ids == ("i-1",)
    # the definition is the identity, not the status: a fired intention is not re-armed
    assert memory.fire("i-1", by="w", now=NOW) is True
    assert memory.intend(_intention("i-1")) is False
    assert memory.intentions.get("i-1").status is IntentionStatus.FIRED


def test_invalid_intentions_and_events_are_rejected(memory: Memory) -> None:
    with pytest.raises(NaiveDatetimeError):
        memory.intend({"id": "n", "action": "a", "trigger_kind": "k", "trigger_value": "v",
                       "scope": {"tenant": "acme"}, "created_at": "2026-09-01T00:00:00"})
    with pytest.raises(ValidationError):
        memory.intend({"id": "n", "action": "a", "trigger_kind": "k", "trigger_value": "v",
                       "scope": {"repo": "x"}, "created_at": NOW})
    # a cue beyond the index entry limit (was a StoreError from Neo4j), and a scope beyond it
    for over in ({"trigger_value": "v" * (MAX_NAME_BYTES + 1)},
                 {"trigger_kind": "é" * (MAX_NAME_BYTES // 2 + 1)},
                 {"scope": {"tenant": "acme", "repo": "x" * MAX_SCOPE_BYTES}}):
        with pytest.raises(ValidationError, match="at most"):
            memory.intend({"id": "n", "action": "a", "trigger_kind": "k", "trigger_value": "v",
                           "scope": {"tenant": "acme"}, "created_at": NOW, **over})
    assert memory.intend({"id": "n", "action": "a", "trigger_kind": "k",
                          "trigger_value": "v" * MAX_NAME_BYTES, "scope": {"tenant": "acme"},
                          "created_at": NOW}) is True
    with pytest.raises(ValidationError):
        memory.due({"k": 14}, principal=ACME, scope=CHECKOUT, now=NOW)  # type: ignore[dict-item]
    with pytest.raises(RecordNotFoundError):
        memory.fire("nope", by="w", now=NOW)
    with pytest.raises(RecordNotFoundError):
        memory.cancel("nope", by="w", reason="r", now=NOW)


def test_due_uses_the_cue_index(memory: Memory) -> None:
    _, summary, _ = store_of(memory).driver.execute_query(
        "EXPLAIN " + cypher.statement("intentions/due"), cypher.arguments("intentions/due", dict(
            cues=[{"kind": "migration_completed", "value": "014", "digest": "0" * 64}],
            tenant="acme", tenants=["acme"], pairs=[], clearance=0, now=NOW, key="0" * 64,
            key_name="index")), database_=store_of(memory).database)
    assert summary.plan is not None, "EXPLAIN always returns a plan"
    seeks = []
    stack = [summary.plan]
    while stack:
        op = stack.pop()
        stack.extend(op.get("children", []))
        if op["operatorType"].startswith("NodeIndexSeek"):
            seeks.append(op["args"]["Details"])
    assert any("Intention(cue_digest)" in d for d in seeks), seeks


# -- the read path -------------------------------------------------------------------------


def test_a_due_intention_triggers_retrieval(northwind_intentions: Memory) -> None:
    mem = northwind_intentions
    mem.write({"id": "mig-note", "kind": "semantic", "authority": "human_instruction",
               "content": "After migration 014 the refund webhook must be re-enabled.",
               "created_at": "2026-09-01T00:00:00+00:00", "scope": CHECKOUT})
    base = {"memory_scope": CHECKOUT, "goal": "Finish migration 014",
            "last_observation": "migration 014 completed; refund webhook still disabled"}
    quiet = mem.retrieve(base, principal=ACME, now=NOW)
    assert not quiet.trace.triggered
    near = mem.retrieve({**base, "event": {"migration_completed": "0141"}}, principal=ACME,
                        now=NOW)
    assert not near.trace.triggered
    cued = mem.retrieve({**base, "event": MIGRATION}, principal=ACME, now=NOW)
    assert cued.trace.triggered and cued.trace.triggers == ("due_cue",)
    assert "mig-note" in cued.ids
    # retrieving does not fire: the intention is still pending
    assert mem.intentions.get("intent-migr-014").status is IntentionStatus.PENDING


# -- exactly once under concurrency --------------------------------------------------------

WORKERS = 16
#: Each round is a new intention raced by all WORKERS; 25 rounds under --heavy.
ROUNDS = size(10, 25)


def _race(call: Callable[[int], Any]) -> list[Any]:
    """Run ``call(worker)`` on WORKERS threads released at the same moment."""
    barrier = threading.Barrier(WORKERS)
    results: list[Any] = [None] * WORKERS
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[worker] = call(worker)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    return results


def test_sixteen_concurrent_fire_calls_have_exactly_one_winner(memory: Memory) -> None:
    for round_no in range(ROUNDS):
        iid = f"race-fire-{round_no}"
        memory.intend(_intention(iid))

        def fire(w: int, iid: str = iid) -> bool:
            return memory.fire(iid, by=f"worker-{w}", now=NOW)

        results = _race(fire)
        assert results.count(True) == 1, (round_no, results)
        assert results.count(False) == WORKERS - 1
        history = memory.intentions.history(iid)
        assert len(history) == 1
        assert history[0].by == f"worker-{results.index(True)}"


def test_sixteen_workers_processing_one_event_fire_it_once(memory: Memory) -> None:
    for round_no in range(ROUNDS):
        value = f"race-{round_no}"
        memory.intend(_intention(f"race-event-{round_no}", trigger_value=value))
        event = {"migration_completed": value}

        def process(w: int, event: dict[str, str] = event) -> list[DeferredIntention]:
            return memory.process_event(event, principal=ACME, scope=CHECKOUT,
                                        by=f"worker-{w}", now=NOW)

        results = _race(process)
        fired = [i.id for batch in results for i in batch]
        assert fired == [f"race-event-{round_no}"], (round_no, results)
