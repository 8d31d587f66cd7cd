"""Oversized and overdeep input, fuzzed with hypothesis through every public entry point:
the client, the command line (``graphmem import``, ``graphmem delete``), the MCP tools
(deletion tools too) and the LangGraph store.
Each call succeeds or raises a graphmem error (a tool error over MCP, exit 2 in the CLI),
and one that fails leaves the database unchanged (``tests/support/fuzz.py``'s snapshot)."""

from __future__ import annotations

import asyncio
import json
import math
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.server.mcpserver.exceptions import ToolError
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.deletion.models import DeletionPlan
from graphmem.errors import GraphmemError
from graphmem.integrations.langgraph.store import GraphmemStore
from graphmem.integrations.mcp import privacy, tools
from graphmem.integrations.mcp.config import ServerConfig
from graphmem.limits import DEFAULT_LIMITS
from graphmem.models import Principal
from tests.support.database import Neo4jUnderTest, wipe
from tests.support.fuzz import FUZZ, check, snapshot
from tests.support.mcp_client import tool_context

pytestmark = pytest.mark.neo4j

TENANT = "fuzz"
BASE = datetime(2026, 1, 1, tzinfo=UTC)
L = DEFAULT_LIMITS


# sizes around each bound, and far past it
def _around(limit: int) -> st.SearchStrategy[int]:
    return st.sampled_from([1, limit - 1, limit, limit + 1, 4 * limit])


sized_text = st.builds(lambda n, ch: ch * max(1, n // len(ch.encode())),
                       st.one_of(_around(L.goal_bytes), _around(L.cue_bytes),
                                 _around(L.provenance_bytes)),
                       st.sampled_from(["x", "é", "\U0001f600", "İ"]))


def _numbers(max_digits: int) -> st.SearchStrategy[int | float]:
    return st.one_of(
        st.integers(0, max_digits).map(lambda k: 10**k),
        st.integers(0, max_digits).map(lambda k: -(10**k) + 1),
        st.sampled_from([math.inf, -math.inf, math.nan, 1e308, 5e-324]),
    )


huge_numbers = _numbers(6000)


def _nest(depth: int, leaf: Any, kind: str) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value} if kind == "obj" else [value]
    return value


def _metadata(numbers: st.SearchStrategy[int | float]) -> st.SearchStrategy[dict[str, Any]]:
    nested = st.builds(_nest, st.sampled_from([1, 63, 64, 65, 300]), numbers,
                       st.sampled_from(["obj", "list"]))
    return st.one_of(
        st.builds(lambda v: {"v": v}, st.one_of(nested, numbers, sized_text)),
        st.builds(lambda n: {"blob": "m" * n}, _around(L.metadata_bytes)),
    )


metadata = _metadata(huge_numbers)
provenance = st.one_of(st.builds(lambda v: {"source": v}, sized_text),
                       st.builds(lambda n: {f"k{i}": "v" * 1000 for i in range(n)},
                                 st.sampled_from([1, 16, 17, 100])))


@pytest.fixture(scope="module")
def fuzz_memory(neo4j_db: Neo4jUnderTest) -> Iterator[Memory]:
    mem = Memory.connect(neo4j_db.settings, start_if_needed=False)
    wipe(mem)
    mem.put({"id": "seed", "kind": "semantic", "content": "the invoice is due friday",
             "created_at": BASE, "scope": {"tenant": TENANT}})
    try:
        yield mem
    finally:
        wipe(mem)
        mem.close()


def record(rid: str, **fields: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": "bounded fuzz", "created_at": BASE,
            "scope": {"tenant": TENANT}, **fields}


# -- the client ------------------------------------------------------------------------


@FUZZ
@given(meta=metadata, prov=provenance, how=st.sampled_from(["put", "write", "put_many"]))
def test_client_records(fuzz_memory: Memory, meta: dict[str, Any], prov: dict[str, Any],
                        how: str) -> None:
    rec = record("f-rec", metadata=meta, provenance=prov)
    call: dict[str, Callable[[], Any]] = {
        "put": lambda: fuzz_memory.put(rec),
        "write": lambda: fuzz_memory.write(rec, by="fuzzer", now=BASE),
        "put_many": lambda: fuzz_memory.put_many([record("f-ok"), rec]),
    }
    check(fuzz_memory, call[how])
    wipe_fuzzed(fuzz_memory)


