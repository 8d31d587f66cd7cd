"""What a bulk import prepares without the database (graphmem.db.records, docs/spec/records.md):
records checked already are prepared exactly as the checking path prepares them, and an import's
first check against the store fingerprints only the ids that are stored."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from neo4j import ManagedTransaction

from graphmem.db.codec import record_fingerprint, record_props
from graphmem.db.records import RecordWrites
from graphmem.errors import RecordConflictError, ValidationError
from graphmem.fields import scope_problem
from graphmem.limits import DEFAULT_LIMITS
from graphmem.models import MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class _Writes(RecordWrites):
    """RecordWrites without a driver: the stored rows are given, the rest is pure."""

    def __init__(self, stored: list[dict[str, Any]] | None = None) -> None:
        self.limits = DEFAULT_LIMITS
        self.max_content_bytes = 64 * 1024
        self.stored = stored or []

    def _existing(self, tx: ManagedTransaction, ids: Iterable[str]
                  ) -> dict[str, dict[str, Any]]:
        wanted = set(ids)
        return {row["id"]: row for row in self.stored if row["id"] in wanted}

    def check_thread_slots(self, tx: ManagedTransaction, todo: Sequence[MemoryRecord]
                           ) -> None:
        pass

    def todo(self) -> list[str]:
        """The ids of BATCH still to create (an import's first check, without fingerprints)."""
        records = [MemoryRecord.model_validate(r) for r in BATCH]
        return [r.id for r in self.prepare_in_tx(cast(ManagedTransaction, None), records)]


BATCH: list[dict[str, Any]] = [
    {"id": "a", "kind": "episodic", "content": "caf\u00e9 \u597d", "created_at": T0,
     "scope": {"tenant": "t", "user": "\u00e9l\u00e8ve"}, "provenance": {"source": "chat"}},
    {"id": "b", "kind": "semantic", "content": "summary", "created_at": T0,
     "scope": {"tenant": "t"}, "derived_from": ["a"], "metadata": {"level": 1, "x": [1.5]},
     "asserts": "k", "asserted_value": "v", "expires_at": T0.replace(year=2027)},
    {"id": "c", "kind": "semantic", "content": "thread", "created_at": T0,
     "scope": {"tenant": "t"}, "thread": "th", "position": 3, "supersedes": ["b"]},
]


def test_checked_records_are_prepared_as_the_checking_path_prepares_them() -> None:
    writes = _Writes()
    checked = writes.prepare_batch(BATCH)
    again = writes.prepare_checked(checked.records)
    assert again == checked
    assert again.rows["a"]["props"]["scope_json"] == json.dumps(
        BATCH[0]["scope"], sort_keys=True, ensure_ascii=False)
    assert again.rows["b"]["props"]["metadata_json"] == '{"level": 1, "x": [1.5]}'
    assert again.rows["a"]["props"]["metadata_json"] == "{}"
    assert again.rows["a"]["props"]["provenance_json"] == '{"source": "chat"}'
    # the same as the props every other path stores
    for rec in checked.records:
        props = record_props(rec, fingerprint=checked.fingerprints[rec.id])
        for key in ("scope_json", "provenance_json", "metadata_json", "fingerprint"):
            assert checked.rows[rec.id]["props"][key] == props[key]


def test_the_checking_path_still_refuses_what_the_checked_path_assumes() -> None:
    writes = _Writes()
    with pytest.raises(ValidationError):
        writes.prepare_batch([BATCH[0], BATCH[0]])  # an id twice
    with pytest.raises(ValidationError):
        writes.prepare_batch([{**BATCH[0], "scope": {"user": "u"}}])  # no tenant


def test_an_import_check_compares_the_fingerprint_of_stored_ids_only() -> None:
    same = record_fingerprint(MemoryRecord.model_validate(BATCH[0]))
    assert _Writes([{"id": "a", "fingerprint": same, "erased": False}]).todo() == ["b", "c"]
    assert _Writes().todo() == ["a", "b", "c"]
    with pytest.raises(RecordConflictError) as caught:
        _Writes([{"id": "b", "fingerprint": same, "erased": False}]).todo()
    assert list(caught.value.record_ids) == ["b"]


@pytest.mark.parametrize("scope", [
    {"tenant": "t"}, {"user": "u"}, {"tenant": ""}, {"tenant": 1}, {"tenant": True},
    {"tenant": "t", "x": ["unhashable"]}, {"tenant": "t", "k": "v" * 5000},
    {"tenant": "t\ud800"},
])
def test_a_scope_is_judged_the_same_every_time(scope: dict[str, Any]) -> None:
    first = scope_problem(scope)
    assert scope_problem(dict(scope)) == first
    assert scope_problem(dict(reversed(scope.items()))) == first
    assert (first is None) == (scope == {"tenant": "t"})
