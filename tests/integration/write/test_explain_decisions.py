"""``explain`` of a proposal the write policy discarded or quarantined answers with its write
decision and reason (docs/spec/status.md and docs/spec/write-path.md), through the client and MCP;
an unknown id is still RecordNotFoundError, and another tenant's decision says nothing more."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from mcp import Client

from graphmem import Memory, Principal, RecordNotFoundError, Status
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import ok
from tests.support.mcp_client import serve as _serve

pytestmark = pytest.mark.neo4j

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
BOTH = Principal(tenants=frozenset({"acme", "beta"}))
SCOPE = {"tenant": "acme"}


def rec(rid: str, content: str, **over: object) -> dict[str, object]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": SCOPE,
            "created_at": T0.isoformat(), "authority": "human_instruction",
            "provenance": {"source": "user"}, **over}


def test_explain_names_the_decision_of_a_discarded_or_quarantined_proposal(
        memory: Memory) -> None:
    assert memory.write(rec("kept", "Invoices go to billing"), now=T0
                        ).disposition is WriteDisposition.PERSIST
    dup = memory.write(rec("dup", "invoices go to billing."), now=T0)
    assert dup.disposition is WriteDisposition.DISCARD
    got = memory.explain("dup", principal=ACME, scope=SCOPE, now=T0)
    assert got.status is Status.DISCARDED and got.write_decision == "DISCARD"
    assert "duplicates active record kept" in got.detail
    guess = memory.write(rec("guess", "Acme pays late", authority="model_inferred"), now=T0)
    assert guess.disposition is WriteDisposition.QUARANTINE
    got = memory.explain("guess", principal=ACME, scope=SCOPE, now=T0)
    assert got.status is Status.QUARANTINED and got.write_decision == "QUARANTINE"
    assert "model inference without evidence" in got.detail
    active = memory.explain("kept", principal=ACME, scope=SCOPE, now=T0)
    assert active.status is Status.ACTIVE and active.write_decision is None
    with pytest.raises(RecordNotFoundError):
        memory.explain("never-proposed", principal=ACME, scope=SCOPE, now=T0)
    # another tenant of the caller: out of scope, without the reason
    other = memory.explain("dup", principal=BOTH, scope={"tenant": "beta"}, now=T0)
    assert other.status is Status.OUT_OF_SCOPE and "duplicates" not in other.detail


def test_mcp_explain_of_a_discarded_proposal(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    async def body(client: Client) -> None:
        first = await ok(client, "remember", {"content": "The VPN needs MFA",
                                              "authority": "human_instruction"})
        again = await ok(client, "remember", {"content": "the VPN needs MFA.",
                                              "authority": "human_instruction"})
        assert (first["disposition"], again["disposition"]) == ("PERSIST", "DISCARD")
        explained = await ok(client, "explain", {"id": again["id"]})
        assert explained["status"] == "DISCARDED"
        assert f"duplicates active record {first['id']}" in explained["reason"]

    _serve(neo4j_db, body)
