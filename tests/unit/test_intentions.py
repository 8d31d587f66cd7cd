"""An intention that expired when it is made is refused by the one validation every write of
an intention passes through (:func:`graphmem.intentions.coerce_intention`; the MCP ``intend``
tool, ``Memory.intend``, ``AsyncMemory.intend``, scenario loads), whatever zones its two
times are written in (docs/spec/records.md#intentions); the stored model still reads one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem import DeferredIntention, ValidationError
from graphmem.intentions import coerce_intention

CREATED = datetime(2026, 1, 1, tzinfo=UTC)
zones = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda m: timezone(timedelta(minutes=m)))


def _intention(expires_at: datetime | None) -> dict[str, object]:
    return {"id": "i-1", "action": "call back", "trigger_kind": "shipment",
            "trigger_value": "s-1", "scope": {"tenant": "acme"}, "created_at": CREATED,
            "expires_at": expires_at}


@given(seconds=st.integers(min_value=-10**9, max_value=0), zone=zones)
def test_an_expiry_at_or_before_creation_is_refused_in_any_zone(seconds: int,
                                                               zone: timezone) -> None:
    expiry = (CREATED + timedelta(seconds=seconds)).astimezone(zone)
    with pytest.raises(ValidationError, match="expires_at must be after created_at") as info:
        coerce_intention(_intention(expiry))
    assert info.value.record_ids == ("i-1",) or list(info.value.record_ids) == ["i-1"]


@given(seconds=st.integers(min_value=1, max_value=10**9), zone=zones)
def test_an_expiry_after_creation_is_kept_in_any_zone(seconds: int, zone: timezone) -> None:
    expiry = (CREATED + timedelta(seconds=seconds)).astimezone(zone)
    assert coerce_intention(_intention(expiry)).expires_at == expiry


def test_no_expiry_and_a_stored_lapsed_intention_still_read() -> None:
    assert coerce_intention(_intention(None)).expires_at is None
    # the rule is a write's: an intention stored before it (or read back) is still a model
    assert DeferredIntention.model_validate(_intention(CREATED)).expires_at == CREATED
