"""Which records a status filter of the records list reads rows of (graphmem.db.ops.listing):
on every combination of the status flags and time conditions, :func:`may_have` keeps a record
for exactly the status the precedence of ``cypher/parts/record_status.cypher`` gives it (and,
for SUPERSEDED, an ACTIVE one some record supersedes), so no record of that status is left out
and no other is read. No database."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.db import catalogue as cypher
from graphmem.db.browse import LISTED_STATUSES
from graphmem.db.ops.listing import FLAG_STATUSES, StatusFacts, may_have
from graphmem.models import Status

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)
DAY = timedelta(days=1)
FLAGS = tuple(status.value.lower() for status in FLAG_STATUSES)
TIMES = ("created_later", "valid_later", "no_valid_from", "expired", "no_expiry", "superseded")
COMBOS = [dict(zip(FLAGS + TIMES, bits, strict=True))
          for bits in itertools.product((False, True), repeat=len(FLAGS) + len(TIMES))]


def _expected(combo: dict[str, bool]) -> Status:
    """The first status of the precedence whose condition holds, successors counting."""
    holds = {status: combo[status.value.lower()] for status in FLAG_STATUSES}
    holds |= {Status.NOT_YET_VALID: combo["created_later"]
              or (combo["valid_later"] and not combo["no_valid_from"]),
              Status.EXPIRED: combo["expired"] and not combo["no_expiry"],
              Status.SUPERSEDED: combo["superseded"], Status.ACTIVE: True}
    return next(status for status in LISTED_STATUSES if holds[status])


def _facts(combo: dict[str, bool]) -> StatusFacts:
    facts: dict[str, Any] = {flag: combo[flag] for flag in FLAGS}
    facts["valid_from"] = None if combo["no_valid_from"] else (
        NOW + DAY if combo["valid_later"] else NOW - DAY)
    facts["expires_at"] = None if combo["no_expiry"] else (
        NOW - DAY if combo["expired"] else NOW + DAY)
    facts["superseded"] = combo["superseded"]
    return StatusFacts.of(facts, NOW + DAY if combo["created_later"] else NOW - 2 * DAY)


def test_each_status_keeps_exactly_its_records() -> None:
    """A record is kept for its own status and for no other (but a superseded one, which the
    ACTIVE filter reads too: whether its successor counts is the rows query's); every status
    is reached."""
    reached = set()
    for combo in COMBOS:
        want = _expected(combo)
        reached.add(want)
        facts = _facts(combo)
        kept = {status for status in LISTED_STATUSES if may_have(facts, status, NOW)}
        assert kept == ({want, Status.ACTIVE} if want is Status.SUPERSEDED else {want}), combo
    assert reached == set(LISTED_STATUSES)


def test_a_superseded_record_whose_successor_does_not_count_is_kept_for_active_too() -> None:
    """Whether a successor counts for the caller at a time is the rows query's: a record some
    record supersedes is read for both filters."""
    facts = _facts(dict.fromkeys(FLAGS + TIMES, False) | {"superseded": True})
    assert may_have(facts, Status.SUPERSEDED, NOW)
    assert may_have(facts, Status.ACTIVE, NOW)


def test_the_boundaries_are_the_parts() -> None:
    """Created or valid at ``now`` is valid; expiring at ``now`` is expired (as the part's
    ``now < r.valid_from`` and ``now >= r.expires_at``)."""
    at_now = StatusFacts.of({"valid_from": NOW, "expires_at": None}, NOW)
    assert may_have(at_now, Status.ACTIVE, NOW)
    assert not may_have(at_now, Status.NOT_YET_VALID, NOW)
    assert may_have(StatusFacts.of({"expires_at": NOW}, NOW - DAY), Status.EXPIRED, NOW)
    later = StatusFacts.of({}, NOW + timedelta(microseconds=1))
    assert may_have(later, Status.NOT_YET_VALID, NOW)
    # the later of created_at and valid_from: an early valid_from does not make it live
    assert may_have(StatusFacts.of({"valid_from": NOW - DAY}, NOW + DAY), Status.NOT_YET_VALID,
                    NOW)


def test_the_flags_are_the_parts_in_its_order() -> None:
    """The flag statuses are those the part decides by a property of the same name, in its
    order."""
    flags = re.findall(r"WHEN\s+r\.([a-z_]+)\s+THEN\s+'([A-Z_]+)'", cypher.part("record_status"))
    assert [(Status(status), prop) for prop, status in flags] == [
        (status, status.value.lower()) for status in FLAG_STATUSES]
