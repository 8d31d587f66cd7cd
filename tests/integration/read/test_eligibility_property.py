"""Property test: the Cypher eligibility/status queries agree with a plain-Python oracle on random
record sets (docs/spec/eligibility.md#eligible-and-active), including records created after the
query time (rule 2) and erased, retracted, expired or quarantined successors (rule 4)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.errors import AuthorizationError
from graphmem.models import Principal
from tests.support.database import wipe
from tests.support.oracle import Stored, eligible, status
from tests.support.record_sets import queries, record_sets
from tests.support.sizes import size


@settings(max_examples=size(30, 60), deadline=None,
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
