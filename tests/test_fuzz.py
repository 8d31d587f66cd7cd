"""Hostile input, fuzzed with hypothesis.

Every public call either succeeds or raises a :class:`GraphmemError` subclass (never a raw
``neo4j``, pydantic, ``KeyError``, ``TypeError``, ``OverflowError``, ``UnicodeEncodeError`` or
``RecursionError``), and a call that raises leaves the database unchanged: the same node and
relationship counts and the same digest of every stored record and intention.

Profiles (``GRAPHMEM_FUZZ_PROFILE``): ``fuzz-ci`` (default; about a minute in all) and
``fuzz-long`` (a thousand examples per test), e.g.::

    GRAPHMEM_FUZZ_PROFILE=fuzz-long python -m pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.errors import GraphmemError
from graphmem.models import Principal, Sensitivity
from tests.conftest import Neo4jUnderTest, wipe

pytestmark = pytest.mark.neo4j

# CI runs a fixed sample, so a run that lands does not depend on luck; the long profile
# explores (GRAPHMEM_FUZZ_PROFILE=fuzz-long: 1000 examples a test, about 48 minutes here)
settings.register_profile(
    "fuzz-ci", max_examples=30, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz-long", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ = settings.get_profile(os.environ.get("GRAPHMEM_FUZZ_PROFILE", "fuzz-ci"))
TENANT = "fuzz"
BASE = datetime(2026, 1, 1, tzinfo=UTC)

# ------------------------------------------------------------------------------ strategies

HOSTILE_CHARS = ["\x00", "\u202e", "\u200f", "\ufeff", "\ud800", "\udfff", "\U0010ffff",
                 "'", '"', "`", "\\", "{", "}", "$", "\n", "=", "%", "*", ".", "|", "(", "é"]
text = st.one_of(
    st.text(max_size=40),
    st.text(st.sampled_from(HOSTILE_CHARS), max_size=20),
    st.text(st.characters(exclude_categories=()), max_size=30),  # incl. lone surrogates
)
big_content = st.sampled_from([
    "x" * (64 * 1024), "x" * (64 * 1024 + 1), "é" * (32 * 1024), "é" * (32 * 1024) + "x",
    "\U0001f600" * (16 * 1024), "\x00" * 100, "\u202e" + "abc",
])
content = st.one_of(text, big_content)

tz = st.one_of(st.just(UTC), st.just(timezone(timedelta(hours=14))),
               st.just(timezone(timedelta(hours=-14))),
               st.just(timezone(timedelta(hours=23, minutes=59))),
               st.just(timezone(-timedelta(hours=23, minutes=59))))
edge_datetimes = st.one_of(
    st.sampled_from([datetime.max, datetime.min, datetime(1, 1, 1, 0, 0, 1),
                     datetime(9999, 12, 31, 23, 59, 59, 999999), datetime(1970, 1, 1)]),
    st.datetimes(),
)
aware = st.builds(lambda d, z: d.replace(tzinfo=z), edge_datetimes, tz)
any_datetime = st.one_of(aware, edge_datetimes, st.sampled_from(["2026-01-01T00:00:00+00:00",
                                                                  "not a date", "", 0]))

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), text)
metadata = st.one_of(
    st.recursive(json_leaf, lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(text, kids, max_size=4)), max_leaves=20),
    st.integers(1, 5000).map(lambda depth: _nested(depth)),
    st.integers(1, 3).map(lambda n: {f"k{i}": "v" * 100_000 for i in range(n * 10)}),
    st.dictionaries(st.one_of(st.integers(), st.none()), json_leaf, max_size=3),
)


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


scope_value = st.one_of(text, st.integers(), st.none(), st.lists(text, max_size=2))
scopes = st.one_of(
    st.dictionaries(st.one_of(text, st.just("tenant")), scope_value, max_size=4).map(
        lambda d: {"tenant": TENANT, **d}),
    st.dictionaries(text, scope_value, max_size=3),
    st.fixed_dictionaries({"tenant": st.one_of(text, st.just(TENANT))}),
)
ids = st.one_of(text, st.sampled_from(["r-1", "r-2", "", "r-1 ", "R-1"]))
enums = st.one_of(text, st.sampled_from(["semantic", "episodic", "procedural", "prospective",
                                         "authoritative_source", "untrusted", "restricted",
                                         "normal"]))
records = st.fixed_dictionaries(
    {"id": ids, "kind": enums, "content": content, "created_at": any_datetime,
     "scope": scopes},
    optional={"provenance": st.dictionaries(text, st.one_of(text, st.integers()), max_size=3),
              "authority": enums, "sensitivity": enums, "asserts": text,
              "asserted_value": text, "valid_from": any_datetime, "expires_at": any_datetime,
              "supersedes": st.lists(ids, max_size=3), "derived_from": st.lists(ids, max_size=3),
              "evidence_ids": st.lists(ids, max_size=3), "retracted": st.booleans(),
              "metadata": metadata, "extra_field": text},
)
principals = st.builds(lambda ts, c: {"tenants": ts, "clearance": c},
                       st.lists(st.one_of(st.just(TENANT), text), max_size=3), enums)
states = st.fixed_dictionaries(
    {"memory_scope": scopes},
    optional={"goal": content, "subtask": text, "last_observation": text,
              "entities": st.lists(text, max_size=3), "needs_prior_context": st.booleans(),
              "new_error": st.booleans(), "event": st.dictionaries(text, text, max_size=2),
              "bogus": text},
)
intentions = st.fixed_dictionaries(
    {"id": ids, "action": content, "trigger_kind": text, "trigger_value": text,
     "scope": scopes, "created_at": any_datetime},
    optional={"expires_at": any_datetime, "status": enums, "sensitivity": enums},
)
terms = st.lists(st.one_of(text, st.sampled_from(["", " ", ".*", "(", "\\", "[REDACTED]"])),
                 max_size=4)


# ------------------------------------------------------------------------------ harness


@pytest.fixture(scope="module")
def fuzz_memory(neo4j_db: Neo4jUnderTest) -> Iterator[Memory]:
    """A client on the suite's database, seeded with a few well-formed records."""
    mem = Memory.connect(neo4j_db.settings, start_if_needed=False)
    wipe(mem)
    scope = {"tenant": TENANT}
    for rid, text_ in (("r-1", "the invoice is due friday"), ("r-2", "acme prefers email")):
        mem.put({"id": rid, "kind": "semantic", "content": text_, "created_at": BASE,
                 "scope": scope, "asserts": "acme.contact", "asserted_value": text_})
    mem.intend({"id": "i-1", "action": "remind about the invoice", "trigger_kind": "topic",
                "trigger_value": "invoice", "scope": scope, "created_at": BASE})
    try:
        yield mem
    finally:
        wipe(mem)
        mem.close()


