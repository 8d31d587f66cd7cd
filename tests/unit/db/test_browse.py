"""The recent-records read refuses what the store cannot take before asking it anything."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

import pytest

from graphmem.db.browse import Browsing
from graphmem.errors import ValidationError
from graphmem.models import Principal


@pytest.mark.parametrize("offset", [-1, 2**63 - 5, 2**63, 2**70, True, "3"])
def test_an_offset_that_is_no_64_bit_count_is_a_validation_error(offset: object) -> None:
    """2**70 was a raw OverflowError from the driver (the MCP ``recent`` tool's offset), and
    2**63 - 1 a StoreError (Neo4j adds the limit to it)."""
    principal = Principal(tenants=frozenset({"acme"}))
    with pytest.raises(ValidationError, match="offset"):
        Browsing.recent(cast(Any, None), principal, {"tenant": "acme"},
                        datetime(2026, 1, 1, tzinfo=UTC), limit=5, offset=cast(Any, offset))
