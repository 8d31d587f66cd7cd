"""The registry of reserved scope keys (graphmem.db.reserved) names every key the LangGraph
adapter writes."""

from __future__ import annotations

import pytest

from graphmem import ValidationError
from graphmem.db.reserved import LANGGRAPH, RESERVED, check_reserved_scope, owner_of
from graphmem.integrations.langgraph.namespaces import namespace_scope

#: Scopes a non-adapter writer might give, each with a reserved key.
FOREIGN = [
    {"tenant": "acme", "langgraph": "namespace", "langgraph.0": "acme"},
    {"tenant": "acme", "langgraph": "x"},
    {"tenant": "acme", "langgraph.1": "b"},
    {"tenant": "acme", "project": "p", "langgraph.notes": "n"},
]


# ------------------------------------------------------------------ the registry (no database)


def test_the_registry_names_every_key_the_langgraph_adapter_writes() -> None:
    scope = namespace_scope(("acme", "prefs", "deep.er"), "acme")
    assert {k for k in scope if k != "tenant"} == {"langgraph", "langgraph.0", "langgraph.1",
                                                  "langgraph.2"}
    assert all(owner_of(k) == LANGGRAPH for k in scope if k != "tenant")
    assert owner_of("tenant") is None and owner_of("langgraphs") is None
    assert owner_of("LangGraph") is None  # scope keys match exactly
    check_reserved_scope(scope, adapter=LANGGRAPH)  # the adapter writes them
    for foreign in FOREIGN:
        with pytest.raises(ValidationError, match="reserved for the langgraph adapter"):
            check_reserved_scope(foreign, record_id="r")
        with pytest.raises(ValidationError):
            check_reserved_scope(foreign, adapter="another-adapter")
    assert set(RESERVED) == {LANGGRAPH}


# ------------------------------------------------------------------ through the client


# ------------------------------------------------------------------ through the store


