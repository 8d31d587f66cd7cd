"""Random record sets and queries (hypothesis strategies) for the property tests against the
eligibility oracle."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from graphmem.models import MemoryKind, MemoryRecord, Sensitivity
from tests.support.oracle import Stored

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
