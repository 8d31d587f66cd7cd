"""Bounds on what deletions are given (graphmem.limits): who asks and why, roots, subjects,
redaction terms, request ids, plan and certificate documents; and on the other values
that reach the store: who and why of writes and transitions, JSON Lines line length.
Over a bound is a typed ValidationError naming the field (exit 2 in the CLI, a tool error
over MCP); nothing is written."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from graphmem.errors import ValidationError
from graphmem.integrations.langgraph.store import GraphmemStore
from graphmem.integrations.mcp import privacy
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Principal
from tests.support.database import Neo4jUnderTest
from tests.support.fuzz import snapshot
from tests.support.mcp_client import tool_context

T0 = datetime(2026, 1, 1, tzinfo=UTC)
L = DEFAULT_LIMITS
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 4999
TENANT = "bounds"


# -- the checks, without a database ----------------------------------------------------------


# -- through the client, the CLI and MCP, against Neo4j -------------------------------------


@pytest.fixture()
def seeded(memory: Memory) -> Memory:
    memory.put({"id": "root", "kind": "semantic", "content": "Jane Roe lives in Izmir",
                "created_at": T0, "scope": {"tenant": TENANT, "user": "u-1"}})
    return memory


def _plan_args(**overrides: Any) -> dict[str, Any]:
    return {"roots": ["root"], "requested_by": "dpo", "reason": "erasure request", **overrides}


@pytest.mark.parametrize(("overrides", "needle"), [
    ({"requested_by": "d" * (L.note_bytes + 1)}, "requested_by is"),
    ({"reason": "r" * (L.note_bytes + 1)}, "reason is"),
    ({"redact_terms": ["Jane"] * (L.redact_terms + 1)}, "redact_terms"),
    ({"redact_terms": ["J" * (L.term_bytes + 1)]}, "term_bytes"),
    ({"roots": ["root"] * (L.ids + 1)}, "InputLimits.ids"),
    ({"roots": ["r" * 300]}, "at most 256"),
    ({"roots": "root"}, "'roots' must be"),
    ({"roots": None, "subject": {"tenant": TENANT, "user": "u" * 5000}}, "scope_bytes"),
    ({"request_id": "del " + "x" * 10}, "invalid deletion request id"),
])
def test_plans_over_a_bound_are_refused_before_reading(seeded: Memory, overrides: dict[str, Any],
                                                      needle: str) -> None:
    before = snapshot(seeded)
    with pytest.raises(ValidationError, match=needle):
        seeded.plan_deletion(**_plan_args(**overrides))
    assert snapshot(seeded) == before


def test_configured_deletion_bounds_apply(neo4j_db: Neo4jUnderTest, seeded: Memory) -> None:
    with Memory.connect(neo4j_db.settings, start_if_needed=False,
                        limits=InputLimits(redact_terms=1, note_bytes=8)) as tight:
        with pytest.raises(ValidationError, match="redact_terms"):
            tight.plan_deletion(**_plan_args(reason="gdpr", redact_terms=["Jane", "Roe"]))
        with pytest.raises(ValidationError, match="note_bytes"):
            tight.plan_deletion(**_plan_args(reason="nine byte"))
        with pytest.raises(ValidationError, match="note_bytes"):
            tight.retract("root", by="reviewer", reason="a reason too long")
        assert tight.plan_deletion(**_plan_args(reason="gdpr")).roots == ("root",)


def test_apply_verify_and_certificates_bound_their_inputs(seeded: Memory) -> None:
    plan = seeded.plan_deletion(**_plan_args(redact_terms=["Jane Roe"]))
    before = snapshot(seeded)
    with pytest.raises(ValidationError, match="redact_terms"):
        seeded.apply_deletion(plan, redact_terms=["Jane Roe"] * (L.redact_terms + 1))
    assert snapshot(seeded) == before
    report = seeded.apply_deletion(plan)
    assert report.verification.passed
    for call in (lambda: seeded.verify_deletion("d" * 300),
                 lambda: seeded.verify_deletion(plan.request_id, redact_terms=["x" * 5000]),
                 lambda: seeded.deletion_certificate("del\n1"),
                 lambda: seeded.check_certificate(DEEP)):
        with pytest.raises(ValidationError):
            call()
    cert = seeded.deletion_certificate(plan.request_id)
    assert seeded.check_certificate(cert.to_json()).passed


@pytest.fixture()
def cli_env(neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> None:
    s = neo4j_db.settings
    for key, value in {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
                       "NEO4J_DATABASE": s.database}.items():
        monkeypatch.setenv(key, value)


def _exit_2(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return result.stderr


def test_cli_deletion_inputs_over_a_bound_exit_2(seeded: Memory, cli_env: None,
                                                 tmp_path: Path) -> None:
    before = snapshot(seeded)
    assert "reason is" in _exit_2(["delete", "plan", "--root", "root",
                                   "--reason", "r" * (L.note_bytes + 1)])
    assert "term_bytes" in _exit_2(["delete", "plan", "--root", "root",
                                    "--redact", "t" * (L.term_bytes + 1)])
    assert "at most 256" in _exit_2(["delete", "plan", "--root", "r" * 300])
    deep, long_number = tmp_path / "deep.json", tmp_path / "number.json"
    deep.write_text('{"entries": ' + DEEP + "}", encoding="utf-8")
    long_number.write_text('{"version": ' + LONG_INT + "}", encoding="utf-8")
    for path in (deep, long_number):
        assert "deletion plan" in _exit_2(["delete", "apply", str(path)])
        assert "certificate" in _exit_2(["delete", "check-certificate", str(path)])
    assert "U+0020" in _exit_2(["delete", "verify", "del x"])
    assert snapshot(seeded) == before


def test_mcp_deletion_inputs_over_a_bound_are_tool_errors(seeded: Memory) -> None:
    config = ServerConfig.build(tenants=(TENANT,), allow_deletion=True, agent="bounds-agent")
    ctx = tool_context(config, seeded)
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: asyncio.run(privacy.plan_deletion(ctx, reason="r" * (L.note_bytes + 1),
                                                   roots=["root"])), "reason is"),
        (lambda: asyncio.run(privacy.plan_deletion(
            ctx, reason="gdpr", roots=["root"], redact_terms=["t"] * (L.redact_terms + 1))),
         "redact_terms"),
        (lambda: asyncio.run(privacy.plan_deletion(ctx, reason="gdpr",
                                                   subject={"user": "u" * 5000})),
         "scope_bytes"),
        (lambda: asyncio.run(privacy.apply_deletion(ctx, digest="d" * 5000)), "cue_bytes"),
        (lambda: asyncio.run(privacy.apply_deletion(ctx, digest="d", plan=_nested(10_000))),
         "nested"),
        (lambda: asyncio.run(privacy.verify_deletion(ctx, request_id="r" * 300)),
         "at most 256"),
    ]
    before = snapshot(seeded)
    for call, needle in calls:
        with pytest.raises(ToolError, match=f"ValidationError.*{needle}"):
            call()
    assert snapshot(seeded) == before


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_lookups_by_an_id_too_long_to_be_one_are_refused(seeded: Memory) -> None:
    long_id = "r" * 10_000
    calls: list[Callable[[], Any]] = [
        lambda: seeded.get(long_id),
        lambda: seeded.history(long_id),
        lambda: seeded.explain(long_id, scope={"tenant": TENANT}),
        lambda: seeded.retract(long_id, by="reviewer", reason="wrong"),
        lambda: seeded.get_retrieval(long_id),
        lambda: seeded.fire(long_id, by="worker", now=T0),
    ]
    before = snapshot(seeded)
    for call in calls:
        with pytest.raises(ValidationError, match="names nothing"):
            call()
    assert snapshot(seeded) == before
    with pytest.raises(ValidationError, match="more than 2 ids"):
        InputLimits(ids=2).check_lookup("ids", ["a", "b", "c"])
    InputLimits(ids=3).check_lookup("ids", ["a", "a b", 5])  # unknown ids are the lookup's


def test_langgraph_namespaces_and_keys_over_their_bound(seeded: Memory) -> None:
    store = GraphmemStore(seeded, principal=Principal(tenants=frozenset({TENANT})))
    label, key = "n" * (L.scope_bytes + 1), "k" * (L.scope_bytes + 1)
    before = snapshot(seeded)
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: store.put((TENANT, label), "k", {"v": 1}), "the namespace is"),
        (lambda: store.put((TENANT, "notes"), key, {"v": 1}), "the key is"),
        (lambda: store.get((TENANT, "notes"), key), "the key is"),
        (lambda: store.search((TENANT, label), query="x"), "the namespace is"),
    ]
    for call, needle in calls:
        with pytest.raises(ValidationError, match=needle):
            call()
    assert snapshot(seeded) == before
    store.put((TENANT, "notes"), "k" * 100, {"v": 1})  # within the bounds
    assert store.get((TENANT, "notes"), "k" * 100) is not None


def test_query_scopes_over_their_bound(seeded: Memory) -> None:
    principal = Principal(tenants=frozenset({TENANT}))
    scope = {"tenant": TENANT, "user": "u" * (L.scope_bytes + 1)}
    before = snapshot(seeded)
    calls: list[Callable[[], Any]] = [
        lambda: seeded.candidates(principal=principal, scope=scope, now=T0),
        lambda: seeded.retrieve({"memory_scope": scope, "goal": "where does Jane live",
                                 "needs_prior_context": True}, principal=principal, now=T0),
        lambda: seeded.due({"topic": "x"}, principal=principal, scope=scope, now=T0),
    ]
    for call in calls:
        with pytest.raises(ValidationError, match=r"the query scope is .*scope_bytes"):
            call()
    assert snapshot(seeded) == before


