"""Calls whose commit the server made but whose acknowledgement was lost (the connection cut
between COMMIT and its answer: the driver's ``IncompleteCommit``). Each call finds out by
itself whether its own commit landed, as ``fire`` always claimed to ("a driver retry after an
unacknowledged commit still reports the one success"): it reports what it did, exactly once,
instead of ``DatabaseUnavailableError``, after which a repeat of the call was told False (the
intention was fired by "someone else", so nobody performed its action) or DISCARD ("identical
record already stored": its own record)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.models import IntentionStatus, Principal
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest
from tests.support.lost_ack import LostAck, tx_tag

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme", "repo": "checkout-api"}


@pytest.fixture()
def proxied(memory: Memory, neo4j_db: Neo4jUnderTest) -> Iterator[tuple[Memory, LostAck]]:
    """A client reaching the store through a :class:`LostAck` proxy (and the proxy)."""
    proxy = LostAck(neo4j_db.settings.uri)
    settings = dataclasses.replace(neo4j_db.settings, uri=proxy.uri)
    client = Memory.connect(settings, start_if_needed=False, ensure_schema=False)
    try:
        yield client, proxy
    finally:
        client.close()
        proxy.close()


def intention(iid: str, value: str = "014") -> dict[str, Any]:
    return {"id": iid, "action": "re-run the smoke tests", "trigger_kind": "migration",
            "trigger_value": value, "scope": SCOPE, "created_at": NOW}


def test_fire_whose_commit_ack_is_lost_reports_that_it_fired(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    client, proxy = proxied
    memory.intend(intention("i-1"))
    proxy.arm(tx_tag("fire"))
    assert client.fire("i-1", by="worker-1", now=NOW) is True
    assert proxy.dropped == 1
    assert [t.kind for t in memory.intentions.history("i-1")] == ["fire"]
    assert client.fire("i-1", by="worker-1", now=NOW) is False


def test_process_event_whose_fire_ack_is_lost_returns_the_intention(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    client, proxy = proxied
    memory.intend(intention("i-2"))
    proxy.arm(tx_tag("fire"))
    fired = client.process_event({"migration": "014"}, principal=ACME, scope=SCOPE,
                                 by="worker-1", now=NOW)
    assert proxy.dropped == 1
    assert [(i.id, i.status) for i in fired] == [("i-2", IntentionStatus.FIRED)]
    assert [t.kind for t in memory.intentions.history("i-2")] == ["fire"]


def test_cancel_whose_commit_ack_is_lost_reports_that_it_cancelled(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    client, proxy = proxied
    memory.intend(intention("i-3"))
    proxy.arm(tx_tag("cancel"))
    assert client.cancel("i-3", by="ops", reason="not needed", now=NOW) is True
    assert proxy.dropped == 1
    assert [t.kind for t in memory.intentions.history("i-3")] == ["cancel"]
    assert memory.intentions.get("i-3").status is IntentionStatus.CANCELLED
    assert client.cancel("i-3", by="ops", reason="not needed", now=NOW) is False


def test_intend_whose_commit_ack_is_lost_reports_that_it_created(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    client, proxy = proxied
    proxy.arm(tx_tag("intend"))
    assert client.intend(intention("i-4")) is True
    assert proxy.dropped == 1
    assert memory.intentions.get("i-4").status is IntentionStatus.PENDING
    assert client.intend(intention("i-4")) is False


def episode(rid: str, position: int) -> dict[str, Any]:
    return {"id": rid, "kind": "episodic", "content": f"turn {position} of the deploy chat",
            "created_at": NOW, "scope": SCOPE, "thread": "chat-7", "position": position,
            "provenance": {"source": "chat"}, "authority": "verified_outcome"}


@pytest.mark.parametrize("authority", ["verified_outcome", "model_inferred"])
def test_a_threaded_write_whose_commit_ack_is_lost_is_stored_once_and_reported(
        memory: Memory, proxied: tuple[Memory, LostAck], authority: str) -> None:
    """A record in a thread is decided by the full write transaction (not write/new): its
    lost acknowledgement made the call raise, and the call repeated was told DISCARD
    "identical record already stored", a second decision logged on its own record."""
    client, proxy = proxied
    want = (WriteDisposition.PERSIST if authority == "verified_outcome"
            else WriteDisposition.QUARANTINE)
    proxy.arm(tx_tag("write"))
    decision = client.write({**episode("e-1", 0), "authority": authority}, now=NOW)
    assert proxy.dropped == 1
    assert decision.disposition is want
    assert [h["kind"] for h in memory.history("e-1")] == [f"write:{want.value}"]
    assert memory.get("e-1").position == 0
