"""A bound caller's deletion subject (``confine_subject``), as a pure function: its tenant is
one of the principal's, before anything is read, so that a plan's answer never tells whether
another tenant holds a subject (no database)."""

from __future__ import annotations

import pytest

from graphmem import AuthorizationError, Principal, Sensitivity
from graphmem.db.access import OPERATOR, Access
from graphmem.deletion.reach import confine_subject

U17 = Access(principal=Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"}))
WIDE = Access(principal=Principal(tenants=frozenset({"acme"}),
                                  clearance=Sensitivity.RESTRICTED))


def test_a_subject_in_the_principals_tenant_is_confined() -> None:
    assert confine_subject(U17, {}) == {"tenant": "acme", "user": "u-17"}
    assert confine_subject(U17, {"tenant": "acme", "case": "c-1"}) == {
        "case": "c-1", "tenant": "acme", "user": "u-17"}
    assert confine_subject(WIDE, {"user": "u-99"}) == {"tenant": "acme", "user": "u-99"}


@pytest.mark.parametrize("access", [U17, WIDE], ids=["confined", "tenant-wide"])
def test_a_subject_in_another_tenant_is_refused_before_any_read(access: Access) -> None:
    with pytest.raises(AuthorizationError, match="may not read tenant 'globex'"):
        confine_subject(access, {"tenant": "globex"})
    with pytest.raises(AuthorizationError, match="may not read tenant 'globex'"):
        confine_subject(access, {"tenant": "globex", "user": "u-17"})


def test_the_operator_names_any_tenant() -> None:
    assert confine_subject(OPERATOR, {"tenant": "globex"}) == {"tenant": "globex"}
