"""Property test: the Cypher eligibility/status queries agree with a plain-Python oracle on random
record sets (docs/spec/eligibility.md#eligible-and-active), including records created after the
query time (rule 2) and erased, retracted, expired or quarantined successors (rule 4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.errors import AuthorizationError
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity

from .conftest import wipe
from .oracle import Stored, eligible, status

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TIMES = [T0 + timedelta(days=d) for d in range(5)]
TENANTS = ["a", "b"]


@st.composite
def record_sets(draw: st.DrawFn, erasable: bool = True) -> list[Stored]:
    """Random records (creation and validity times, supersession, retraction, quarantine,
    erasure by a deletion request when ``erasable``) over a few tenants and scopes."""
    n = draw(st.integers(1, 8))
    out: list[Stored] = []
    for i in range(n):
        scope = {"tenant": draw(st.sampled_from(TENANTS))}
        for key, values in (("repo", ["r1", "r2"]), ("user", ["u1", "u2"])):
            if draw(st.booleans()):
                scope[key] = draw(st.sampled_from(values))
        valid_from = draw(st.none() | st.sampled_from(TIMES[:4]))
        expires_at = draw(st.none() | st.sampled_from(
            [t for t in TIMES if valid_from is None or t > valid_from]))
        earlier = [s.record.id for s in out]
        supersedes = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)
                          if earlier else st.just([]))
        record = MemoryRecord(
            id=f"r{i}", kind=MemoryKind.SEMANTIC, content=f"record {i}",
            created_at=draw(st.sampled_from(TIMES[:4])), scope=scope,
            valid_from=valid_from, expires_at=expires_at, supersedes=tuple(supersedes),
            retracted=draw(st.booleans()) and draw(st.booleans()),
            sensitivity=draw(st.sampled_from(list(Sensitivity))),
        )
        out.append(Stored(record, quarantined=draw(st.booleans()) and draw(st.booleans()),
                          erased=erasable and draw(st.booleans()) and draw(st.booleans())))
    return out


queries = st.fixed_dictionaries({
    "tenants": st.sets(st.sampled_from(TENANTS), min_size=1),
    "clearance": st.sampled_from(list(Sensitivity)),
    "scope": st.fixed_dictionaries(
        {"tenant": st.sampled_from(TENANTS)},
        optional={"repo": st.sampled_from(["r1", "r2"]), "user": st.sampled_from(["u1", "u2"])},
    ),
    "now": st.sampled_from([*TIMES, T0 + timedelta(days=2, hours=12)]),
})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(stored=record_sets(), qs=st.lists(queries, min_size=1, max_size=4))
def test_cypher_matches_the_oracle(memory: Memory, stored: list[Stored],
                                   qs: list[dict[str, Any]]) -> None:
    wipe(memory)
    memory.put_many([s.record for s in stored])
    for s in stored:
        if s.quarantined:
            store_of(memory).set_quarantine(s.record.id, True, by="test", reason="property test")
    erased = [s.record.id for s in stored if s.erased]
    if erased:  # after the quarantines: a tombstone remembers whether it was admitted
        memory.apply_deletion(memory.plan_deletion(erased, requested_by="test",
                                                   reason="property test"))
    for q in qs:
        principal = Principal(tenants=frozenset(q["tenants"]), clearance=q["clearance"])
        scope, now = q["scope"], q["now"]
        if scope["tenant"] not in principal.tenants:
            try:
                memory.candidates(principal=principal, scope=scope, now=now)
            except AuthorizationError:
                continue
            raise AssertionError("expected an authorization error")
        expected = {
            s.record.id for s in stored
            if eligible(s, principal, scope) and status(s, stored, principal, scope, now)[0]
            == "ACTIVE"
        }
        got = {r.id for r in memory.candidates(principal=principal, scope=scope, now=now)}
        assert got == expected
        for s in stored:
            want, successors = status(s, stored, principal, scope, now)
            explanation = memory.explain(s.record.id, principal=principal, scope=scope, now=now)
            assert explanation.status == want, (s.record.id, q)
            assert set(explanation.successor_ids) == successors