@FUZZ
@given(action=sized_text, cue=sized_text, goal=sized_text, observation=sized_text,
       entities=st.lists(sized_text, max_size=3), many=st.sampled_from([0, 256, 257]))
def test_client_intentions_and_retrieval(fuzz_memory: Memory, action: str, cue: str,
                                         goal: str, observation: str, entities: list[str],
                                         many: int) -> None:
    principal = Principal(tenants=frozenset({TENANT}))
    scope = {"tenant": TENANT}
    check(fuzz_memory, lambda: fuzz_memory.intend(
        {"id": "f-int", "action": action, "trigger_kind": "topic", "trigger_value": cue,
         "scope": scope, "created_at": BASE}))
    check(fuzz_memory, lambda: fuzz_memory.due({cue: cue}, principal=principal, scope=scope,
                                               now=BASE))
    state = {"memory_scope": scope, "goal": goal, "last_observation": observation,
             "entities": [*entities, *(["e"] * many)], "needs_prior_context": True}
    before = snapshot(fuzz_memory)
    try:
        fuzz_memory.retrieve(state, principal=principal, now=BASE)
    except GraphmemError:
        assert snapshot(fuzz_memory) == before
    except Exception as exc:
        pytest.fail(f"untyped error: {type(exc).__name__}: {str(exc)[:200]}")
    wipe_fuzzed(fuzz_memory)


def wipe_fuzzed(memory: Memory) -> None:
    """Leave the seed only, so the next example starts from the same store."""
    store_of(memory).driver.execute_query(
        "MATCH (n) WHERE n.id STARTS WITH 'f-' OR n.record_id STARTS WITH 'f-' "
        "OR n.intention_id STARTS WITH 'f-' OR n:Retrieval OR n:CandidateSet "
        "OR n:WriteDecision DETACH DELETE n", database_=store_of(memory).database)


# -- the command line ------------------------------------------------------------------

# json.dumps writes integers of at most 4300 digits; longer ones come as raw digits below
json_lines = st.one_of(
    st.builds(lambda m: json.dumps(record("f-line", metadata=m, created_at=BASE.isoformat()),
                                   allow_nan=True), _metadata(_numbers(4000))),
    st.builds(lambda d: '{"id": "f-deep", "metadata": ' + "[" * d + "]" * d + "}",
              st.sampled_from([65, 1000, 100_000])),
    st.builds(lambda k: '{"id": "f-num", "metadata": {"n": 1' + "0" * k + "}}",
              st.sampled_from([63, 64, 100, 4300, 5000])),
    st.text(max_size=50),
    st.just('{"id": "f-x", "content": "' + "[" * 10_000 + '"}'),
)


@pytest.fixture(scope="module")
def cli_env(neo4j_db: Neo4jUnderTest) -> Iterator[None]:
    s = neo4j_db.settings
    with pytest.MonkeyPatch.context() as mp:
        for key, value in {"NEO4J_URI": s.uri, "NEO4J_USER": s.user,
                           "NEO4J_PASSWORD": s.password, "NEO4J_DATABASE": s.database}.items():
            mp.setenv(key, value)
        yield


@FUZZ
@given(lines=st.lists(json_lines, min_size=1, max_size=3))
def test_cli_import(fuzz_memory: Memory, cli_env: None, lines: list[str]) -> None:
    before = snapshot(fuzz_memory)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        result = CliRunner().invoke(app, ["import", str(path), "--json"])
    assert result.exit_code in (0, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception))
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) >= 1
        assert snapshot(fuzz_memory) == before
    wipe_fuzzed(fuzz_memory)


# -- the MCP tools (called as the SDK calls them, with the server's state) -----------------


@FUZZ
@given(content=sized_text, prov=st.one_of(st.none(), provenance.filter(
    lambda p: all(isinstance(v, str) for v in p.values()))), goal=sized_text, action=sized_text,
       event_value=sized_text)