def snapshot(memory: Memory) -> tuple[int, int, str]:
    """(nodes, relationships, digest of every record's and intention's properties)."""
    driver, db = store_of(memory).driver, store_of(memory).database
    nodes = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=db)[0][0]["n"]
    rels = driver.execute_query("MATCH ()-[r]->() RETURN count(r) AS n", database_=db
                                )[0][0]["n"]
    rows = driver.execute_query(
        "MATCH (n) WHERE n:Record OR n:Intention RETURN labels(n) AS l, properties(n) AS p "
        "ORDER BY n.id", database_=db)[0]
    digest = hashlib.sha256()
    for row in rows:
        props = {k: str(v) for k, v in row["p"].items()}
        digest.update(json.dumps([row["l"], props], sort_keys=True, ensure_ascii=True).encode())
    return int(nodes), int(rels), digest.hexdigest()


def check(memory: Memory, call: Callable[[], Any]) -> Any:
    """Run ``call``: it succeeds, or raises a GraphmemError and changes nothing."""
    before = snapshot(memory)
    try:
        return call()
    except GraphmemError:
        assert snapshot(memory) == before, "a call that raised changed the database"
        return None
    except Exception as exc:
        pytest.fail(f"untyped error escaped the client: {type(exc).__module__}."
                    f"{type(exc).__name__}: {str(exc)[:300]!r}")


# ------------------------------------------------------------------------------ the tests


