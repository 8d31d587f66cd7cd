"""What GraphmemStore decides for its user: the tenant of a single-tenant principal, and
TTLs refreshed by reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import AuthorizationError, Memory, Principal
from graphmem.client import store_of
from graphmem.integrations.langgraph import GraphmemStore


def test_a_single_tenant_principal_makes_its_tenant_the_default(memory: Memory) -> None:
    """langmem's default namespaces start with "memories": with a principal of one tenant,
    they are stored in that tenant, no ``tenant=`` needed."""
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice"})))
    ns = ("memories", "u-1")
    store.put(ns, "m1", {"content": "likes tea"})
    item = store.get(ns, "m1")
    assert item is not None and item.value == {"content": "likes tea"}
    assert store.namespace_scope(ns)["tenant"] == "alice"
    assert [i.key for i in store.search(("memories",))] == ["m1"]
    assert store.list_namespaces() == [ns]
    # another principal of that one tenant reads it; one of another tenant does not
    again = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice"})))
    assert again.get(ns, "m1") is not None
    bob = GraphmemStore(memory, principal=Principal(tenants=frozenset({"bob"})))
    assert bob.get(ns, "m1") is None and bob.search(("memories",)) == []
    # with several tenants the first label still names the tenant
    both = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice", "bob"})))
    with pytest.raises(AuthorizationError):
        both.put(ns, "m2", {"content": "x"})
    both.put(("alice", "prefs"), "k", {"v": 1})
    assert store.get(("alice", "prefs"), "k") is not None  # the same tenant and scope


def test_reads_refresh_the_ttl_as_a_declared_transition(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """LangGraph's refresh_ttl: a get or search (refresh_ttl=True, the default) starts an
    item's TTL again from the read; refresh_ttl=False leaves it. Each extension is a
    transition with who and when; an item put without a TTL never gains one."""
    t0 = datetime(2032, 3, 1, tzinfo=UTC)
    clock = {"now": t0}
    monkeypatch.setattr(store_of(memory), "clock", lambda: clock["now"])
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"alice"})),
                          actor="agent-7")
    ns = ("alice", "ttl")
    store.put(ns, "k", {"v": 1}, ttl=10)
    store.put(ns, "forever", {"v": 2})
    (rid,) = store.record_ids(ns, "k")
    clock["now"] = t0 + timedelta(minutes=8)
    assert store.get(ns, "k", refresh_ttl=False) is not None
    assert memory.get(rid).expires_at == t0 + timedelta(minutes=10)
    assert store.get(ns, "k") is not None  # refreshed: expires 10 minutes from now
    assert memory.get(rid).expires_at == t0 + timedelta(minutes=18)
    clock["now"] = t0 + timedelta(minutes=17)
    assert [i.key for i in store.search(ns)] == ["k", "forever"]  # refreshed again
    assert memory.get(rid).expires_at == t0 + timedelta(minutes=27)
    clock["now"] = t0 + timedelta(minutes=26)
    assert [i.key for i in store.search(ns, refresh_ttl=False)] == ["k", "forever"]
    clock["now"] = t0 + timedelta(minutes=27)
    assert store.get(ns, "k") is None  # expired: never returned, never refreshed
    assert memory.get(rid).expires_at == t0 + timedelta(minutes=27)
    extensions = [t for t in memory.history(rid) if t.get("kind") == "expiry_extended"]
    assert [(t["by"], t["at"]) for t in extensions] == [
        ("agent-7", t0 + timedelta(minutes=8)), ("agent-7", t0 + timedelta(minutes=17))]
    assert memory.get(store.record_ids(ns, "forever")[0]).expires_at is None
