"""AsyncMemory's concurrent retrievals share round trips (graphmem.db.batches) on the real
Neo4j: logs that wait together are written in one statement, each exactly as alone; a batch
that fails is logged retrieval by retrieval; a version check shared by concurrent reads is
always sent after each of them began, so none misses a write committed before it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from graphmem import AsyncMemory, Memory, Principal, StoreError
from graphmem.db.eligibility import Eligibility
from graphmem.db.ops.attribution import CandidateSetWrite, Neo4jAttribution, Selection
from tests.support.database import Neo4jUnderTest
from tests.support.principals import T0

ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme", "project": "shop"}
WORDS = ["refund", "jacket", "delivery", "voucher", "exchange", "courier", "invoice"]
NOW = T0 + timedelta(days=1)


def _records(n: int, tag: str = "r") -> list[dict[str, Any]]:
    return [{"id": f"{tag}{i}", "kind": "semantic", "created_at": T0,
             "content": f"{WORDS[i % 7]} {WORDS[(i * 3) % 7]} note {i}", "scope": SCOPE,
             "authority": "authoritative_source"} for i in range(n)]


def _states(n: int) -> list[dict[str, Any]]:
    return [{"memory_scope": SCOPE, "goal": f"{WORDS[i % 7]} {WORDS[(i + 2) % 7]}",
             "needs_prior_context": True} for i in range(n)]


def test_concurrent_retrievals_are_logged_together_each_as_alone(
        memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.put_many([*_records(40), {**_records(1, "c")[0], "asserts": "window",
                                     "asserted_value": "14", "content": "refund window 14"},
                     {**_records(1, "d")[0], "asserts": "window", "asserted_value": "30",
                      "content": "refund window 30"}])
    sizes: list[int] = []
    original = Neo4jAttribution.log_retrievals

    def held_first(self: Neo4jAttribution, batch: Sequence[tuple[CandidateSetWrite, Selection]]
                   ) -> list[int]:
        sizes.append(len(batch))
        if len(sizes) == 1:
            time.sleep(0.5)  # the others finish ranking meanwhile and wait together
        return original(self, batch)

    monkeypatch.setattr(Neo4jAttribution, "log_retrievals", held_first)

    async def together() -> list[Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return await asyncio.gather(*(client.retrieve(s, principal=ACME, now=NOW,
                                                          budget_chars=600)
                                          for s in _states(12)))

    got = run(together())
    assert max(sizes) > 1 and sum(sizes) == 12
    assert any(r.conflicts for r in got)
    for r in got:
        logged = memory.get_retrieval(r.trace.retrieval_id)
        assert logged["retrieval"]["selected_ids"] == r.ids
        assert logged["retrieval"]["conflict_keys"] == [c.key for c in r.conflicts]
        assert logged["retrieval"]["candidate_ids"] == sorted(r.trace.candidate_ids)
        selected = sorted(logged["selected"], key=lambda s: s["rank"])
        assert [(s["id"], s["rank"]) for s in selected] == [
            (rid, i) for i, rid in enumerate(r.ids)]
        assert [s["score"] for s in selected] == pytest.approx([m.score for m in r.memories])
        assert [s["reason"] for s in selected] == [m.reason for m in r.memories]


def test_a_failed_batch_is_logged_retrieval_by_retrieval(
        memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.put_many(_records(30))
    failed: list[int] = []

    def refused(self: Neo4jAttribution, batch: Sequence[tuple[CandidateSetWrite, Selection]]
                ) -> list[int]:
        failed.append(len(batch))
        time.sleep(0.1)
        raise StoreError("the batch was refused")

    monkeypatch.setattr(Neo4jAttribution, "log_retrievals", refused)

    async def together() -> list[Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            return await asyncio.gather(*(client.retrieve(s, principal=ACME, now=NOW)
                                          for s in _states(8)))

    got = run(together())
    assert failed and sum(failed) == 8
    for r in got:
        assert memory.get_retrieval(r.trace.retrieval_id)["retrieval"]["selected_ids"] == r.ids


def test_a_shared_version_check_never_hides_a_write_committed_before_a_read_began(
        memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that starts while another's version check is on its way must not take that
    check's answer (sent before the write below committed): it waits and sends its own."""
    memory.put_many(_records(20))
    started, go = threading.Event(), threading.Event()
    checks: list[int] = []
    original = Eligibility._check_together

    def held(self: Eligibility, batch: Sequence[Any]) -> list[Any]:
        checks.append(len(batch))
        read = original(self, batch)
        if len(checks) == 1:  # read; its answer held back until the write below committed
            started.set()
            assert go.wait(10)
        return read

    async def scenario() -> tuple[Any, Any]:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as client:
            state = _states(1)[0]
            await client.retrieve(state, principal=ACME, now=NOW)  # the answer is cached
            monkeypatch.setattr(Eligibility, "_check_together", held)
            first = asyncio.create_task(client.retrieve(state, principal=ACME, now=NOW))
            assert await asyncio.to_thread(started.wait, 10)
            await asyncio.to_thread(memory.put, {**_records(1, "late")[0],
                                                 "content": "refund late note"})
            second = asyncio.create_task(client.retrieve(state, principal=ACME, now=NOW))
            await asyncio.sleep(0.3)  # the second read waits behind the first's check
            go.set()
            return await first, await second

    first, second = run(scenario())
    assert "late0" in second.trace.candidate_ids
    assert "late0" not in first.trace.candidate_ids  # its check was sent before the write
    assert len(checks) >= 2


def run(coro: Any) -> Any:
    return asyncio.run(coro)
