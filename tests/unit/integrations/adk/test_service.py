"""The ADK memory service's own conversions: an event ADK hands over with a timestamp no
datetime can hold is a graphmem error, as the service promises for every error."""

from __future__ import annotations

import pytest
from google.adk.events.event import Event
from google.genai import types

from graphmem.errors import ValidationError
from graphmem.integrations.adk.service import _turn


@pytest.mark.parametrize("timestamp", [float("nan"), float("inf"), -float("inf"), 1e20, -1e20,
                                       253402300800.0])
def test_an_event_time_outside_the_calendar_is_a_validation_error(timestamp: float) -> None:
    """Was a raw ValueError (NaN, year 10000) or OverflowError (past time_t) out of
    ``add_session_to_memory``."""
    event = Event(author="user", timestamp=timestamp, id="e-1",
                  content=types.Content(role="user", parts=[types.Part(text="hello")]))
    with pytest.raises(ValidationError, match="e-1"):
        _turn(event)


def test_an_event_time_in_the_calendar_is_its_utc_time() -> None:
    event = Event(author="user", timestamp=1767225600.0, id="e-2",
                  content=types.Content(role="user", parts=[types.Part(text="hello")]))
    turn = _turn(event)
    assert turn is not None and turn.at is not None
    assert turn.at.isoformat() == "2026-01-01T00:00:00+00:00"
