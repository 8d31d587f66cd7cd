"""Bounds on user-supplied values through the client, the CLI and the LangGraph store on real
Neo4j (graphmem.limits): over a bound is a typed ValidationError naming the field, and
nothing is written."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.errors import ValidationError
from graphmem.integrations.langgraph.store import GraphmemStore
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Principal
from graphmem.terminal import EXIT_INPUT

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MIB = 1024 * 1024
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 4999


def record(**fields: Any) -> dict[str, Any]:
    return {"id": "b-1", "kind": "semantic", "content": "bounded", "created_at": T0,
            "scope": {"tenant": "bounds"}, **fields}


# -- JSON text, without a database ---------------------------------------------------------


# -- values, without a database ------------------------------------------------------------


# -- through the client, the CLI and the LangGraph store, against Neo4j ----------------------


def test_sixteen_mib_fields_are_refused_and_nothing_is_written(memory: Memory) -> None:
    before = store_of(memory).counts()
    huge = "x" * (16 * MIB)
    for fields in ({"metadata": {"blob": huge}}, {"provenance": {"source": huge}}):
        with pytest.raises(ValidationError):
            memory.put(record(**fields))
        with pytest.raises(ValidationError):
            memory.write(record(**fields), by="test")
    with pytest.raises(ValidationError, match="action"):
        memory.intend({"id": "i-1", "action": huge, "trigger_kind": "k", "trigger_value": "v",
                       "scope": {"tenant": "bounds"}, "created_at": T0})
    assert store_of(memory).counts() == before


def test_a_configured_bound_applies(memory: Memory) -> None:
    store_of(memory).limits = InputLimits(metadata_bytes=64)
    with pytest.raises(ValidationError, match=r"InputLimits\.metadata_bytes"):
        memory.put(record(metadata={"note": "n" * 100}))
    store_of(memory).limits = DEFAULT_LIMITS
    assert memory.put(record(metadata={"note": "n" * 100}))


def test_a_huge_goal_is_refused_and_a_long_one_is_logged_cut(memory: Memory) -> None:
    principal = Principal(tenants=frozenset({"bounds"}))
    memory.put(record(content="the invoice is due friday"))
    with pytest.raises(ValidationError, match="goal"):
        memory.retrieve({"memory_scope": {"tenant": "bounds"}, "goal": "invoice " * 300_000,
                         "needs_prior_context": True}, principal=principal)
    result = memory.retrieve({"memory_scope": {"tenant": "bounds"},
                              "goal": "invoice " * 7000, "needs_prior_context": True},
                             principal=principal)
    assert result.ids == ["b-1"]
    logged = memory.get_retrieval(result.trace.retrieval_id)
    assert len(logged["retrieval"]["query"]) == DEFAULT_LIMITS.logged_query_chars


@pytest.mark.parametrize("body", [
    '{"id": "x", "kind": "semantic", "content": "c", "metadata": {"a": ' + DEEP + "}}",
    '{"id": "x", "kind": "semantic", "content": "c", "metadata": {"n": ' + LONG_INT + "}}",
])
def test_import_of_deep_or_long_json_is_exit_2_and_writes_nothing(
        cli: Memory, tmp_path: Path, body: str) -> None:
    good = json.dumps(record(id="g-1", created_at=T0.isoformat()))
    path = tmp_path / "hostile.jsonl"
    path.write_text(good + "\n" + body + "\n", encoding="utf-8")
    before = store_of(cli).counts()
    result = CliRunner().invoke(app, ["import", str(path)])
    assert result.exit_code == EXIT_INPUT, result.output
    assert "hostile.jsonl:2: field 'metadata'" in result.stderr
    assert "Traceback" not in result.output
    assert store_of(cli).counts() == before
    with pytest.raises(ValidationError, match=r"hostile\.jsonl:2"):
        cli.import_jsonl(path)


def test_import_of_a_missing_file_is_a_validation_error(memory: Memory, tmp_path: Path
                                                        ) -> None:
    with pytest.raises(ValidationError, match="cannot read"):
        memory.import_jsonl(tmp_path / "missing.jsonl")
    with pytest.raises(ValidationError, match="cannot read"):
        memory.import_jsonl(str(tmp_path))


@pytest.mark.parametrize("ttl", [math.inf, math.nan, 1e15, -5, 0])
def test_langgraph_put_with_a_bad_ttl_writes_nothing(memory: Memory, ttl: float) -> None:
    store = GraphmemStore(memory, principal=Principal(tenants=frozenset({"acme"})))
    before = store_of(memory).counts()
    with pytest.raises(ValidationError, match="ttl"):
        store.put(("acme", "notes"), "k", {"text": "hello"}, ttl=ttl)
    assert store_of(memory).counts() == before
    store.put(("acme", "notes"), "k", {"text": "hello"}, ttl=10)
    item = store.get(("acme", "notes"), "k")
    assert item is not None and item.value == {"text": "hello"}


def test_an_oversized_action_id_is_refused_by_the_log(memory: Memory) -> None:
    memory.put(record(content="the invoice is due friday"))
    result = memory.retrieve({"memory_scope": {"tenant": "bounds"}, "goal": "invoice",
                              "needs_prior_context": True},
                             principal=Principal(tenants=frozenset({"bounds"})))
    with pytest.raises(ValidationError, match="action_id"):
        memory.record_use(result.trace.retrieval_id, "a" * 5000, result.ids)
    memory.record_use(result.trace.retrieval_id, "act-1", result.ids)
