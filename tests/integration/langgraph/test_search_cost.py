"""A search costs what it returns, not what the namespace holds: the database hits of one
page of ``langgraph/search`` (a filter, limit 10) are the same at 100 and at 1,500 items,
and every statement of the store seeks (no index or label scan)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.base import PutOp

from graphmem import Memory, Principal
from graphmem.db.base import StoreBase
from graphmem.integrations.langgraph import GraphmemStore
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


@pytest.mark.xfail(strict=False, reason=(
    "open: in a fresh store Neo4j reads the page through the lg_order index in order (passes); "
    "after other tests filled and wiped the store, its statistics lead the planner to read "
    "the namespace whole and sort (docs/integrations/langgraph.md, known gaps)"))
def test_a_page_costs_the_same_in_a_larger_namespace(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"t"})))
    hits, scans = [], []
    written = 0
    for size in (100, 1500):
        store.batch([PutOp(("t", "ns"), f"k{i}", {"i": i, "color": "red" if i % 3 else "blue"})
                     for i in range(written, size)])
        written = size
        store.put(("t", "ns"), "k1", {"i": 1, "color": "red"})  # history of a key
        for search in ({"filter": {"color": "red"}, "limit": 10},
                       {"filter": {"i": {"$gte": 5}}, "limit": 10, "offset": 5}):
            found = store.search(("t", "ns"), **search)  # type: ignore[arg-type]
            assert len(found) == 10
            h, s = profile(memory, "langgraph/search",
                           _search_params(store, monkeypatch, **search))
            hits.append(h)
            scans += s
    assert scans == []
    small, large = hits[:2], hits[2:]
    assert all(b <= a * 1.2 for a, b in zip(small, large, strict=True)), hits
