"""``graphmem mcp``: every tool driven in process with the SDK's own client
(``mcp.Client(server)``) against the real Neo4j of the test session.

The transports (stdio and streamable HTTP, as subprocesses) are in test_mcp_transports.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.types import TextResourceContents

from graphmem import Memory
from graphmem.client import store_of
from graphmem.integrations.mcp.server import DELETION_TOOLS, TOOLS
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import ok, refused
from tests.support.mcp_client import serve as _serve

pytestmark = pytest.mark.neo4j

BASE_TOOLS = {"remember", "recall", "explain", "history", "retract", "supersede", "lineage",
              "intend", "process_event", "record_use", "get", "recent", "status"}
DELETION = {"plan_deletion", "apply_deletion", "verify_deletion"}


def _nodes(memory: Memory) -> dict[str, int]:
    return store_of(memory).counts()


TRIGGER = {"needs_prior_context": True}
HUMAN = {"authority": "human_instruction"}  # the policy quarantines bare model inference


def test_tools_have_schemas_descriptions_and_annotations(neo4j_db: Neo4jUnderTest,
                                                         memory: Memory) -> None:
    seen: dict[str, set[str]] = {}

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        seen["names"] = {t.name for t in listed.tools}
        for tool in listed.tools:
            assert tool.output_schema is not None, tool.name
            assert tool.input_schema["type"] == "object"
            assert tool.description and "\n" not in tool.description, tool.name
            assert tool.annotations is not None
        by_name = {t.name: t for t in listed.tools}
        if "recall" in by_name:
            assert by_name["recall"].annotations is not None
            assert by_name["recall"].annotations.read_only_hint is False  # logs the retrieval
            assert by_name["retract"].annotations is not None
            assert by_name["retract"].annotations.destructive_hint is True
            kind = by_name["remember"].input_schema["properties"]["kind"]
            assert "episodic" in kind["enum"]
        if "apply_deletion" in by_name:
            assert by_name["apply_deletion"].annotations is not None
            assert by_name["apply_deletion"].annotations.destructive_hint is True
        templates = await client.list_resource_templates()
        seen["templates"] = {t.uri_template for t in templates.resource_templates}

    _serve(neo4j_db, body)
    assert seen["names"] == BASE_TOOLS  # no deletion tools without --allow-deletion
    assert seen["templates"] == {"graphmem://memory/{id}", "graphmem://lineage/{id}"}
    _serve(neo4j_db, body, allow_deletion=True)
    assert seen["names"] == BASE_TOOLS | DELETION
    assert {s.fn.__name__ for s in TOOLS} == BASE_TOOLS
    assert {s.fn.__name__ for s in DELETION_TOOLS} == DELETION


def test_remember_then_recall_finds_it(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    decided: list[str] = []

    async def body(client: Client) -> None:
        decision = await ok(client, "remember", {**HUMAN,
            "content": "Acme wants invoices sent to billing@acme.example",
            "kind": "semantic", "provenance": {"source": "user"}})
        assert decision["disposition"] == "PERSIST", decision
        decided.append(decision["id"])
        guess = await ok(client, "remember", {"content": "Acme probably pays late"})
        assert guess["disposition"] == "QUARANTINE" and "inference" in guess["reason"]
        quiet = await ok(client, "recall", {"goal": "send the Acme invoice"})
        assert quiet["retrieved"] is False and quiet["memories"] == []
        assert "no trigger" in quiet["note"]
        found = await ok(client, "recall", {"goal": "send the Acme invoice",
                                            "entities": ["Acme"], **TRIGGER})
        assert found["retrieved"] is True
        assert [m["id"] for m in found["memories"]] == [decision["id"]]
        assert found["memories"][0]["source"] == "user"
        assert "billing@acme.example" in found["rendered"]
        assert found["retrieval_id"].startswith("ret-")

    _serve(neo4j_db, body)
    stored = memory.get(decided[0])
    assert stored.scope == {"tenant": "acme"}  # the server's scope, not a model's


def test_conflicting_pair_comes_back_as_a_conflict(neo4j_db: Neo4jUnderTest,
                                                   memory: Memory) -> None:
    async def body(client: Client) -> None:
        ids = []
        for value in ("gold", "silver"):
            d = await ok(client, "remember", {**HUMAN,
                "content": f"Acme's support plan is {value}", "asserts": "acme.plan",
                "asserted_value": value})
            assert d["disposition"] == "PERSIST"
            ids.append(d["id"])
        got = await ok(client, "recall", {"goal": "which support plan does Acme have",
                                          **TRIGGER})
        assert got["conflicts"] == [{"key": "acme.plan", "record_ids": sorted(ids),
                                     "values": ["gold", "silver"]}]
        assert sorted(m["id"] for m in got["memories"]) == sorted(ids)

    _serve(neo4j_db, body)


def test_retracted_record_is_gone_and_explained(neo4j_db: Neo4jUnderTest,
                                                memory: Memory) -> None:
    async def body(client: Client) -> None:
        d = await ok(client, "remember", {**HUMAN, "content": "The staging database is db-7"})
        assert (await ok(client, "explain", {"id": d["id"]}))["status"] == "ACTIVE"
        r = await ok(client, "retract", {"id": d["id"], "reason": "db-7 was decommissioned"})
        assert r["status"] == "RETRACTED"
        got = await ok(client, "recall", {"goal": "staging database", **TRIGGER})
        assert got["memories"] == []
        e = await ok(client, "explain", {"id": d["id"]})
        assert e["status"] == "RETRACTED" and e["reason"]
        h = await ok(client, "history", {"id": d["id"]})
        kinds = [t["kind"] for t in h["transitions"]]
        assert kinds[0] == "write:PERSIST" and "retract" in kinds
        assert any(t["by"] == "test-agent" for t in h["transitions"])

    _serve(neo4j_db, body)
    [rid] = _all_ids(memory)
    assert memory.get(rid).retracted


def _all_ids(memory: Memory) -> list[str]:
    records, _, _ = store_of(memory).driver.execute_query(
        "MATCH (r:Record) RETURN r.id AS id", database_=store_of(memory).database)
    return [r["id"] for r in records]


def test_another_tenant_is_refused_and_nothing_is_written(neo4j_db: Neo4jUnderTest,
                                                          memory: Memory) -> None:
    theirs = memory.write({"id": "globex-1", "kind": "semantic",
                           "content": "Globex pays by wire", "scope": {"tenant": "globex"},
                           "created_at": "2026-01-01T00:00:00+00:00"}).record_id
    before = _nodes(memory)

    async def body(client: Client) -> None:
        await refused(client, "remember", {"content": "x", "scope": {"tenant": "globex"}},
                      "AuthorizationError", "globex")
        await refused(client, "remember", {"content": "x", "scope": {"user": "u-2"}},
                      "AuthorizationError", "fixed")
        await refused(client, "recall", {"goal": "Globex", "scope": {"tenant": "globex"},
                                         **TRIGGER}, "AuthorizationError")
        await refused(client, "intend", {"action": "a", "cue_kind": "k", "cue_value": "v",
                                         "scope": {"tenant": "globex"}},
                      "AuthorizationError")
        await refused(client, "process_event", {"event": {"k": "v"},
                                                "scope": {"tenant": "globex"}},
                      "AuthorizationError")
        calls: list[tuple[str, dict[str, Any]]] = [
            ("retract", {"id": theirs, "reason": "r"}),
            ("history", {"id": theirs}), ("lineage", {"id": theirs}),
            ("supersede", {"old_ids": [theirs], "reason": "r",
                           "successor": {"content": "mine now"}}),
            ("remember", {"content": "derived", "derived_from": [theirs]})]
        for name, args in calls:
            await refused(client, name, args, "AuthorizationError")
        explained = await ok(client, "explain", {"id": theirs})
        assert explained["status"] == "UNAUTHORIZED"
        with pytest.raises(Exception, match="AuthorizationError"):
            await client.read_resource(f"graphmem://memory/{theirs}")

    _serve(neo4j_db, body, scope={"tenant": "acme", "user": "u-1"})
    assert _nodes(memory) == before
    assert not memory.get(theirs).retracted


def test_several_tenants_need_one_named(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def body(client: Client) -> None:
        await refused(client, "remember", {"content": "x"}, "ValidationError", "tenant")
        d = await ok(client, "remember", {**HUMAN, "content": "Initech ships on Fridays",
                                          "scope": {"tenant": "initech"}})
        assert d["disposition"] == "PERSIST"
        await refused(client, "remember", {"content": "x", "scope": {"tenant": "globex"}},
                      "AuthorizationError")

    _serve(neo4j_db, body, tenants=("acme", "initech"))
    assert memory.get(_all_ids(memory)[0]).tenant == "initech"


@pytest.mark.parametrize(("args", "needles"), [
    ({"content": "x", "valid_from": "2026-01-01T00:00:00"}, ("NaiveDatetimeError", "naive")),
    ({"content": "x", "kind": "opinion"}, ("ValidationError", "kind")),
    ({"content": "x" * 70_000}, ("ContentTooLargeError",)),
    # an unknown id and one out of the server's reach look alike
    ({"content": "x", "derived_from": ["no-such-id"]}, ("OutOfReachError",)),
    ({"content": "x", "asserted_value": "v"}, ("ValidationError", "asserts")),
])
def test_bad_input_is_a_tool_error_and_writes_nothing(
        neo4j_db: Neo4jUnderTest, memory: Memory, args: dict[str, Any],
        needles: tuple[str, ...]) -> None:
    before = _nodes(memory)

    async def body(client: Client) -> None:
        await refused(client, "remember", args, *needles)
        assert _nodes(memory) == before
        d = await ok(client, "remember", {**HUMAN, "content": "the server still answers"})
        assert d["disposition"] == "PERSIST"

    _serve(neo4j_db, body)



def test_counts_past_a_64_bit_integer_are_tool_errors_naming_the_field(
        neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    """An offset or depth of 2**70 was a raw OverflowError from the driver: an SDK crash
    ('Error executing tool recent', nothing more) with a traceback in the server's log."""

    async def body(client: Client) -> None:
        d = await ok(client, "remember", {**HUMAN, "content": "a memory to walk"})
        await refused(client, "recent", {"offset": 2**70}, "ValidationError", "offset")
        await refused(client, "lineage", {"id": d["id"], "depth": 2**70},
                      "ValidationError", "depth")
        await refused(client, "recent", {"offset": 2**63 - 1}, "ValidationError", "offset")
        assert (await ok(client, "recent", {"offset": 2**62}))["memories"] == []

    _serve(neo4j_db, body)


