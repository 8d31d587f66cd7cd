"""Redaction of a value (graphmem.deletion.redaction): idempotent, JSON stays valid, and the
structural keys (ids, scopes, enums, digests) are never redacted (docs/spec/deletion.md)."""

from __future__ import annotations

import json

import pytest

from graphmem.deletion.redaction import (
    STRUCTURAL_KEYS,
    holds_term,
    matcher_of,
    redact_value,
)


@pytest.mark.parametrize("terms", [["CANARY-7731"], ["redact"], ['a"b\\c']])
def test_redaction_is_idempotent_and_keeps_json_valid(terms: list[str]) -> None:
    pattern = matcher_of(terms)
    raw = json.dumps({"CANARY-7731": 'x a"b\\c y', "n": [1, "canary-7731"], "redacted": 2},
                     sort_keys=True, ensure_ascii=False)
    once = redact_value("metadata_json", raw, pattern)
    assert json.loads(once)  # still JSON
    assert redact_value("metadata_json", once, pattern) == once
    assert not holds_term("metadata_json", once, pattern)
    assert redact_value("note", "[REDACTED] and CANARY-7731", matcher_of(["canary-7731"])
                        ) == "[REDACTED] and [REDACTED]"
    assert redact_value("tags", ["a", "canary-7731"], matcher_of(["CANARY-7731"])) == [
        "a", "[REDACTED]"]


def test_structural_keys_are_ids_scopes_enums_and_digests() -> None:
    assert {"id", "tenant", "scope_json", "digest", "kind"} <= STRUCTURAL_KEYS
    free_text = {"content", "reason", "query", "action", "action_id", "by", "retracted_reason",
                 "trigger_value", "trigger_kind", "provenance_json", "metadata_json", "note",
                 "requested_by"}
    assert not free_text & STRUCTURAL_KEYS


