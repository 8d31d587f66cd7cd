"""The client works unchanged through a routing URI ("Beyond one machine").

The smoke path (put, candidates, retrieve, explain) runs through ``neo4j://host:port``
against the suite's own server: the driver fetches a routing table, sends reads to a reader
and writes (transaction functions) to the writer, all on the one configured database.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from graphmem.client import Memory, store_of
from graphmem.models import Principal, Status
from tests.support.database import Neo4jUnderTest

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SCOPE = {"tenant": "acme", "project": "atlas"}
PRINCIPAL = Principal(tenants=frozenset({"acme"}))


@pytest.fixture()
def routed(neo4j_db: Neo4jUnderTest, memory: Memory) -> Iterator[Memory]:
    """A second client on the same (wiped) database, through ``neo4j://``."""
    parts = urlsplit(neo4j_db.settings.uri)
    if parts.scheme not in ("bolt", "neo4j"):
        pytest.skip(f"routing test needs a plain bolt/neo4j server, got {parts.scheme}://")
    settings = replace(neo4j_db.settings, uri=f"neo4j://{parts.netloc}")
    mem = Memory.connect(settings, start_if_needed=False)
    try:
        yield mem
    finally:
        mem.close()


def _record(rid: str, content: str, **extra: object) -> dict[str, object]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": SCOPE,
            "created_at": NOW - timedelta(days=1), **extra}


def test_smoke_path_through_routing_uri(routed: Memory) -> None:
    assert store_of(routed).driver.__class__.__name__ == "Neo4jDriver"  # routing, not direct
    created = routed.put_many([
        _record("plan-old", "acme is on the starter plan", asserts="acme.plan",
                asserted_value="starter"),
        _record("plan-new", "acme upgraded to the enterprise plan", asserts="acme.plan",
                asserted_value="enterprise", supersedes=("plan-old",)),
        _record("deploy", "the atlas deploy needs a canary first"),
        _record("gone", "an expired note about the atlas deploy",
                expires_at=NOW - timedelta(hours=1)),
    ])
    assert sorted(created) == ["deploy", "gone", "plan-new", "plan-old"]
    assert routed.put_many([_record("deploy", "the atlas deploy needs a canary first")]) == []

    ids = {r.id for r in routed.candidates(principal=PRINCIPAL, scope=SCOPE, now=NOW)}
    assert ids == {"plan-new", "deploy"}

    result = routed.retrieve(
        {"memory_scope": SCOPE, "goal": "what plan is acme on", "needs_prior_context": True},
        principal=PRINCIPAL, now=NOW,
    )
    assert result.ids[0] == "plan-new"
    assert "plan-old" not in result.ids
    assert routed.get_retrieval(result.trace.retrieval_id)["retrieval"]["id"] == \
        result.trace.retrieval_id

    old = routed.explain("plan-old", principal=PRINCIPAL, scope=SCOPE, now=NOW)
    assert old.status is Status.SUPERSEDED and old.successor_ids == ("plan-new",)
    assert routed.explain("gone", principal=PRINCIPAL, scope=SCOPE, now=NOW).status \
        is Status.EXPIRED

    routed.retract("deploy", by="ops", reason="wrong runbook", at=NOW)
    assert routed.explain("deploy", principal=PRINCIPAL, scope=SCOPE, now=NOW).status \
        is Status.RETRACTED


def test_routing_client_sees_what_the_direct_client_wrote(routed: Memory, memory: Memory
                                                           ) -> None:
    memory.put_many([_record("direct", "written through bolt")])
    assert [r.id for r in routed.candidates(principal=PRINCIPAL, scope=SCOPE, now=NOW)] == \
        ["direct"]
