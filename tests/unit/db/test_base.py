"""The store's clock (graphmem.db.base.StoreBase.clock) is read as a call's ``now`` is: a clock
given to ``Memory.connect`` that returns a naive datetime or no datetime at all is a
ValidationError when read. A naive time was stored as the write decision's local time, and a
string a raw AttributeError out of ``write``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from graphmem.db.base import StoreBase
from graphmem.errors import NaiveDatetimeError, ValidationError
from graphmem.fields import utc_now


def store(clock: Any) -> StoreBase:
    return StoreBase(driver=None, clock=clock)  # type: ignore[arg-type]  # never connected


@pytest.mark.parametrize(("reading", "error"), [
    (datetime(2026, 1, 1), NaiveDatetimeError), ("2026-01-01T00:00:00Z", ValidationError),
    (1_700_000_000, ValidationError), (None, ValidationError),
    (datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))), ValidationError)])
def test_a_clock_reading_no_aware_time_is_refused(reading: Any, error: type[Exception]
                                                  ) -> None:
    with pytest.raises(error, match="clock"):
        store(lambda: reading).clock()


def test_a_clock_in_another_zone_reads_as_utc() -> None:
    at = datetime(2026, 3, 4, 10, 36, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    read = store(lambda: at).clock()
    assert read == at and read.tzinfo is UTC


def test_the_default_clock_is_kept_as_it_is() -> None:
    assert store(utc_now).clock is utc_now
