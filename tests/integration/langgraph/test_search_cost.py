"""A search costs what it returns, not what the namespace holds: the database hits of one
page of ``langgraph/search`` (a filter, limit 10) are the same at 100 and at 1,500 items,
and every statement of the store seeks (no index or label scan), in a fresh store and in one
that was filled and wiped before (whose statistics once made the planner read every record
of the namespace to decide whether a superseded item's successor was visible)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import PutOp

from graphmem import Memory, Principal
from graphmem.client import store_of
from graphmem.db.base import StoreBase
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.database import wipe
from tests.support.plans import profile

pytestmark = pytest.mark.neo4j


def _search_params(store: GraphmemStore, monkeypatch: pytest.MonkeyPatch,
                   **search: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    original = StoreBase.read_once

    def spy(self: StoreBase, name: str, **params: Any) -> list[dict[str, Any]]:
        seen[name] = params
        return original(self, name, **params)

    monkeypatch.setattr(StoreBase, "read_once", spy)
    store.search(("t", "ns"), **search)
    monkeypatch.undo()
    return dict(seen["langgraph/search"])


def _fill_and_wipe(memory: Memory) -> None:
    """Thousands of items in another tenant's namespace, then none: the store's statistics
    (counts, index samples) are those of a store with history."""
    other = GraphmemStore(memory, principal=Principal(tenants=frozenset({"u"})))
    for start in range(0, 3000, 500):
        other.batch([PutOp(("u", "old"), f"k{i}", {"i": i, "color": "red"})
                     for i in range(start, start + 500)])
    wipe(memory)


@pytest.mark.parametrize("history", ["fresh", "filled and wiped"])
def test_a_page_costs_the_same_in_a_larger_namespace(
        memory: Memory, monkeypatch: pytest.MonkeyPatch, history: str) -> None:
    """Measured at 1,500 items twice: with the plan made at 100 items (kept, as the server
    keeps a plan until its statistics have moved enough), and with one made afresh."""
    if history == "filled and wiped":
        _fill_and_wipe(memory)
    run, db = store_of(memory).driver.execute_query, store_of(memory).database
    # every index sampled empty and every plan dropped: the first plans are made on the
    # statistics of an empty store, as they are until the server samples its indexes again
    run("CALL db.prepareForReplanning()", database_=db)
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"t"})))
    store.put(("t", "ns"), "k1", {"i": 1, "color": "blue"})
    store.put(("t", "ns"), "k1", {"i": 1, "color": "red"})  # a key with history
    searches: list[dict[str, Any]] = [
        {"filter": {"color": "red"}, "limit": 10},
        {"filter": {"i": {"$gte": 5}}, "limit": 10, "offset": 5}]
    hits: dict[str, list[int]] = {}
    scans: list[str] = []
    written = 0
    for size, plans in ((100, ("kept",)), (1500, ("kept", "made"))):
        store.batch([PutOp(("t", "ns"), f"k{i}", {"i": i, "color": "red" if i % 3 else "blue"})
                     for i in range(written, size) if i != 1])
        written = size
        for plan in plans:
            if plan.startswith("made"):  # indexes sampled again, cached plans dropped
                run("CALL db.prepareForReplanning()", database_=db)
            for search in searches:
                assert len(store.search(("t", "ns"), **search)) == 10
                h, s = profile(memory, "langgraph/search",
                               _search_params(store, monkeypatch, **search),
                               keep_plan=plan.startswith("kept"))
                hits.setdefault(f"{plan} at {size}", []).append(h)
                scans += s
    assert scans == []
    small = hits.pop("kept at 100")
    assert all(b <= a * 1.2 for large in hits.values()
               for a, b in zip(small, large, strict=True)), hits