def test_mcp_tools(fuzz_memory: Memory, content: str, prov: dict[str, str] | None, goal: str,
                   action: str, event_value: str) -> None:
    config = ServerConfig.build(tenants=(TENANT,), agent="fuzz-agent")
    ctx = tool_context(config, fuzz_memory)
    calls: list[Callable[[], Any]] = [
        lambda: asyncio.run(tools.remember(ctx, content=content, provenance=prov,
                                           authority="human_instruction")),
        lambda: asyncio.run(tools.recall(ctx, goal=goal, needs_prior_context=True)),
        lambda: asyncio.run(tools.intend(ctx, action=action, cue_kind="topic",
                                         cue_value=event_value)),
        lambda: asyncio.run(tools.process_event(ctx, event={"topic": event_value})),
    ]
    _each_tool_call(fuzz_memory, calls)
    wipe_fuzzed(fuzz_memory)


# -- the LangGraph store -----------------------------------------------------------------

ttls = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True),
                 st.integers(-10, 10), st.sampled_from([1e15, 10**20, True]))


@FUZZ
@given(value=st.one_of(metadata, st.builds(lambda t: {"text": t}, sized_text)), ttl=ttls)
def test_langgraph_put(fuzz_memory: Memory, value: dict[str, Any], ttl: Any) -> None:
    store = GraphmemStore(fuzz_memory, principal=Principal(tenants=frozenset({TENANT})))
    check(fuzz_memory, lambda: store.put((TENANT, "notes"), "f-key", value, ttl=ttl))
    check(fuzz_memory, lambda: store.search((TENANT,), query="invoice"))
    wipe_fuzzed(fuzz_memory)
    store_of(fuzz_memory).driver.execute_query(
        "MATCH (n:Record) WHERE n.tenant = $t AND n.id <> 'seed' DETACH DELETE n",
        t=TENANT, database_=store_of(fuzz_memory).database)



# -- deletions: the client, the command line and the MCP tools ----------------------------

_ids = st.one_of(
    st.builds(lambda n: ["seed"] * n, st.sampled_from([1, 2, L.ids, L.ids + 1])),
    st.builds(lambda n: ["r" * n], st.sampled_from([1, 255, 256, 257, 5000])),
    st.lists(st.text(max_size=8), max_size=3),
    st.sampled_from(["seed", {"seed": 1}, [7], [None]]),
)
_note = st.one_of(st.sampled_from(["", "dpo", 5]), st.builds(
    lambda n, ch: ch * max(1, n // len(ch.encode("utf-8", "surrogatepass"))),
    _around(L.note_bytes), st.sampled_from(["x", "é", "\U0001f600", "\ud800"])))
_terms = st.one_of(
    st.builds(lambda n: ["Jane"] * n, st.sampled_from([0, L.redact_terms + 1, 500])),
    st.builds(lambda n: ["J" * n], _around(L.term_bytes)),
    st.lists(st.text(max_size=6), max_size=2),
    st.sampled_from(["Jane Roe", [b"Jane"], ["\udc00"], [""]]),
)
_subjects = st.one_of(
    st.none(),
    st.builds(lambda n: {"tenant": TENANT, "user": "u" * n}, _around(L.scope_bytes)),
    st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
    st.sampled_from(["tenant=fuzz", {"tenant": 5}]),
)
_request_ids = st.one_of(st.none(), st.sampled_from(["del-fuzz", "del fuzz", "", "d\x00"]),
                         st.builds(lambda n: "d" * n, _around(256)))
# JSON documents (a plan, a certificate): deep, long numbers, large, or any text
_documents = st.one_of(
    st.builds(lambda d: '{"entries": ' + "[" * d + "]" * d + "}",
              st.sampled_from([63, 64, 65, 100_000])),
    st.builds(lambda k: '{"version": 1' + "0" * k + "}", st.sampled_from([63, 64, 5000])),
    st.builds(lambda n: json.dumps({"reason": "x" * n}), st.sampled_from([10, 2 * 1024 * 1024])),
    st.text(max_size=40),
)


def _only_deletion_requests_planned(memory: Memory) -> None:
    """Remove the plans an MCP call stored, so the next example starts alike."""
    store_of(memory).driver.execute_query("MATCH (n:DeletionRequest) DETACH DELETE n",
                                      database_=store_of(memory).database)


@FUZZ
@given(roots=_ids, subject=_subjects, terms=_terms, requested_by=_note, reason=_note,
       request_id=_request_ids, document=_documents)
def test_client_deletion(fuzz_memory: Memory, roots: Any, subject: Any, terms: Any,
                         requested_by: Any, reason: Any, request_id: Any,
                         document: str) -> None:
    plan = check(fuzz_memory, lambda: fuzz_memory.plan_deletion(
        None if subject is not None else roots, subject, terms, requested_by=requested_by,
        reason=reason, request_id=request_id, allow_missing=True))
    if plan is not None:  # applied only with terms over a bound: the seed is never erased
        over = [*terms, "x" * (L.term_bytes + 1)] if isinstance(terms, list) else terms
        check(fuzz_memory, lambda: fuzz_memory.apply_deletion(plan, redact_terms=over))
    check(fuzz_memory, lambda: fuzz_memory.verify_deletion(
        request_id if isinstance(request_id, str) else "del-none", redact_terms=terms))
    check(fuzz_memory, lambda: fuzz_memory.deletion_certificate(
        request_id if isinstance(request_id, str) else "del-none", redact_terms=terms))
    check(fuzz_memory, lambda: fuzz_memory.check_certificate(document))
    check(fuzz_memory, lambda: DeletionPlan.from_json(document))
    assert fuzz_memory.get("seed").content  # nothing fuzzed erased the seed


@FUZZ
@given(root=st.one_of(st.sampled_from(["seed", "", "a b"]), st.builds(
    lambda n: "r" * n, _around(256))), reason=_note.filter(lambda r: isinstance(r, str)),
       term=st.builds(lambda n: "J" * n, _around(L.term_bytes)), document=_documents)
def test_cli_deletion(fuzz_memory: Memory, cli_env: None, root: str, reason: str, term: str,
                      document: str) -> None:
    before = snapshot(fuzz_memory)
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "doc.json"
        path.write_text(document, encoding="utf-8", errors="surrogatepass")
        reason_arg = reason.encode("utf-8", "replace").decode("utf-8")  # argv is text
        results = [
            (runner.invoke(app, ["delete", "plan", "--root", root, "--reason", reason_arg,
                                 "--redact", term, "--json"]), (0, 1, 2)),
            (runner.invoke(app, ["delete", "apply", str(path)]), (2,)),
            (runner.invoke(app, ["delete", "check-certificate", str(path)]), (2,)),
            (runner.invoke(app, ["delete", "verify", root]), (2,)),
        ]
    for result, codes in results:
        assert result.exit_code in codes, result.output[-500:]
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            repr(result.exception))
        assert "Traceback" not in result.output
    assert snapshot(fuzz_memory) == before  # planning, refusing and verifying write nothing


