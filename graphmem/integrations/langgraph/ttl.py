"""Time-to-live of LangGraph store items (LangGraph's ``put(..., ttl=minutes)``): checked
before anything is written."""

from __future__ import annotations

from graphmem.errors import ValidationError

__all__ = ["MAX_TTL_MINUTES", "check_ttl"]


MAX_TTL_MINUTES = 1000 * 366 * 24 * 60
"""The longest TTL a put accepts, in minutes (a thousand years): ``now + ttl`` stays inside
the range of datetimes (a TTL of 1e15 minutes was a raw OverflowError)."""


def check_ttl(ttl: object) -> float | None:
    """A put's TTL in minutes, checked: None (no expiry) or a finite number with
    0 < ttl <= :data:`MAX_TTL_MINUTES`.

    Raises:
        ValidationError: not a number (a bool is none), NaN, infinite, zero or negative (the
            item would never be visible), or over the maximum.
    """
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise ValidationError(f"ttl must be a number of minutes or None, got "
                              f"{type(ttl).__name__}")
    if not 0 < ttl <= MAX_TTL_MINUTES:  # NaN compares False: refused here too
        raise ValidationError(f"ttl must be a finite number of minutes in (0, "
                              f"{MAX_TTL_MINUTES}], got {ttl!r}")
    return float(ttl)
