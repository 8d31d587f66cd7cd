"""No index holds text that an erasure removes (docs/spec/deletion.md and docs/spec/intentions.md).
An intention's cue is indexed as a keyed digest: the digest is exact, the key lives in the graph,
older intentions are migrated, a replaced key is noticed, a redacted cue is re-digested. Assertion
groups and threads are indexed by digests, and stores of earlier versions are migrated."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db.codec import assertion_group, thread_key
from graphmem.errors import ValidationError
from graphmem.models import Principal

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
SCOPE = {"tenant": "acme", "user": "u-1"}


def _intention(iid: str, kind: str, value: str, user: str = "u-1") -> dict[str, Any]:
    return {"id": iid, "action": f"do {iid}", "trigger_kind": kind, "trigger_value": value,
            "scope": {"tenant": "acme", "user": user},
            "created_at": datetime(2026, 9, 1, tzinfo=UTC)}


def _due(memory: Memory, event: dict[str, str], user: str = "u-1") -> list[str]:
    return [i.id for i in memory.due(event, principal=ACME,
                                     scope={"tenant": "acme", "user": user}, now=NOW)]


# -- the digest (no database) ---------------------------------------------------------------


# -- against Neo4j --------------------------------------------------------------------------

_TEXT_KEYS = {"trigger_value", "trigger_kind", "action", "content", "asserts", "thread",
              "asserted_value", "query", "reason", "provenance_json", "metadata_json"}


def test_no_index_holds_an_intentions_cue_or_other_erasable_text(memory: Memory) -> None:
    """Every property an erasure removes or redacts stays out of every index: the cue
    is indexed by its digest only, and the stored intention has it."""
    records, _, _ = store_of(memory).driver.execute_query(
        "SHOW INDEXES YIELD name, labelsOrTypes, properties WHERE properties IS NOT NULL "
        "RETURN name, labelsOrTypes, properties", database_=store_of(memory).database)
    indexed = {(row["labelsOrTypes"][0], p) for row in records for p in row["properties"]}
    assert ("Intention", "cue_digest") in indexed
    assert not {(label, p) for label, p in indexed if p in _TEXT_KEYS}
    memory.intend(_intention("i-1", "keyword", "Jane Roe"))
    stored = store_of(memory).read("intentions/get", id="i-1")[0]["intention"]
    assert stored["trigger_value"] == "Jane Roe" and len(stored["cue_digest"]) == 64


def test_cues_match_exactly_through_the_digest(memory: Memory) -> None:
    memory.intend(_intention("i-1", "keyword", "Jane Roe"))
    memory.intend(_intention("i-2", "keyword", "Jane Roe", user="u-2"))
    memory.intend(_intention("i-3", "ticket", "Jane Roe"))
    assert _due(memory, {"keyword": "Jane Roe"}) == ["i-1"]  # u-2's is out of scope
    assert _due(memory, {"keyword": "Jane Roe"}, user="u-2") == ["i-2"]
    assert _due(memory, {"keyword": "Jane Roe", "ticket": "Jane Roe"}) == ["i-1", "i-3"]
    for near in ("jane roe", "Jane Roe ", "Jane", "Jane Roe!"):
        assert _due(memory, {"keyword": near}) == []
    assert _due(memory, {"ticket": "x", "keyword": "x"}) == []


def test_intentions_stored_with_a_clear_cue_are_migrated(memory: Memory) -> None:
    """An intention written before cues were digested (no ``cue_digest``) fires after the
    schema set-up of the next connection."""
    memory.intend(_intention("i-new", "keyword", "deploy 14"))
    store_of(memory).driver.execute_query(
        "MATCH (i:Intention {id: 'i-new'}) CREATE (o:Intention) "
        "SET o = i {.*, id: 'i-old', fingerprint: 'old', cue_digest: null} WITH i, o "
        "MATCH (i)-[:IN_SCOPE]->(s) CREATE (o)-[:IN_SCOPE]->(s) "
        "WITH o MATCH (m:GraphmemMigration {name: 'cue_digest'}) DELETE m",
        database_=store_of(memory).database)
    assert _due(memory, {"keyword": "deploy 14"}) == ["i-new"]  # the old one has no digest
    store_of(memory).ensure_schema()
    assert _due(memory, {"keyword": "deploy 14"}) == ["i-new", "i-old"]


def test_a_replaced_key_is_noticed_and_redigests_the_cues(memory: Memory,
                                                          neo4j_db: Any) -> None:
    """A client holding a key the database no longer has reads the new one; a new key
    re-digests every stored cue, so intentions stored under the old key still fire."""
    memory.intend(_intention("i-1", "keyword", "alpha"))
    assert _due(memory, {"keyword": "alpha"}) == ["i-1"]  # this client has the key now
    store_of(memory).driver.execute_query("MATCH (k:GraphmemKey) DELETE k",
                                      database_=store_of(memory).database)
    assert _due(memory, {"keyword": "alpha"}) == []  # no key: nothing can be digested
    with Memory.connect(neo4j_db.settings, start_if_needed=False) as other:
        other.intend(_intention("i-2", "keyword", "alpha"))  # makes a new key
        assert _due(other, {"keyword": "alpha"}) == ["i-1", "i-2"]
    assert _due(memory, {"keyword": "alpha"}) == ["i-1", "i-2"]


def test_a_redacted_cue_is_indexed_by_its_new_text(memory: Memory) -> None:
    """Erasing a subject with a term redacts another user's cue that holds it: the
    intention no longer fires on the erased term, and fires on its redacted cue."""
    memory.intend(_intention("i-subject", "keyword", "call Jane Roe"))
    memory.intend(_intention("i-other", "keyword", "call Jane Roe back", user="u-2"))
    plan = memory.plan_deletion(subject=SCOPE, redact_terms=["Jane Roe"], requested_by="dpo",
                                reason="erasure")
    assert memory.apply_deletion(plan).verification.passed
    assert _due(memory, {"keyword": "call Jane Roe back"}, user="u-2") == []
    assert _due(memory, {"keyword": "call [REDACTED] back"}, user="u-2") == ["i-other"]
    erased = store_of(memory).read("intentions/get", id="i-subject")[0]["intention"]
    assert "cue_digest" not in erased and "trigger_value" not in erased


def _record(rid: str, **fields: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "episodic", "content": f"note {rid}", "scope": SCOPE,
            "created_at": "2026-09-01T00:00:00+00:00", "authority": "human_instruction",
            **fields}


def test_assertion_groups_and_threads_of_clear_text_are_migrated(memory: Memory) -> None:
    """A group keyed by the JSON of its tenant and key, and a threaded record without a
    thread key (as earlier versions stored them), are found by their digests after the
    schema set-up; a group made meanwhile under the digest takes the old one's records."""
    memory.put_many([_record("r-1", asserts="deploy.owner", asserted_value="team-x"),
                     _record("t-1", thread="run 7", position=0)])
    old = json.dumps(["acme", "deploy.owner"], ensure_ascii=False)
    store_of(memory).driver.execute_query(
        "MATCH (a:Assertion) SET a.gkey = $old WITH count(*) AS n "
        "MATCH (r:Record {id: 't-1'}) REMOVE r.thread_key",
        old=old, database_=store_of(memory).database)
    memory.put_many([_record("r-2", asserts="deploy.owner", asserted_value="team-y")])
    store_of(memory).driver.execute_query("MATCH (m:GraphmemMigration) DELETE m",
                                      database_=store_of(memory).database)
    store_of(memory).ensure_schema()
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (a:Assertion) OPTIONAL MATCH (r)-[:ASSERTS]->(a) "
        "RETURN a.gkey AS gkey, collect(r.id) AS ids", database_=store_of(memory).database)
    assert [(r["gkey"], sorted(r["ids"])) for r in rows] == [
        (assertion_group("acme", "deploy.owner"), ["r-1", "r-2"])]
    stored = store_of(memory).get_props(["t-1"])["t-1"]
    assert stored["thread_key"] == thread_key("acme", "run 7") and len(stored["thread_key"]) == 64
    with pytest.raises(ValidationError, match="thread positions already taken"):
        memory.put_many([_record("t-2", thread="run 7", position=0)])
    memory.put_many([_record("t-3", thread="run 7", position=1)])
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (a:Record)-[:NEXT]->(b:Record) RETURN a.id AS a, b.id AS b",
        database_=store_of(memory).database)
    assert [(r["a"], r["b"]) for r in rows] == [("t-1", "t-3")]  # the thread, relinked