@FUZZ
@given(rec=records)
def test_put_hostile_record(fuzz_memory: Memory, rec: dict[str, Any]) -> None:
    check(fuzz_memory, lambda: fuzz_memory.put(rec))


@FUZZ
@given(rec=records, at=any_datetime)
def test_write_hostile_proposal(fuzz_memory: Memory, rec: dict[str, Any], at: Any) -> None:
    check(fuzz_memory, lambda: fuzz_memory.write(rec, by="fuzzer", now=at))


@FUZZ
@given(batch=st.lists(records, max_size=4))
def test_put_many_hostile_batch(fuzz_memory: Memory, batch: list[dict[str, Any]]) -> None:
    check(fuzz_memory, lambda: fuzz_memory.put_many(batch))


@FUZZ
@given(state=states, principal=principals, at=any_datetime,
       budget=st.one_of(st.integers(-5, 10**7), st.integers(2**62, 2**70)),
       k=st.one_of(st.integers(-2, 10**6), st.integers(2**62, 2**70)))
def test_retrieve_hostile_state(fuzz_memory: Memory, state: dict[str, Any],
                                principal: dict[str, Any], at: Any, budget: int, k: int
                                ) -> None:
    def call() -> Any:
        return fuzz_memory.retrieve(state, principal=_principal(principal), now=at,
                                    budget_chars=budget, k=k)
    check(fuzz_memory, call)


@FUZZ
@given(rid=ids, principal=principals, scope=scopes, at=any_datetime)
def test_explain_and_candidates_hostile(fuzz_memory: Memory, rid: str, principal: dict[str, Any],
                                        scope: dict[str, Any], at: Any) -> None:
    check(fuzz_memory, lambda: fuzz_memory.explain(rid, principal=_principal(principal),
                                                   scope=scope, now=at))
    check(fuzz_memory, lambda: fuzz_memory.candidates(principal=_principal(principal),
                                                      scope=scope, now=at))


@FUZZ
@given(rid=ids, by=text, reason=text, at=any_datetime)
def test_retract_and_expire_hostile(fuzz_memory: Memory, rid: str, by: str, reason: str,
                                    at: Any) -> None:
    check(fuzz_memory, lambda: fuzz_memory.expire(rid, at=at, by=by, reason=reason))
    check(fuzz_memory, lambda: fuzz_memory.retract(rid, by=by, reason=reason, at=at))


@FUZZ
@given(intention=intentions, event=st.dictionaries(text, st.one_of(text, st.integers()),
                                                   max_size=3),
       principal=principals, scope=scopes, at=any_datetime, by=text)
def test_intentions_hostile(fuzz_memory: Memory, intention: dict[str, Any],
                            event: dict[str, Any], principal: dict[str, Any],
                            scope: dict[str, Any], at: Any, by: str) -> None:
    check(fuzz_memory, lambda: fuzz_memory.intend(intention))
    check(fuzz_memory, lambda: fuzz_memory.process_event(
        event, principal=_principal(principal), scope=scope, by=by, now=at))
    check(fuzz_memory, lambda: fuzz_memory.fire(str(intention.get("id")), by=by, now=at))


@FUZZ
@given(roots=st.one_of(st.none(), st.lists(ids, max_size=3)),
       subject=st.one_of(st.none(), scopes), redact=terms, by=text, reason=text)
def test_deletion_hostile_request(fuzz_memory: Memory, roots: list[str] | None,
                                  subject: dict[str, Any] | None, redact: list[str], by: str,
                                  reason: str) -> None:
    plan = check(fuzz_memory, lambda: fuzz_memory.plan_deletion(
        roots, subject, redact, requested_by=by, reason=reason))
    if plan is not None and not any(e.via == "root" and e.id in ("r-1", "r-2", "i-1")
                                    for e in plan.entries):
        check(fuzz_memory, lambda: fuzz_memory.apply_deletion(plan))


def _principal(raw: dict[str, Any]) -> Any:
    """A Principal when the raw values make one, else the raw dict (itself hostile input)."""
    try:
        return Principal(tenants=frozenset(raw["tenants"]), clearance=Sensitivity(
            raw["clearance"]))
    except Exception:
        return raw
