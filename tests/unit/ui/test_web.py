"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.errors import (
    AuthorizationError,
    GraphmemError,
    OutOfReachError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.ui.web import form_int, form_time, status_for


def test_form_readers() -> None:
    assert form_time("") is None
    assert form_time("2026-01-31T12:00") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    assert form_time("2026-01-31T14:00+02:00") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    assert form_int(None, "k", 7, 1, 9) == 7 and form_int("3", "k", 7, 1, 9) == 3
    for bad in ("yesterday", "31/01/2026"):
        with pytest.raises(ValidationError):
            form_time(bad)
    for bad in ("x", "0", "10", "1.5"):
        with pytest.raises(ValidationError):
            form_int(bad, "k", 7, 1, 9)


def test_statuses_map_to_pages() -> None:
    assert status_for(OutOfReachError("x")) == 404  # as an unknown id, not 403
    assert status_for(RecordNotFoundError("x")) == 404
    assert status_for(AuthorizationError("x")) == 403
    assert status_for(ValidationError("x")) == 400
    assert status_for(GraphmemError("x")) == 500


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-12:00", "9999-12-31T23:59-05:00",
                                  "0001-01-01T00:00+14:00"])
def test_a_time_whose_utc_form_is_outside_the_calendar_is_bad_input(text: str) -> None:
    # Was a raw OverflowError from astimezone: a 500 page for ?at=, ?after=, ?before=
    with pytest.raises(ValidationError, match="outside the range"):
        form_time(text, "at")
