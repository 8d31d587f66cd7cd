"""Every entry point that takes a scope (the client, the MCP tools, the LangGraph store, the
CLI's --scope) refuses the same scopes with the same error class, ValidationError, and the
reason the one scope rule gives (graphmem.fields.scope_problem); nothing is written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from langgraph.store.base import PutOp
from mcp import Client
from typer.testing import CliRunner

from graphmem import Memory, Principal
from graphmem.cli import build_app
from graphmem.client import store_of
from graphmem.errors import ValidationError
from graphmem.fields import scope_problem
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.terminal import EXIT_INPUT
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import refused, serve

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
#: Pairs added to tenant acme's scope that break the rule, as text (every entry point can be
#: handed text): an empty value, a value past the bound, a lone surrogate.
BAD_TEXT: list[dict[str, str]] = [{"user": ""}, {"user": "u" * 5000}, {"user": "u-\ud800"}]
#: Pairs only a Python caller can hand in.
BAD_OBJECTS: list[dict[Any, Any]] = [{"user": 7}, {"user": None}, {"user": b"u-17"}, {3: "x"}]


def _reason(pairs: dict[Any, Any]) -> str:
    """The rule's reason for the query scope of ``pairs``, without the name it gives the scope
    and the bound's setting (each entry point names its own)."""
    problem = scope_problem({"tenant": "acme", **pairs}, what="S")
    assert problem is not None
    reason = problem.removeprefix("S ").split(" (")[0]
    return "bytes as its key" if "bytes as its key" in reason else reason


def _nodes(memory: Memory) -> int:
    rows, _, _ = store_of(memory).driver.execute_query("MATCH (n) RETURN count(n) AS n",
                                                   database_=store_of(memory).database)
    return int(rows[0]["n"])


@pytest.mark.parametrize("pairs", BAD_TEXT + BAD_OBJECTS)
def test_the_client_refuses_a_bad_scope(memory: Memory, pairs: dict[Any, Any]) -> None:
    before = _nodes(memory)
    scope = {"tenant": "acme", **pairs}
    for call in (
        lambda: memory.candidates(principal=ACME, scope=scope, now=T0),
        lambda: memory.retrieve({"memory_scope": scope, "goal": "where", "needs_prior_context":
                                 True}, principal=ACME, now=T0),
        lambda: memory.write({"id": "r-bad", "kind": "semantic", "content": "x",
                              "created_at": T0, "scope": scope}, by="test"),
    ):
        with pytest.raises(ValidationError) as raised:
            call()
        if "keys and values" not in _reason(pairs):  # the retrieve state's own model may
            assert _reason(pairs) in str(raised.value)  # refuse a non-string first
    assert _nodes(memory) == before


@pytest.mark.parametrize("label", [v for pairs in BAD_TEXT + BAD_OBJECTS[:3]
                                   for v in pairs.values()])
def test_the_langgraph_store_refuses_a_bad_label(memory: Memory, label: Any) -> None:
    """A namespace label is a scope value (the namespace is kept as a scope)."""
    before = _nodes(memory)
    with pytest.raises(ValidationError):
        GraphmemStore(memory, principal=ACME).batch([PutOp(("acme", label), "k", {"v": 1})])
    assert _nodes(memory) == before


def test_the_mcp_tools_refuse_a_bad_scope(neo4j_db: Neo4jUnderTest, memory: Memory) -> None:
    before = _nodes(memory)

    async def body(client: Client) -> None:
        for pairs in BAD_TEXT[:2]:  # (a lone surrogate has no JSON form to send)
            for tool, args in (("recall", {"goal": "where", "needs_prior_context": True}),
                               ("remember", {"content": "x"}), ("recent", {})):
                await refused(client, tool, {**args, "scope": pairs}, "ValidationError",
                              _reason(pairs))

    serve(neo4j_db, body)
    assert _nodes(memory) == before


@pytest.mark.parametrize("pairs", BAD_TEXT)
def test_the_cli_refuses_a_bad_scope(pairs: dict[str, str]) -> None:
    """Refused before any connection (no database is configured here)."""
    (key, value), = pairs.items()
    for words in (["explain", "r-1"], ["retrieve", "--goal", "where"]):
        result = CliRunner().invoke(build_app(words[0]), [
            *words, "--tenant", "acme", "--scope", f"{key}={value}"])
        assert result.exit_code == EXIT_INPUT, result.output
        if value:  # an empty value is a malformed pair to the option reader first
            assert _reason(pairs) in result.stderr
