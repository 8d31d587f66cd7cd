"""``intend`` over MCP called again: a retry (the same call while its intention is pending)
returns that intention instead of making a second one that would fire on the same event
(docs/integrations/mcp.md#tools-and-resources); anything else makes a new one."""

from __future__ import annotations

import pytest
from mcp import Client

from graphmem import Memory
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import ok
from tests.support.mcp_client import serve as _serve

pytestmark = pytest.mark.neo4j

CALL = {"action": "ask c-42 about the renewal", "cue_kind": "customer", "cue_value": "c-42",
        "expires_at": "2030-01-01T00:00:00+00:00"}


def test_a_repeated_intend_returns_the_pending_intention(neo4j_db: Neo4jUnderTest,
                                                        memory: Memory) -> None:
    seen: dict[str, str] = {}

    async def body(client: Client) -> None:
        first = await ok(client, "intend", CALL)
        assert first["created"] is True
        # the same instant written in another zone is the same expiry
        again = await ok(client, "intend", {**CALL, "expires_at": "2030-01-01T02:00:00+02:00"})
        assert again == {"id": first["id"], "created": False}
        others = [await ok(client, "intend", {**CALL, **change}) for change in (
            {"action": "ask c-42 about the invoice"}, {"cue_value": "c-43"},
            {"cue_kind": "account"}, {"expires_at": "2031-01-01T00:00:00+00:00"},
            {"scope": {"project": "renewals"}})]
        assert all(o["created"] for o in others)
        assert len({first["id"], *(o["id"] for o in others)}) == 6
        fired = [f["id"] for f in (await ok(client, "process_event",
                                            {"event": {"customer": "c-42"}}))["fired"]]
        # the call and its retry fire once; the other action and expiry on the same cue too
        assert sorted(fired) == sorted([first["id"], others[0]["id"], others[3]["id"]])
        after = await ok(client, "intend", CALL)  # the first has fired: a new reminder
        assert after["created"] is True and after["id"] != first["id"]
        seen.update(first=first["id"], after=after["id"])

    _serve(neo4j_db, body)
    assert memory.intentions.get(seen["first"]).status.value == "fired"
    assert memory.intentions.get(seen["after"]).status.value == "pending"


def test_another_principals_pending_intention_is_not_returned(neo4j_db: Neo4jUnderTest,
                                                              memory: Memory) -> None:
    ids: dict[str, str] = {}

    async def as_u1(client: Client) -> None:
        ids["u1"] = (await ok(client, "intend", CALL))["id"]

    async def as_u2(client: Client) -> None:
        made = await ok(client, "intend", CALL)
        assert made["created"] is True
        ids["u2"] = made["id"]

    _serve(neo4j_db, as_u1, scope={"tenant": "acme", "user": "u-1"})
    _serve(neo4j_db, as_u2, scope={"tenant": "acme", "user": "u-2"})
    assert ids["u1"] != ids["u2"]
    assert memory.intentions.get(ids["u2"]).scope == {"tenant": "acme", "user": "u-2"}
