"""AsyncMemory when its server dies: every kind of call leaves as DatabaseUnavailableError
(never a raw driver or asyncio error) within the settings' retry time, the event loop keeps
turning meanwhile, and once the server is back the same client works again."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from graphmem import AsyncMemory, DatabaseUnavailableError, GraphmemError, Principal
from tests.support.crash import JOIN_S, CrashableServer

NOW = datetime(2026, 5, 1, tzinfo=UTC)
SCOPE = {"tenant": "lost", "project": "p"}
CALLER = Principal(tenants=frozenset({"lost"}))
STATE = {"memory_scope": SCOPE, "goal": "where is the invoice", "needs_prior_context": True}


def record(rid: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": f"the invoice is in folder {rid}",
            "created_at": NOW.isoformat(), "scope": SCOPE, "authority": "human_instruction"}


def test_a_lost_server_is_database_unavailable_and_a_restarted_one_is_used_again(
        crash_server: CrashableServer) -> None:
    async def scenario() -> None:
        client = await AsyncMemory.connect(crash_server.settings, start_if_needed=False)
        try:
            assert (await client.write(record("a"))).disposition.value == "PERSIST"
            assert (await client.retrieve(STATE, principal=CALLER)).ids == ["a"]
            crash_server.kill()
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            ticking = asyncio.create_task(ticker())
            began = time.monotonic()
            calls = [client.get("a"), client.write(record("b")), client.put(record("c")),
                     client.retrieve(STATE, principal=CALLER), client.history("a"),
                     client.candidates(principal=CALLER, scope=SCOPE)]
            outcomes = await asyncio.wait_for(
                asyncio.gather(*calls, return_exceptions=True), JOIN_S)
            elapsed = time.monotonic() - began
            ticking.cancel()
            for got in outcomes:
                assert isinstance(got, DatabaseUnavailableError), repr(got)
            assert ticks >= elapsed / 0.01 / 4, (ticks, elapsed)  # the loop kept turning

            await asyncio.to_thread(crash_server.restart)
            deadline = time.monotonic() + JOIN_S
            while True:
                try:
                    assert (await client.get("a")).id == "a"
                    break
                except GraphmemError:
                    assert time.monotonic() < deadline, "the client did not reconnect"
                    await asyncio.sleep(0.5)
            assert (await client.retrieve(STATE, principal=CALLER)).ids == ["a"]
        finally:
            await client.close()

    asyncio.run(scenario())
