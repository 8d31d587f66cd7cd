"""GraphmemStore's async path over the real Neo4j: concurrent async calls are combined
(counted as statements of the store's operations, graphmem.db.ops.langgraph), each caller
keeps its own typed error, and puts awaited one after another each leave a version."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from langgraph.store.base import Item

from graphmem import AuthorizationError, Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.db.ops import langgraph as lg_ops
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.models import Sensitivity


def count_statements(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each of the store's operations runs (each one statement)."""
    counts: Counter[str] = Counter()
    for name in ("get_items", "search_items", "list_namespaces", "put_batch", "refresh_ttl"):
        original: Callable[..., Any] = getattr(lg_ops, name)

        def counted(*args: Any, _name: str = name, _original: Callable[..., Any] = original,
                    **kwargs: Any) -> Any:
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(lg_ops, name, counted)
    return counts


def test_concurrent_async_calls_are_combined(memory: Memory,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"t"})))
    ns = ("t", "ns")
    counts = count_statements(monkeypatch)

    async def run() -> list[Any]:
        await asyncio.gather(*(store.aput(ns, f"k{i}", {"i": i}) for i in range(100)))
        return await asyncio.gather(
            *(store.aget(ns, f"k{i % 100}", refresh_ttl=False) for i in range(200)),
            *(store.aput(ns, f"n{i}", {"i": i}) for i in range(100)),
            *(store.asearch(ns, filter={"i": 3}) for _ in range(20)),  # one search
            *(store.asearch(ns, limit=1, offset=i) for i in range(5)),  # five
            *(store.alist_namespaces() for _ in range(10)))

    results = asyncio.run(run())
    assert counts == {"put_batch": 2, "get_items": 1, "search_items": 6,
                      "list_namespaces": 1}
    gets = results[:200]
    assert all(isinstance(g, Item) and g.value == {"i": i % 100} for i, g in enumerate(gets))
    assert results[200:300] == [None] * 100
    assert all([i.key for i in found] == ["k3"] for found in results[300:320])
    assert [[i.key for i in found] for found in results[320:325]] == [
        [f"k{i}"] for i in range(5)]
    assert results[325:] == [[ns]] * 10
    assert store.async_batcher.rounds == 2 and store.async_batcher.calls == 435
    assert store.get(ns, "n99") is not None


def test_each_call_keeps_its_own_typed_error(memory: Memory) -> None:
    cleared = Principal(tenants=frozenset({"a", "b"}), clearance=Sensitivity.RESTRICTED)
    secret = GraphmemStore(memory, principal=cleared, sensitivity=Sensitivity.RESTRICTED)
    secret.put(("a",), "held", {"v": "secret"})
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"a", "b"})))

    async def run() -> list[Any]:
        return await asyncio.gather(
            store.aput(("a",), "ok", {"v": 1}),
            store.aput(("c",), "k", {"v": 1}),  # a tenant the principal may not use
            store.aput(("a",), "ttl", {"v": 1}, ttl=-5),  # refused before anything
            store.aput(("a",), "held", {"v": 2}),  # held above the clearance: in Cypher
            store.aget(("a",), "ok"),
            store.asearch(("b",)),
            store.aput(("b",), "ok", {"v": 3}),
            return_exceptions=True)

    ok, tenant, ttl, held, got, found, other = asyncio.run(run())
    assert ok is None and other is None and got is None and found == []
    assert type(tenant) is AuthorizationError
    assert isinstance(ttl, ValidationError)
    assert type(held) is AuthorizationError
    assert [store.get(ns, "ok").value for ns in (("a",), ("b",))] == [  # type: ignore[union-attr]
        {"v": 1}, {"v": 3}]
    assert store.get(("a",), "ttl") is None
    assert secret.get(("a",), "held").value == {"v": "secret"}  # type: ignore[union-attr]


def test_puts_awaited_one_after_another_each_leave_a_version(memory: Memory) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"t"})))
    ns = ("t",)

    async def run() -> None:
        for i in range(3):
            await store.aput(ns, "k", {"v": i})
        await asyncio.gather(*(store.aput(ns, "k", {"v": 10 + i}) for i in range(3)))
        await store.adelete(ns, "k")

    asyncio.run(run())
    ids = store.record_ids(ns, "k")
    assert len(ids) == 4  # three awaited puts; the gathered three are one batch's put
    assert store.get(ns, "k") is None
    assert store_of(memory).state(ids[-1]).retracted_by == "langgraph"  # the delete's tombstone