@FUZZ
@given(roots=_ids, subject=_subjects, terms=_terms, reason=_note, digest=_request_ids,
       plan=st.one_of(st.none(), st.builds(lambda d: _nest(d, 1, "obj"),
                                           st.sampled_from([1, 65, 10_000]))))
def test_mcp_deletion(fuzz_memory: Memory, roots: Any, subject: Any, terms: Any, reason: Any,
                      digest: Any, plan: Any) -> None:
    config = ServerConfig.build(tenants=(TENANT,), agent="fuzz-agent", allow_deletion=True)
    ctx = tool_context(config, fuzz_memory)
    calls: list[Callable[[], Any]] = [
        lambda: asyncio.run(privacy.plan_deletion(
            ctx, reason=reason, roots=roots if subject is None else None, subject=subject,
            redact_terms=terms)),
        lambda: asyncio.run(privacy.apply_deletion(ctx, digest=digest or "", plan=plan,
                                                   redact_terms=terms)),
        lambda: asyncio.run(privacy.verify_deletion(ctx, request_id=digest or "",
                                                    redact_terms=terms)),
    ]
    _each_tool_call(fuzz_memory, calls)
    _only_deletion_requests_planned(fuzz_memory)
    assert fuzz_memory.get("seed").content


def _each_tool_call(memory: Memory, calls: list[Callable[[], Any]]) -> None:
    """Each MCP tool call succeeds or fails with a graphmem error, changing nothing."""
    for call in calls:
        before = snapshot(memory)
        try:
            call()
        except ToolError as exc:
            # "ContentTooLargeError (ValidationError): ..." names the class, then its bases
            assert str(exc).split(":")[0].split(" ")[0].endswith("Error"), str(exc)[:200]
            assert snapshot(memory) == before
        except Exception as exc:
            pytest.fail(f"untyped error out of a tool: {type(exc).__name__}: {str(exc)[:200]}")
