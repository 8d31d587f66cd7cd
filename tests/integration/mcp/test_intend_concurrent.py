"""``intend`` called again while the first call is still running makes no second intention
(docs/integrations/mcp.md#tools-and-resources, docs/spec/intentions.md#exactly-once).

A client that retries a call whose answer is late, or two agents of one principal that ask
for the same reminder at the same moment, send the same ``intend`` while the first has not
committed: each call used to look for a pending twin, find none, and store its own, and the
event then fired both (the action done twice). The calls are now decided one after the
other under the intention scope's lock: one is created, every other call answers its id.
The same holds for the client call the tool uses, from threads and from asyncio tasks, and
an intention that expired when it is made is refused at every entry point.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import anyio
import pytest
from mcp import Client

from graphmem import AsyncMemory, Memory, ValidationError
from graphmem.client import store_of
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.server import build_server
from tests.support.database import Neo4jUnderTest, race
from tests.support.mcp_client import leaf, ok, refused, serve
from tests.support.principals import U17

pytestmark = pytest.mark.neo4j

CALL = {"action": "ask c-42 about the renewal", "cue_kind": "customer", "cue_value": "c-42",
        "expires_at": "2030-01-01T00:00:00+00:00"}
CALLS = 6


def _servers(neo4j_db: Neo4jUnderTest, count: int) -> list[Any]:
    """``count`` in-process servers of one principal, each with its own AsyncMemory (as two
    agents' ``graphmem mcp`` processes are)."""
    config = ServerConfig.build(tenants=("acme",), agent="test-agent",
                                scope={"tenant": "acme", "user": "u-17"})
    return [build_server(config, connect=lambda: AsyncMemory.connect(
        neo4j_db.settings, start_if_needed=False, ensure_schema=False)) for _ in range(count)]


def _at_once(neo4j_db: Neo4jUnderTest, sessions: int, per_session: int,
             args: dict[str, Any]) -> list[dict[str, Any]]:
    """``per_session`` concurrent ``intend`` calls in each of ``sessions`` sessions, all
    started together; their answers."""
    answers: list[dict[str, Any]] = []

    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(_servers(neo4j_db, 1)[0]) as warm:  # connects, makes the key
                await ok(warm, "status", {})
            servers = _servers(neo4j_db, sessions)
            async with Client(servers[0]) as first:
                clients = [first]
                if sessions > 1:
                    async with Client(servers[1]) as second:
                        clients.append(second)
                        await _gather(clients)
                else:
                    await _gather(clients)

    async def _gather(clients: list[Client]) -> None:
        calls = [ok(c, "intend", args) for c in clients for _ in range(per_session)]
        answers.extend(await asyncio.gather(*calls))

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:
        raise leaf(group) from None
    return answers


@pytest.mark.parametrize("sessions", [1, 2])
def test_concurrent_identical_intend_calls_store_one_intention(
        neo4j_db: Neo4jUnderTest, memory: Memory, sessions: int) -> None:
    answers = _at_once(neo4j_db, sessions, CALLS // sessions, CALL)
    ids = {a["id"] for a in answers}
    assert len(ids) == 1, answers
    assert sum(a["created"] for a in answers) == 1, answers
    fired = memory.intentions.process_event(
        {"customer": "c-42"}, principal=U17, scope={"tenant": "acme", "user": "u-17"},
        by="w", now=datetime(2029, 1, 1, tzinfo=UTC))
    assert [f.id for f in fired] == sorted(ids)  # the event does its action once
    assert _intention_ids(memory) == ids


def _intention(iid: str, **extra: Any) -> dict[str, Any]:
    return {"id": iid, "action": "call back", "trigger_kind": "shipment",
            "trigger_value": "s-1", "scope": {"tenant": "acme", "user": "u-17"},
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
            "expires_at": datetime(2030, 1, 1, tzinfo=UTC), **extra}


def test_threads_storing_the_same_intention_unless_pending_store_it_once(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False) for _ in range(4)]
    now = datetime(2026, 6, 1, tzinfo=UTC)
    answers: list[tuple[str, bool]] = []
    gate = threading.Barrier(len(clients))

    def work(w: int) -> None:
        gate.wait()
        answers.append(clients[w].intentions.intend_unless_pending(_intention(f"i-{w}"),
                                                                   now=now))

    race(work, clients)
    assert len({i for i, _ in answers}) == 1 and sum(c for _, c in answers) == 1, answers
    # another action, cue, expiry or scope is another intention; so is one after it fired
    for change in ({"action": "email"}, {"trigger_value": "s-2"},
                   {"expires_at": datetime(2031, 1, 1, tzinfo=UTC)},
                   {"scope": {"tenant": "acme", "user": "u-17", "project": "p"}}):
        made = memory.intentions.intend_unless_pending(_intention("i-other", **change)
                                                       | {"id": f"i-{len(answers)}"}, now=now)
        answers.append(made)
        assert made[1] is True, change
    first = answers[0][0]
    memory.intentions.fire(first, by="w", now=now)
    again = memory.intentions.intend_unless_pending(_intention("i-after"), now=now)
    assert again == ("i-after", True)
    # expired at now: not pending, so the same definition is made anew
    lapsed = memory.intentions.intend_unless_pending(
        _intention("i-late"), now=datetime(2030, 1, 1, tzinfo=UTC))
    assert lapsed == ("i-late", True)


def test_asyncio_tasks_storing_the_same_intention_store_it_once(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def run() -> list[tuple[str, bool]]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as aio:
            now = datetime(2026, 6, 1, 2, tzinfo=timezone(timedelta(hours=2)))
            return list(await asyncio.gather(*(
                aio.intentions.intend_unless_pending(_intention(f"a-{n}"), now=now)
                for n in range(5))))

    answers = asyncio.run(run())
    assert len({i for i, _ in answers}) == 1 and sum(c for _, c in answers) == 1, answers


def test_an_intention_expired_when_made_is_refused_everywhere(neo4j_db: Neo4jUnderTest,
                                                              memory: Memory) -> None:
    made = datetime(2026, 1, 1, tzinfo=UTC)
    for expiry in (made, made - timedelta(seconds=1),
                   # the same instant, and one before it, written in other zones
                   datetime(2026, 1, 1, 5, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))),
                   datetime(2025, 12, 31, 18, tzinfo=timezone(timedelta(hours=-5)))):
        with pytest.raises(ValidationError, match="expires_at must be after created_at"):
            memory.intend(_intention("i-dead", expires_at=expiry))
        with pytest.raises(ValidationError, match="expires_at must be after created_at"):
            memory.intentions.intend_unless_pending(_intention("i-dead", expires_at=expiry),
                                                    now=made)

    async def aio_call() -> None:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as aio:
            with pytest.raises(ValidationError, match="expires_at must be after created_at"):
                await aio.intend(_intention("i-dead", expires_at=made))

    asyncio.run(aio_call())

    async def mcp_calls(client: Client) -> None:
        for past in ("2020-01-01T00:00:00+00:00", "2020-01-01T09:00:00+09:00"):
            await refused(client, "intend", {**CALL, "expires_at": past},
                          "ValidationError", "expires_at must be after created_at")

    serve(neo4j_db, mcp_calls, scope={"tenant": "acme", "user": "u-17"})
    assert _intention_ids(memory) == set()  # nothing written by any refused call


def _intention_ids(memory: Memory) -> set[str]:
    records, _, _ = store_of(memory).driver.execute_query(
        "MATCH (i:Intention) RETURN i.id AS id", database_=store_of(memory).database)
    return {r["id"] for r in records}
