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




def test_a_number_and_a_json_value_inside_json_are_redacted_as_json() -> None:
    """A number the term names is text of the property too, and a ``*_json`` string inside
    JSON (a LangGraph item's value) stays JSON: redacted as text, ``"phone": 5551234`` left
    ``"phone": [REDACTED]``, which no reader decodes."""
    pattern = matcher_of(["5551234", "Jane Roe"])
    inner = json.dumps({"name": "Jane Roe", "phone": 5551234, "age": 42, "ok": True})
    raw = json.dumps({"langgraph": {"value_json": inner, "key": "k"}, "phone": 5551234.0})
    assert holds_term("metadata_json", json.dumps({"phone": 5551234}), pattern)
    once = redact_value("metadata_json", raw, pattern)
    decoded = json.loads(once)
    assert decoded["phone"] == "[REDACTED].0"
    assert json.loads(decoded["langgraph"]["value_json"]) == {
        "name": "[REDACTED]", "phone": "[REDACTED]", "age": 42, "ok": True}
    assert not holds_term("metadata_json", once, pattern)
    assert redact_value("metadata_json", once, pattern) == once
    assert redact_value("metadata_json", json.dumps({"n": 5551230}), pattern) == json.dumps(
        {"n": 5551230})


def test_a_json_string_without_a_term_is_kept_as_written() -> None:
    """A ``*_json`` string inside JSON that holds no term stays byte for byte what it was: it
    was decoded and encoded again, so a redaction elsewhere in the record rounded a long
    decimal (``12345678901234567890.5``), dropped a repeated key and respaced the text of a
    field that named no erased term."""
    pattern = matcher_of(["Jane Roe"])
    kept = ['{"a":1,"a":2}', "12345678901234567890.5", '{"n": 1e400}', '[1,2]']
    raw = json.dumps({"who": "Jane Roe", **{f"k{i}_json": v for i, v in enumerate(kept)}})
    decoded = json.loads(redact_value("metadata_json", raw, pattern))
    assert decoded["who"] == "[REDACTED]"
    assert [decoded[f"k{i}_json"] for i in range(len(kept))] == kept
