"""The callers the confinement tests share: two users of tenant ``acme``, one of them also
with confidential clearance, and a privacy team's tenant-wide principal
(docs/spec/eligibility.md#rules)."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem import Principal, Sensitivity

__all__ = ["PRIVACY", "T0", "U17", "U17_CONF", "U99"]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
U17 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})
U99 = Principal(tenants=frozenset({"acme"}), scope={"user": "u-99"})
U17_CONF = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.CONFIDENTIAL,
                     scope={"user": "u-17"})
PRIVACY = Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.RESTRICTED)
