"""A LangGraph namespace too large to be kept as a scope is a graphmem ``ValidationError`` at
every call of the store, never pydantic's own error (docs/integrations/langgraph.md,
docs/spec/records.md#scope).

The labels were bounded as JSON (``InputLimits.check_namespace``), but a namespace is kept
as the scope ``{"tenant": T, "langgraph": "namespace", "langgraph.0": l0, ...}``, whose key
is larger than the labels: 200 one-letter labels passed the label check and then broke the
scope rule inside ``MemoryRecord``, a raw ``pydantic.ValidationError`` out of ``put``. Each
namespace's scope (with the tenant and a confined store's own pairs) is now checked where
the store makes it, so a call either works or raises a ``GraphmemError`` and writes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import GetOp, PutOp

from graphmem import Memory, Principal, ValidationError
from graphmem.client import store_of
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.database import Neo4jUnderTest, wipe
from tests.support.fuzz import FUZZ, check

pytestmark = pytest.mark.neo4j

TENANT = "t"
DEEP = (TENANT,) + ("n",) * 199  # 200 short labels: small as JSON, too large as a scope


@pytest.fixture(scope="module")
def lg_memory(neo4j_db: Neo4jUnderTest) -> Iterator[Memory]:
    mem = Memory.connect(neo4j_db.settings, start_if_needed=False)
    wipe(mem)
    try:
        yield mem
    finally:
        wipe(mem)
        mem.close()


def _stores(memory: Memory) -> list[GraphmemStore]:
    return [GraphmemStore(memory, principal=Principal(tenants=frozenset({TENANT}))),
            GraphmemStore(memory, principal=Principal(tenants=frozenset({TENANT}),
                                                      scope={"user": "u-17"}))]


def test_a_namespace_too_large_for_a_scope_is_a_validation_error(memory: Memory) -> None:
    for store in _stores(memory):
        calls: list[Callable[[GraphmemStore], object]] = [
            lambda s: s.put(DEEP, "k", {"v": 1}),
            lambda s: asyncio.run(s.aput(DEEP, "k", {"v": 1})),
            lambda s: s.batch([PutOp(DEEP, "k", {"v": 1})]),
            lambda s: s.get(DEEP, "k"),
            lambda s: s.batch([GetOp(DEEP, "k")]),
            lambda s: s.delete(DEEP, "k"),
            lambda s: s.namespace_scope(DEEP)]
        for call in calls:
            with pytest.raises(ValidationError, match="as its key"):
                call(store)
    assert _records(memory) == 0  # nothing written


def _records(memory: Memory) -> int:
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (r:Record) RETURN count(r) AS n", database_=store_of(memory).database)
    return int(rows[0]["n"])


# many short labels (small as JSON, large as a scope), or a few of any size
labels = st.one_of(
    st.builds(lambda n, k, ch: [ch * k] * n, st.sampled_from([1, 50, 100, 150, 180, 200, 240]),
              st.sampled_from([1, 2, 5]), st.sampled_from(["x", "é", "\U0001f600"])),
    st.lists(st.builds(lambda n, ch: ch * n, st.sampled_from([1, 20, 300, 1500]),
                       st.sampled_from(["x", "é", "\U0001f600"])), min_size=1, max_size=4))


@FUZZ
@given(rest=labels, confined=st.booleans())
def test_any_namespace_is_stored_or_refused_with_a_graphmem_error(
        lg_memory: Memory, rest: list[str], confined: bool) -> None:
    store = _stores(lg_memory)[confined]
    namespace = (TENANT, *rest)

    def put() -> bool:
        store.put(namespace, "k", {"v": 1})
        return True

    stored = check(lg_memory, put)
    item = check(lg_memory, lambda: store.get(namespace, "k"))
    if stored:  # what was stored reads back; what was refused is not there
        assert item is not None and item.value == {"v": 1}
    else:
        assert item is None
    check(lg_memory, lambda: store.search((TENANT,)))
    check(lg_memory, lambda: store.delete(namespace, "k"))
