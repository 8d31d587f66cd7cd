"""Calls whose commit the server made but whose acknowledgement was lost (the connection cut
between COMMIT and its answer: the driver's ``IncompleteCommit``). Each call finds out by
itself whether its own commit landed, as ``fire`` always claimed to ("a driver retry after an
unacknowledged commit still reports the one success"): it reports what it did, exactly once,
instead of ``DatabaseUnavailableError``, after which a repeat of the call was told False (the
intention was fired by "someone else", so nobody performed its action) or DISCARD ("identical
record already stored": its own record). The lifecycle transitions (a repeated promote was
refused: "only a quarantined record can be promoted"; a repeated expire logged twice) and the
imports (a repeated put_many reported nothing created) recognise theirs too."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.aio import AsyncMemory
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


def note(rid: str, authority: str = "human_instruction") -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"the deploy runbook says {rid}",
            "created_at": NOW, "scope": SCOPE, "authority": authority}


def test_put_many_whose_commit_ack_is_lost_reports_what_it_created(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    """put/put_many/put_stream/import_jsonl write through one transaction function: its lost
    acknowledgement raised DatabaseUnavailableError (outcome unknown), and the call repeated
    reported nothing created, though this call had created them all."""
    client, proxy = proxied
    memory.put(note("p-0"))  # stored before: an identical re-write, not created
    proxy.arm(tx_tag("put_many"))
    assert client.put_many([note("p-0"), note("p-1"), note("p-2")]) == ["p-1", "p-2"]
    assert proxy.dropped == 1
    assert client.put_many([note("p-1"), note("p-2")]) == []
    proxy.arm(tx_tag("put_many"))
    assert client.put(note("p-3")) is True
    assert proxy.dropped == 2
    assert memory.get("p-3").content == note("p-3")["content"]


def test_an_import_whose_batch_ack_is_lost_reports_every_id_once(
        memory: Memory, proxied: tuple[Memory, LostAck], tmp_path: Any) -> None:
    client, proxy = proxied
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(json.dumps({**note(f"j-{i}"), "created_at": NOW.isoformat()})
                              for i in range(3)) + "\n", encoding="utf-8")
    proxy.arm(tx_tag("put_many"))
    assert client.import_jsonl(path, batch_size=2) == ["j-0", "j-1", "j-2"]
    assert proxy.dropped == 1


@pytest.mark.parametrize("call", ["expire", "retract"])
def test_a_transition_whose_commit_ack_is_lost_is_logged_once_and_reported(
        memory: Memory, proxied: tuple[Memory, LostAck], call: str) -> None:
    client, proxy = proxied
    memory.put(note("t-1"))
    proxy.arm(tx_tag(call))
    if call == "expire":
        client.expire("t-1", at=datetime(2026, 10, 1, tzinfo=UTC), by="ops", reason="stale")
    else:
        client.retract("t-1", by="ops", reason="wrong")
    assert proxy.dropped == 1
    assert [h["kind"] for h in memory.history("t-1")
            if h["kind"] in ("expire", "retract")] == [call]


def test_promote_whose_commit_ack_is_lost_reports_that_it_promoted(
        memory: Memory, proxied: tuple[Memory, LostAck]) -> None:
    """The repeat of a promote whose acknowledgement was lost raised PolicyError "only a
    quarantined record can be promoted": the reviewer was told their promotion failed."""
    client, proxy = proxied
    assert memory.write(note("q-1", "model_inferred"), now=NOW).disposition \
        is WriteDisposition.QUARANTINE
    proxy.arm(tx_tag("promote"))
    client.promote("q-1", by="reviewer", reason="checked the runbook")
    assert proxy.dropped == 1
    assert [h["kind"] for h in memory.history("q-1") if h["kind"] == "promote"] == ["promote"]


def test_the_async_client_recognises_its_own_commits_too(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """AsyncMemory runs Memory's definitions over the driver's async API: a lost
    acknowledgement reaches the same transaction function (put_many, then expire)."""
    proxy = LostAck(neo4j_db.settings.uri)
    settings = dataclasses.replace(neo4j_db.settings, uri=proxy.uri)

    async def run() -> list[str]:
        async with await AsyncMemory.connect(settings, start_if_needed=False,
                                             ensure_schema=False) as client:
            proxy.arm(tx_tag("put_many"))
            created = await client.put_many([note("a-1"), note("a-2")])
            proxy.arm(tx_tag("expire"))
            await client.expire("a-1", at=datetime(2026, 10, 1, tzinfo=UTC), by="ops",
                                reason="stale")
            return created

    try:
        assert asyncio.run(run()) == ["a-1", "a-2"]
    finally:
        proxy.close()
    assert proxy.dropped == 2
    assert [h["kind"] for h in memory.history("a-1") if h["kind"] == "expire"] == ["expire"]
