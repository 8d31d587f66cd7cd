"""Bounds on what deletions are given (graphmem.limits): who asks and why, roots, subjects,
redaction terms, request ids, plan and certificate documents; and on the other values
that reach the store: who and why of writes and transitions, JSON Lines line length.
Over a bound is a typed ValidationError naming the field (exit 2 in the CLI, a tool error
over MCP); nothing is written."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from graphmem.deletion.certificate import load
from graphmem.deletion.models import DeletionPlan
from graphmem.errors import ValidationError
from graphmem.integrations.langgraph.store import GraphmemStore
from graphmem.integrations.mcp import privacy
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.integrations.mcp.state import ServerState
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.write.imports import iter_jsonl
from tests.conftest import Neo4jUnderTest
from tests.test_fuzz import snapshot

T0 = datetime(2026, 1, 1, tzinfo=UTC)
L = DEFAULT_LIMITS
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 4999
TENANT = "bounds"


# -- the checks, without a database ----------------------------------------------------------


@pytest.mark.parametrize(("named", "needle"), [
    ({"by": 5}, "by must be a string"),
    ({"reason": ""}, "reason must be a non-empty"),
    ({"reason": "é" * (L.note_bytes // 2 + 1)}, "reason of .r-1. is 16386 bytes"),
    ({"requested_by": "x" * (L.note_bytes + 1)}, "requested_by of .r-1. is"),
    ({"by": "\ud800"}, "by holds a lone surrogate"),
])
def test_notes_over_their_bound_name_the_argument(named: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_notes(["r-1"], **named)


def test_notes_within_their_bound_pass_and_the_bound_is_configurable() -> None:
    L.check_notes(by="x" * L.note_bytes, reason="\U0001f600" * (L.note_bytes // 4))
    L.check_notes(non_empty=False, by="")
    with pytest.raises(ValidationError, match="note_bytes"):
        InputLimits(note_bytes=10).check_notes(by="x" * 11)


@pytest.mark.parametrize(("ids", "needle"), [
    ("r-1", "must be a list of ids"),             # a lone string is not its letters
    ({"r-1": 1}, "must be a list of ids"),
    (["r"] * (L.ids + 1), "InputLimits.ids"),
    (["r" * 257], "at most 256"),
    (["a b"], "U\\+0020"),
    ([7], "must be a string id"),
])
def test_id_lists_over_their_bound(ids: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_ids("roots", ids)


def test_id_lists_keep_order_without_repeats() -> None:
    assert L.check_ids("roots", ["b", "a", "b"]) == ["b", "a"]
    assert InputLimits(ids=2).check_ids("roots", iter(("a", "a"))) == ["a"]
    with pytest.raises(ValidationError, match="more than 2 ids"):
        InputLimits(ids=2).check_ids("roots", ("a", "b", "c"))


@pytest.mark.parametrize(("scope", "needle"), [
    ("tenant=acme", "must be a scope"),
    ({"tenant": ""}, "non-empty strings"),
    ({"tenant": "acme", "user": "u" * 5000}, "scope_bytes"),
    ({"tenant": "acme", "u\ud800": "x"}, "lone surrogate"),
])
def test_subjects_over_their_bound(scope: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_scope("the deletion subject", scope)


@pytest.mark.parametrize(("terms", "needle"), [
    ("Jane Roe", "must be a list of strings"),
    (["t"] * (L.redact_terms + 1), "InputLimits.redact_terms"),
    (["é" * (L.term_bytes // 2 + 1)], "term_bytes"),
    ([b"Jane"], "must be a string"),
    (["Jane\udc00"], "lone surrogate"),
])
def test_terms_over_their_bound(terms: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_terms(terms)


def test_terms_are_counted_without_reading_past_the_bound() -> None:
    def endless() -> Iterator[str]:
        while True:
            yield "term"
    with pytest.raises(ValidationError, match="redact_terms"):
        L.check_terms(endless())
    assert L.check_terms(["a", "b"]) == ("a", "b")


@pytest.mark.parametrize(("text", "needle"), [
    ('{"entries": ' + DEEP + "}", "field 'entries' is nested"),
    ('{"version": ' + LONG_INT + "}", "field 'version' holds a number"),
    (b'{"reason": "\xff"}', "not UTF-8"),
])
def test_plan_documents_are_bounded_before_they_are_parsed(text: str | bytes,
                                                           needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        DeletionPlan.from_json(text)


def test_plan_and_certificate_size_bounds() -> None:
    tight = InputLimits(plan_bytes=1024, certificate_bytes=1024)
    big = json.dumps({"reason": "x" * 2000})
    with pytest.raises(ValidationError, match=r"deletion plan is 2014 bytes.*plan_bytes"):
        DeletionPlan.from_json(big, tight)
    with pytest.raises(ValidationError, match="certificate is 2014 bytes"):
        load(big, tight)


@pytest.mark.parametrize("source", [
    DEEP, '{"counts": {"n": ' + LONG_INT + "}}", {"checks": json.loads("[" * 60 + "]" * 60)},
])
def test_certificates_are_bounded_before_they_are_parsed(source: Any) -> None:
    deep: Any = source
    if isinstance(source, dict):  # nested past the bound, built without recursion
        for _ in range(200):
            deep = {"a": deep}
    with pytest.raises(ValidationError, match=r"nested|number"):
        load(deep)


def test_a_document_file_is_read_no_further_than_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    with path.open("wb") as out:
        out.truncate(10 * 1024 * 1024)  # sparse: ten MiB of zero bytes
    with pytest.raises(ValidationError, match="over 1024 bytes"):
        InputLimits(plan_bytes=1024).read_document("deletion plan", path, "plan_bytes")
    with pytest.raises(ValidationError, match="cannot read"):
        L.read_document("deletion plan", tmp_path / "missing.json", "plan_bytes")


def test_import_lines_are_read_within_their_bound(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    tight = InputLimits(line_bytes=1024)
    fits = json.dumps({"id": "a", "content": "x" * 990})
    path.write_text(fits + "\r\n" + json.dumps({"id": "b", "content": "x" * 1100}) + "\n",
                    encoding="utf-8")
    lines = iter_jsonl(path, tight)
    assert next(lines)[0] == 1
    with pytest.raises(ValidationError, match=r"in\.jsonl:2: the line is over 1024 bytes"):
        next(lines)


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
    ({"roots": "root"}, "list of ids"),
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
    ctx: Any = SimpleNamespace(request_context=SimpleNamespace(
        lifespan_context=ServerState(config=config, connect=lambda: seeded)))
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: privacy.plan_deletion(ctx, reason="r" * (L.note_bytes + 1), roots=["root"]),
         "reason is"),
        (lambda: privacy.plan_deletion(ctx, reason="gdpr", roots=["root"],
                                       redact_terms=["t"] * (L.redact_terms + 1)),
         "redact_terms"),
        (lambda: privacy.plan_deletion(ctx, reason="gdpr", subject={"user": "u" * 5000}),
         "scope_bytes"),
        (lambda: privacy.apply_deletion(ctx, digest="d" * 5000), "cue_bytes"),
        (lambda: privacy.apply_deletion(ctx, digest="d", plan=_nested(10_000)), "nested"),
        (lambda: privacy.verify_deletion(ctx, request_id="r" * 300), "at most 256"),
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


def test_an_asserted_value_over_its_bound() -> None:
    rec = MemoryRecord(id="v-1", kind=MemoryKind.SEMANTIC, content="threshold", created_at=T0,
                       scope={"tenant": TENANT}, asserts="refund_threshold",
                       asserted_value="9" * (L.value_bytes + 1))
    with pytest.raises(ValidationError, match=r"asserted_value of 'v-1'.*value_bytes"):
        L.check_record(rec)
    L.check_record(rec.model_copy(update={"asserted_value": "500"}))
