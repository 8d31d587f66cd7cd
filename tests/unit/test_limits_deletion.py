"""Bounds on what deletions are given (graphmem.limits): who asks and why, roots, subjects,
redaction terms, request ids, plan and certificate documents; and on the other values
that reach the store: who and why of writes and transitions, JSON Lines line length.
Over a bound is a typed ValidationError naming the field. Through the client, CLI and MCP
on real Neo4j: tests/integration/validation/test_deletion_bounds.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.deletion.certificate import load
from graphmem.deletion.models import DeletionPlan
from graphmem.errors import ValidationError
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import MemoryKind, MemoryRecord
from graphmem.write.imports import iter_jsonl

T0 = datetime(2026, 1, 1, tzinfo=UTC)
L = DEFAULT_LIMITS
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 4999
TENANT = "bounds"


# -- the checks, without a database ----------------------------------------------------------


@pytest.mark.parametrize(("named", "needle"), [
    ({"by": 5}, "by must be a string"),
    ({"reason": ""}, "reason must be a non-empty"),
    ({"reason": "é" * (L.note_bytes // 2 + 1)}, "reason of .r-1. is 16386 bytes"),
    ({"requested_by": "x" * (L.note_bytes + 1)}, "requested_by of .r-1. is"),
    ({"by": "\ud800"}, "by holds a lone surrogate"),
])
def test_notes_over_their_bound_name_the_argument(named: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_notes(["r-1"], **named)


def test_notes_within_their_bound_pass_and_the_bound_is_configurable() -> None:
    L.check_notes(by="x" * L.note_bytes, reason="\U0001f600" * (L.note_bytes // 4))
    L.check_notes(non_empty=False, by="")
    with pytest.raises(ValidationError, match="note_bytes"):
        InputLimits(note_bytes=10).check_notes(by="x" * 11)


@pytest.mark.parametrize(("ids", "needle"), [
    ("r-1", "must be a list of ids"),             # a lone string is not its letters
    ({"r-1": 1}, "must be a list of ids"),
    (["r"] * (L.ids + 1), "InputLimits.ids"),
    (["r" * 257], "at most 256"),
    (["a b"], "U\\+0020"),
    ([7], "must be a string id"),
])
def test_id_lists_over_their_bound(ids: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_ids("roots", ids)


def test_id_lists_keep_order_without_repeats() -> None:
    assert L.check_ids("roots", ["b", "a", "b"]) == ["b", "a"]
    assert InputLimits(ids=2).check_ids("roots", iter(("a", "a"))) == ["a"]
    with pytest.raises(ValidationError, match="more than 2 ids"):
        InputLimits(ids=2).check_ids("roots", ("a", "b", "c"))


@pytest.mark.parametrize(("scope", "needle"), [
    ("tenant=acme", "must be a scope"),
    ({"tenant": ""}, "non-empty strings"),
    ({"tenant": "acme", "user": "u" * 5000}, "scope_bytes"),
    ({"tenant": "acme", "u\ud800": "x"}, "lone surrogate"),
])
def test_subjects_over_their_bound(scope: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_scope("the deletion subject", scope)


@pytest.mark.parametrize(("terms", "needle"), [
    ("Jane Roe", "must be a list of strings"),
    (["t"] * (L.redact_terms + 1), "InputLimits.redact_terms"),
    (["é" * (L.term_bytes // 2 + 1)], "term_bytes"),
    ([b"Jane"], "must be a string"),
    (["Jane\udc00"], "lone surrogate"),
])
def test_terms_over_their_bound(terms: Any, needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        L.check_terms(terms)


def test_terms_are_counted_without_reading_past_the_bound() -> None:
    def endless() -> Iterator[str]:
        while True:
            yield "term"
    with pytest.raises(ValidationError, match="redact_terms"):
        L.check_terms(endless())
    assert L.check_terms(["a", "b"]) == ("a", "b")


@pytest.mark.parametrize(("text", "needle"), [
    ('{"entries": ' + DEEP + "}", "field 'entries' is nested"),
    ('{"version": ' + LONG_INT + "}", "field 'version' holds a number"),
    (b'{"reason": "\xff"}', "not UTF-8"),
])
def test_plan_documents_are_bounded_before_they_are_parsed(text: str | bytes,
                                                           needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        DeletionPlan.from_json(text)


def test_plan_and_certificate_size_bounds() -> None:
    tight = InputLimits(plan_bytes=1024, certificate_bytes=1024)
    big = json.dumps({"reason": "x" * 2000})
    with pytest.raises(ValidationError, match=r"deletion plan is 2014 bytes.*plan_bytes"):
        DeletionPlan.from_json(big, tight)
    with pytest.raises(ValidationError, match="certificate is 2014 bytes"):
        load(big, tight)


@pytest.mark.parametrize("source", [
    DEEP, '{"counts": {"n": ' + LONG_INT + "}}", {"checks": json.loads("[" * 60 + "]" * 60)},
])
def test_certificates_are_bounded_before_they_are_parsed(source: Any) -> None:
    deep: Any = source
    if isinstance(source, dict):  # nested past the bound, built without recursion
        for _ in range(200):
            deep = {"a": deep}
    with pytest.raises(ValidationError, match=r"nested|number"):
        load(deep)


def test_a_document_file_is_read_no_further_than_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    with path.open("wb") as out:
        out.truncate(10 * 1024 * 1024)  # sparse: ten MiB of zero bytes
    with pytest.raises(ValidationError, match="over 1024 bytes"):
        InputLimits(plan_bytes=1024).read_document("deletion plan", path, "plan_bytes")
    with pytest.raises(ValidationError, match="cannot read"):
        L.read_document("deletion plan", tmp_path / "missing.json", "plan_bytes")


def test_import_lines_are_read_within_their_bound(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    tight = InputLimits(line_bytes=1024)
    fits = json.dumps({"id": "a", "content": "x" * 990})
    path.write_text(fits + "\r\n" + json.dumps({"id": "b", "content": "x" * 1100}) + "\n",
                    encoding="utf-8")
    lines = iter_jsonl(path, tight)
    assert next(lines)[0] == 1
    with pytest.raises(ValidationError, match=r"in\.jsonl:2: the line is over 1024 bytes"):
        next(lines)
    # over the bound whatever makes it long: carriage returns after the JSON, or a second
    # record after them, are not a line of their own
    for tail in (b"\r" * 1100, b"\r\r" + json.dumps({"id": "c"}).encode()):
        path.write_bytes(fits.encode() + b"\n" + fits.encode() + tail + b"\n" + fits.encode())
        lines = iter_jsonl(path, tight)
        assert next(lines)[0] == 1
        with pytest.raises(ValidationError, match=r"in\.jsonl:2: the line is over 1024"):
            next(lines)
    # a last line without its line break, as long as the bound allows
    path.write_bytes(fits.encode() + b"\n" + json.dumps({"id": "d", "content": "y" * 998}
                                                         ).encode() + b"\r\r")
    assert [n for n, _ in iter_jsonl(path, tight)] == [1, 2]


# -- through the client, the CLI and MCP, against Neo4j -------------------------------------


def test_an_asserted_value_over_its_bound() -> None:
    rec = MemoryRecord(id="v-1", kind=MemoryKind.SEMANTIC, content="threshold", created_at=T0,
                       scope={"tenant": TENANT}, asserts="refund_threshold",
                       asserted_value="9" * (L.value_bytes + 1))
    with pytest.raises(ValidationError, match=r"asserted_value of 'v-1'.*value_bytes"):
        L.check_record(rec)
    L.check_record(rec.model_copy(update={"asserted_value": "500"}))
