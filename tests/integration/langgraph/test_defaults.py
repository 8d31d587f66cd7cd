"""What GraphmemStore decides for its user: the tenant of a single-tenant principal."""

from __future__ import annotations

import pytest

from graphmem import AuthorizationError, Memory, Principal
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
