"""A redaction term leaves a LangGraph item whole: its value stays JSON the store reads, a
number the term names goes too, and the facts a filter tests (``lg_facts``, ``lg_nums``) are
the redacted value's, so a filter on the erased value finds nothing
(docs/spec/deletion.md#redaction; docs/integrations/langgraph.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem import Memory, Principal
from graphmem.client import store_of
from graphmem.db.langgraph_shape import value_facts
from graphmem.integrations.langgraph import GraphmemStore
from tests.support.embeddings import DIMS, embed

pytestmark = pytest.mark.neo4j

T0 = datetime(2026, 9, 1, 9, tzinfo=UTC)
U17 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})


def _items(memory: Memory) -> list[dict[str, Any]]:
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (r:Record) WHERE r.lg_facts IS NOT NULL RETURN properties(r) AS p",
        database_=store_of(memory).database)
    return [dict(row["p"]) for row in rows]


def test_an_item_holding_a_term_stays_a_readable_item_without_it(memory: Memory) -> None:
    store = GraphmemStore(memory, principal=U17)
    store.put(("contacts",), "c1", {"name": "Jane Roe", "phone": 5551234, "age": 42,
                                    "note": "met at 5551234 desk"})
    store.put(("contacts",), "c2", {"name": "John Poe", "phone": 5550000, "age": 42})
    memory.write({"id": "root", "kind": "semantic", "content": "Jane Roe asked",
                  "created_at": T0, "scope": {"tenant": "acme", "user": "u-17"},
                  "authority": "human_instruction"}, now=T0)
    before = {p["id"]: p for p in _items(memory)}
    plan = memory.plan_deletion(roots=["root"], redact_terms=["Jane Roe", "5551234"],
                                requested_by="dpo", reason="erasure request")
    report = memory.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems
    # every item still reads (its value is JSON), without the name or the number
    found = {item.key: item.value for item in store.search(("contacts",))}
    assert found["c1"] == {"name": "[REDACTED]", "phone": "[REDACTED]", "age": 42,
                           "note": "met at [REDACTED] desk"}
    assert found["c2"] == {"name": "John Poe", "phone": 5550000, "age": 42}
    assert store.get(("contacts",), "c1") is not None
    # a filter on the erased value finds nothing; the untouched item is still found
    assert store.search(("contacts",), filter={"name": "Jane Roe"}) == []
    assert store.search(("contacts",), filter={"phone": 5551234}) == []
    assert store.search(("contacts",), filter={"phone": {"$gte": 5551234}}) == []
    assert [i.key for i in store.search(("contacts",), filter={"age": 42})] == ["c1", "c2"]
    after = {p["id"]: p for p in _items(memory)}
    for rid, props in after.items():
        value = json.loads(json.loads(props["metadata_json"])["langgraph"]["value_json"])
        assert {k: props[k] for k in ("lg_facts", "lg_num_paths", "lg_nums")} == \
            value_facts(value)
        assert 5551234.0 not in props["lg_nums"]
        if value["name"] == "John Poe":  # untouched
            assert props["lg_facts"] == before[rid]["lg_facts"]


def test_a_redacted_items_embeddings_of_the_term_go(memory: Memory) -> None:
    """An item's vectors embed its text as it was: kept after the term left the text, a
    query near the erased name still ranked the item first. They go with the term (the
    item is then unscored, as one put with ``index=False``); an untouched item keeps its."""
    store = GraphmemStore(memory, principal=U17,
                          index={"dims": DIMS, "embed": embed, "fields": ["note"]})
    store.put(("notes",), "n1", {"note": "Jane Roe prefers calls"})
    store.put(("notes",), "n2", {"note": "the printer jams"})
    memory.write({"id": "root", "kind": "semantic", "content": "Jane Roe asked",
                  "created_at": T0, "scope": {"tenant": "acme", "user": "u-17"},
                  "authority": "human_instruction"}, now=T0)
    assert store.search(("notes",), query="Jane Roe")[0].key == "n1"
    report = memory.apply_deletion(memory.plan_deletion(
        roots=["root"], redact_terms=["Jane Roe"], requested_by="dpo", reason="erasure"))
    assert report.verification.passed, report.verification.problems
    ranked = store.search(("notes",), query="Jane Roe")
    assert [(i.key, i.score is None) for i in ranked] == [("n2", False), ("n1", True)]
    assert ranked[1].value == {"note": "[REDACTED] prefers calls"}


def test_a_name_escaped_in_json_or_parted_by_controls_is_erased(memory: Memory) -> None:
    """An item's content is its value as JSON, where a line break is ``\\n``; a record an
    agent stored as ``json.dumps(...)`` writes Cyrillic as ``\\uXXXX``; a fixed-width export
    pads a name with NULs. Each name stayed in the content after apply, and the verification
    passed (docs/deletion-terms.md#json-escapes, #control-characters)."""
    store = GraphmemStore(memory, principal=U17)
    store.put(("contacts",), "c1", {"note": "call Jane\nRoe at noon"})
    caller = "Иван\tПетров"  # noqa: RUF001  (Cyrillic letters that look Latin)
    for rid, content in (("asked", "Jane Roe asked to be forgotten"),
                         ("noted", json.dumps({"caller": caller, "about": "bills"})),
                         ("padded", "J\x00ANE\x00\x00\x00ROE|1984|export")):
        memory.write({"id": rid, "kind": "semantic", "created_at": T0, "content": content,
                      "scope": {"tenant": "acme", "user": "u-17"},
                      "authority": "human_instruction"}, now=T0)
    plan = memory.plan_deletion(roots=["asked"], redact_terms=["Jane Roe", "Иван Петров"],
                                requested_by="dpo", reason="erasure request")
    report = memory.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems
    assert [p["content"] for p in _items(memory)] == ['{"note": "call [REDACTED] at noon"}']
    item = store.get(("contacts",), "c1")
    assert item is not None and item.value == {"note": "call [REDACTED] at noon"}
    assert json.loads(memory.get("noted").content) == {"caller": "[REDACTED]",
                                                       "about": "bills"}
    assert memory.get("padded").content == "[REDACTED]|1984|export"  # docs: control-characters