def test_supersede_lineage_and_resources(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def body(client: Client) -> None:
        old = (await ok(client, "remember", {**HUMAN, "content": "Deploys go out on Tuesdays",
                                             "kind": "semantic"}))["id"]
        child = (await ok(client, "remember", {**HUMAN,
            "content": "Plan the release for Tuesday", "kind": "episodic",
            "derived_from": [old]}))["id"]
        new = await ok(client, "supersede", {
            "old_ids": [old], "reason": "the schedule moved",
            "successor": {**HUMAN, "content": "Deploys go out on Thursdays"}})
        assert new["disposition"] == "PERSIST"
        e = await ok(client, "explain", {"id": old})
        assert e["status"] == "SUPERSEDED" and e["successors"] == [new["id"]]
        up = await ok(client, "lineage", {"id": child, "direction": "up"})
        assert up["mermaid"].startswith("flowchart")
        assert {n["id"] for n in up["graph"]["nodes"]} >= {child, old}
        down = await ok(client, "lineage", {"id": old, "direction": "down", "depth": 1})
        assert {n["id"] for n in down["graph"]["nodes"]} >= {old, child, new["id"]}
        res = await client.read_resource(f"graphmem://memory/{child}")
        content = res.contents[0]
        assert isinstance(content, TextResourceContents)
        assert json.loads(content.text)["derived_from"] == [old]
        res = await client.read_resource(f"graphmem://lineage/{child}")
        content = res.contents[0]
        assert isinstance(content, TextResourceContents)
        assert {n["id"] for n in json.loads(content.text)["nodes"]} >= {child, old}

    _serve(neo4j_db, body)


def test_a_repeated_supersede_reports_the_supersession_made(neo4j_db: Neo4jUnderTest,
                                                            memory: Memory) -> None:
    """An agent retrying ``supersede`` (its first call timed out, or the reply was lost) with
    the same arguments gets the first call's successor back, discarded as identical: the
    tool minted a new id and time for each call, so the retry was a second successor,
    refused as a duplicate of the first (a ToolError although the supersession was made). A
    call with another successor is still a new one."""
    async def body(client: Client) -> None:
        old = (await ok(client, "remember", {**HUMAN, "content": "Deploys go out on Tuesdays",
                                             "kind": "semantic"}))["id"]
        call = {"old_ids": [old], "reason": "the schedule moved",
                "successor": {**HUMAN, "content": "Deploys go out on Thursdays"}}
        first = await ok(client, "supersede", call)
        assert first["disposition"] == "PERSIST"
        again = await ok(client, "supersede", call)
        assert again == {**first, "disposition": "DISCARD",
                         "reason": "identical record already stored"}
        e = await ok(client, "explain", {"id": old})
        assert e["status"] == "SUPERSEDED" and e["successors"] == [first["id"]]
        history = await ok(client, "history", {"id": old})
        assert [t["kind"] for t in history["transitions"]].count("superseded") == 1
        await refused(client, "supersede", {**call, "successor": {
            **HUMAN, "content": "deploys go out on THURSDAYS."}}, "PolicyError", "not persisted")

    _serve(neo4j_db, body)


def test_lineage_hides_other_tenants_nodes(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    memory.write({"id": "g-parent", "kind": "semantic", "content": "Globex fact",
                  "scope": {"tenant": "globex"}, "created_at": "2026-01-01T00:00:00+00:00"})
    memory.write({"id": "a-child", "kind": "semantic", "content": "Acme note",
                  "scope": {"tenant": "acme"}, "derived_from": ["g-parent"],
                  "created_at": "2026-01-02T00:00:00+00:00"})

    async def body(client: Client) -> None:
        up = await ok(client, "lineage", {"id": "a-child"})
        assert [n["id"] for n in up["graph"]["nodes"]] == ["a-child"]
        assert "hidden" not in up and "g-parent" not in up["mermaid"]

    _serve(neo4j_db, body)


def test_process_event_sent_twice_fires_once(neo4j_db: Neo4jUnderTest,
                                             memory: Memory) -> None:
    async def body(client: Client) -> None:
        i = await ok(client, "intend", {"action": "ask c-42 about the renewal",
                                        "cue_kind": "customer", "cue_value": "c-42"})
        assert i["created"] is True
        assert (await ok(client, "process_event", {"event": {"customer": "c-9"}})
                )["fired"] == []
        first = await ok(client, "process_event", {"event": {"customer": "c-42"}})
        assert first["fired"] == [{"id": i["id"], "action": "ask c-42 about the renewal",
                                   "cue_kind": "customer", "cue_value": "c-42"}]
        second = await ok(client, "process_event", {"event": {"customer": "c-42"}})
        assert second["fired"] == []
        await refused(client, "intend", {"action": "a", "cue_kind": "k", "cue_value": "v",
                                         "expires_at": "2030-01-01T00:00:00"},
                      "NaiveDatetimeError")

    _serve(neo4j_db, body)
    assert memory.intentions.get(_intention_id(memory)).status.value == "fired"


def _intention_id(memory: Memory) -> str:
    records, _, _ = store_of(memory).driver.execute_query(
        "MATCH (i:Intention) RETURN i.id AS id", database_=store_of(memory).database)
    assert len(records) == 1
    return str(records[0]["id"])


def test_record_use_closes_the_attribution_loop(neo4j_db: Neo4jUnderTest,
                                                memory: Memory) -> None:
    async def body(client: Client) -> None:
        d = await ok(client, "remember", {**HUMAN, "content": "Retry the payments API with backoff",
                                          "kind": "procedural"})
        other = await ok(client, "remember", {**HUMAN, "content": "Unrelated: office plants",
                                              "kind": "semantic"})
        got = await ok(client, "recall", {"goal": "payments API failed",
                                          "new_error": True, "budget_chars": 1000})
        assert [m["id"] for m in got["memories"]] == [d["id"]]
        used = await ok(client, "record_use", {"retrieval_id": got["retrieval_id"],
                                               "action_id": "act-1",
                                               "memory_ids": [d["id"]], "helped": True})
        assert used["helped"] is True
        await refused(client, "record_use", {"retrieval_id": got["retrieval_id"],
                                             "action_id": "act-2",
                                             "memory_ids": [other["id"]]},
                      "ValidationError")
        await refused(client, "record_use", {"retrieval_id": "ret-nope", "action_id": "a",
                                             "memory_ids": []}, "RecordNotFoundError")

    _serve(neo4j_db, body)
    uses, _, _ = store_of(memory).driver.execute_query(
        "MATCH (u:Use)-[:USED]->(r:Record) RETURN u.action_id AS action, u.helped AS helped",
        database_=store_of(memory).database)
    assert [(u["action"], u["helped"]) for u in uses] == [("act-1", True)]


def test_deletion_tools_refuse_stale_and_edited_plans(neo4j_db: Neo4jUnderTest,
                                                      memory: Memory) -> None:
    memory.write({"id": "globex-1", "kind": "semantic", "content": "Globex fact",
                  "scope": {"tenant": "globex"}, "created_at": "2026-01-01T00:00:00+00:00"})

    async def body(client: Client) -> None:
        root = (await ok(client, "remember", {**HUMAN,
                                              "content": "Jane Roe lives at 1 Elm St"}))["id"]
        child = (await ok(client, "remember", {**HUMAN, "content": "Ship to Jane Roe's address",
                                               "kind": "episodic",
                                               "derived_from": [root]}))["id"]
        planned = await ok(client, "plan_deletion", {"roots": [root], "reason": "GDPR art. 17",
                                                     "redact_terms": ["Jane Roe"]})
        assert planned["counts"]["DELETE"] == 2
        digest = planned["digest"]
        edited = json.loads(json.dumps(planned["plan"]))
        edited["reason"] = "something else"
        await refused(client, "apply_deletion", {"digest": digest, "plan": edited},
                      "DeletionError", "edited")
        await refused(client, "apply_deletion", {"digest": "0" * 64}, "DeletionError",
                      "plan_deletion first")
        # the graph changes after planning: the plan is stale
        await ok(client, "remember", {**HUMAN, "content": "Jane Roe prefers email",
                                      "kind": "episodic", "derived_from": [child]})
        await refused(client, "apply_deletion", {"digest": digest,
                                                 "redact_terms": ["Jane Roe"]},
                      "DeletionError", "stale")
        assert memory.get(root).content.startswith("Jane Roe")  # nothing applied
        fresh = await ok(client, "plan_deletion", {"roots": [root], "reason": "GDPR art. 17",
                                                   "redact_terms": ["Jane Roe"]})
        assert fresh["counts"]["DELETE"] == 3
        report = await ok(client, "apply_deletion", {"digest": fresh["digest"],
                                                     "plan": fresh["plan"],
                                                     "redact_terms": ["Jane Roe"]})
        assert report["verification"]["passed"] is True
        again = await ok(client, "verify_deletion", {"request_id": fresh["request_id"],
                                                     "redact_terms": ["Jane Roe"]})
        assert again["verification"]["passed"] is True
        recalled = await ok(client, "recall", {"goal": "Jane Roe address", **TRIGGER})
        assert recalled["memories"] == []
        await refused(client, "plan_deletion", {"roots": ["globex-1"], "reason": "r"},
                      "AuthorizationError")
        await refused(client, "plan_deletion", {"subject": {"tenant": "globex"},
                                                "reason": "r"}, "AuthorizationError")

    _serve(neo4j_db, body, allow_deletion=True)
    assert memory.get("globex-1").content == "Globex fact"


