"""The one rule of reach (``Principal.reaches``/``may_change``/``confine``/``covers``) and the
authority ceiling, as pure functions: no database."""

from __future__ import annotations

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem import (
    Authority,
    AuthorityCeilingError,
    AuthorizationError,
    OutOfReachError,
    Principal,
    RecordNotFoundError,
    Sensitivity,
)
from graphmem.db.access import OPERATOR, Access

U17 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})
WIDE = Principal(tenants=frozenset({"acme"}))
N = Sensitivity.NORMAL


def test_a_confined_principal_reads_its_own_and_tenant_wide_records_only() -> None:
    assert U17.reaches("acme", N, {"tenant": "acme", "user": "u-17"})
    assert U17.reaches("acme", N, {"tenant": "acme"})  # a tenant-wide policy
    assert U17.reaches("acme", N, {"tenant": "acme", "user": "u-17", "project": "p1"})
    assert not U17.reaches("acme", N, {"tenant": "acme", "user": "u-99"})
    assert not U17.reaches("acme", Sensitivity.CONFIDENTIAL, {"tenant": "acme", "user": "u-17"})
    assert not U17.reaches("globex", N, {"tenant": "globex", "user": "u-17"})


def test_changing_needs_the_record_to_belong_to_the_confinement() -> None:
    assert U17.may_change("acme", N, {"tenant": "acme", "user": "u-17"})
    assert not U17.may_change("acme", N, {"tenant": "acme"})
    assert not U17.may_change("acme", N, {"tenant": "acme", "user": "u-99"})
    assert WIDE.may_change("acme", N, {"tenant": "acme", "user": "u-99"})


def test_query_scopes_are_confined_and_contradictions_refused() -> None:
    assert U17.confine({"tenant": "acme"}) == {"tenant": "acme", "user": "u-17"}
    assert U17.confine({"tenant": "acme", "project": "p"}) == {
        "project": "p", "tenant": "acme", "user": "u-17"}
    with pytest.raises(AuthorizationError) as info:
        U17.confine({"tenant": "acme", "user": "u-99"})
    assert "u-99" not in str(info.value)
    pinned = Principal(tenants=frozenset({"acme", "globex"}), scope={"tenant": "acme"})
    with pytest.raises(AuthorizationError):
        pinned.confine({"tenant": "globex"})
    assert not pinned.reaches("globex", N, {"tenant": "globex"})


def test_the_confinement_is_checked_at_construction() -> None:
    with pytest.raises(pydantic.ValidationError):
        Principal(tenants=frozenset({"acme"}), scope={"tenant": "globex"})
    with pytest.raises(pydantic.ValidationError):
        Principal(tenants=frozenset({"acme"}), scope={"user": ""})
    assert hash(U17) == hash(Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"}))


def test_covers_only_narrower_principals() -> None:
    assert WIDE.covers(U17) and U17.covers(U17)
    assert not U17.covers(WIDE)
    assert not U17.covers(Principal(tenants=frozenset({"acme"}), scope={"user": "u-99"}))
    assert not U17.covers(U17.model_copy(update={"clearance": Sensitivity.RESTRICTED}))


def test_out_of_reach_is_both_an_authorization_and_a_not_found_error() -> None:
    assert issubclass(OutOfReachError, AuthorizationError)
    assert issubclass(OutOfReachError, RecordNotFoundError)


def test_the_authority_ceiling_names_its_setting_and_records_the_claim() -> None:
    access = Access(principal=U17, max_authority=Authority.HUMAN_INSTRUCTION)
    access.check_authority(Authority.HUMAN_INSTRUCTION)
    with pytest.raises(AuthorityCeilingError, match="max_authority"):
        access.check_authority(Authority.AUTHORITATIVE_SOURCE)
    OPERATOR.check_authority(Authority.AUTHORITATIVE_SOURCE)  # the operator has no ceiling
    by = access.decided_by("a1", Authority.MODEL_INFERRED)
    assert "a1" in by and "claimed model_inferred" in by and "max_authority human_instruction" in by
    assert OPERATOR.decided_by("a1", Authority.MODEL_INFERRED) == "a1"


def test_a_bound_reader_refuses_a_wider_principal() -> None:
    access = Access(principal=U17)
    assert access.reader(None) == U17
    with pytest.raises(AuthorizationError):
        access.reader(WIDE)


labels = st.sampled_from(["u-1", "u-2", "u-3"])
keys = st.sampled_from(["user", "project", "team"])
scopes = st.dictionaries(keys, labels, max_size=3)


@given(confinement=scopes, record=scopes, query=scopes,
       rank=st.sampled_from(list(Sensitivity)), clearance=st.sampled_from(list(Sensitivity)))
def test_reach_is_rule_3_under_some_confined_query_scope(
        confinement: dict[str, str], record: dict[str, str], query: dict[str, str],
        rank: Sensitivity, clearance: Sensitivity) -> None:
    """Within reach exactly when some query scope holding the confinement lets the record through
    docs/spec/eligibility.md#scope-match (every record pair in the query scope); and every confined
    query scope lets through only records within reach."""
    p = Principal(tenants=frozenset({"acme"}), clearance=clearance, scope=confinement)
    rec = {"tenant": "acme", **record}
    best = {**rec, **confinement} if all(rec.get(k, v) == v for k, v in
                                         confinement.items()) else None
    through = best is not None and all(best.get(k) == v for k, v in rec.items())
    assert p.reaches("acme", rank, rec) == (through and rank <= clearance)
    try:
        confined = p.confine({"tenant": "acme", **query})
    except AuthorizationError:
        return
    if all(confined.get(k) == v for k, v in rec.items()) and rank <= clearance:
        assert p.reaches("acme", rank, rec)
    if p.may_change("acme", rank, rec):
        assert p.reaches("acme", rank, rec)
