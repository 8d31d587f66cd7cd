"""Bounds on every user-supplied value (graphmem.limits): sizes of record fields and intention
actions, JSON depth and number length, JSON Lines files, LangGraph TTLs, decision-state fields
and what the retrieval log keeps of a goal. Over a bound is a typed ValidationError naming the
field. Through the client, CLI and store: tests/integration/validation/test_bounds.py."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import ValidationError
from graphmem.integrations.langgraph.ttl import MAX_TTL_MINUTES, check_ttl
from graphmem.limits import DEFAULT_LIMITS, InputLimits, loads_bounded
from graphmem.models import DeferredIntention, MemoryRecord
from graphmem.read.steps import DecisionState
from graphmem.write.imports import iter_jsonl

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "1" + "0" * 4999


def record(**fields: Any) -> dict[str, Any]:
    return {"id": "b-1", "kind": "semantic", "content": "bounded", "created_at": T0,
            "scope": {"tenant": "bounds"}, **fields}


# -- JSON text, without a database ---------------------------------------------------------


@pytest.mark.parametrize(("line", "field"), [
    ('{"id": "x", "metadata": {"a": ' + DEEP + "}}", "metadata"),
    ('{"id": "x", "metadata": {"n": ' + LONG_INT + "}}", "metadata"),
    ('{"id": "x", "provenance": {"a": [1.' + "5" * 200 + "]}}", "provenance"),
    ('{"scope": {"tenant": "t", "n": -' + LONG_INT + "}}", "scope"),
    ('{"content": "fine", "metadata": ' + '{"a": ' * 70 + "1" + "}" * 70 + "}", "metadata"),
])
def test_json_depth_and_number_length_name_the_field(line: str, field: str) -> None:
    with pytest.raises(ValidationError, match=f"field '{field}'"):
        loads_bounded(line)


def test_a_whole_line_that_is_too_deep_is_named_as_the_line() -> None:
    with pytest.raises(ValidationError, match="the line is nested"):
        loads_bounded(DEEP)


def test_brackets_and_digits_inside_strings_are_text() -> None:
    text = json.dumps({"a": "[" * 1000 + "9" * 5000, "b": "\\\"[[["})
    assert loads_bounded(text) == json.loads(text)


def test_ordinary_json_is_parsed_as_json_loads_does() -> None:
    text = json.dumps({"a": [1, -2.5e-3, {"b": None, "c": True}], "d": 2**63 - 1})
    assert loads_bounded(text) == json.loads(text)


def test_the_bounds_are_configurable() -> None:
    tight = InputLimits(json_depth=3, number_chars=4)
    assert loads_bounded('{"a": [1]}', tight) == {"a": [1]}
    with pytest.raises(ValidationError, match="nested more than 3"):
        loads_bounded('{"a": [[[1]]]}', tight)
    with pytest.raises(ValidationError, match="number of 5"):
        loads_bounded('{"a": 12345}', tight)


def test_jsonl_files_name_the_line_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "ok"}\n\n{"id": "x", "metadata": {"a": ' + DEEP + "}}\n",
                    encoding="utf-8")
    lines = iter_jsonl(path)
    assert next(lines) == (1, {"id": "ok"})
    with pytest.raises(ValidationError, match=r"in\.jsonl:3: field 'metadata' is nested"):
        next(lines)


@pytest.mark.parametrize(("line", "key"), [
    ('{"id": "f3", "content": "x", "id": "f4"}', "id"),
    ('{"id": "f3", "content": "Jane Roe", "content": "a note"}', "content"),
    ('{"id": "f3", "scope": {"tenant": "acme", "user": "u-17", "user": "u-99"}}', "user"),
    ('{"id": "f3", "metadata": [{"a": 1, "\\u0061": 2}]}', "a"),
])
def test_a_key_given_twice_in_one_object_is_refused(tmp_path: Path, line: str, key: str
                                                    ) -> None:
    """JSON leaves an object with a key twice undefined: json.loads kept the last, so a line
    a reviewer (or a parser that keeps the first) read as record f3 in u-17's scope was
    imported as f4, or in u-99's, and the other value was lost without a word."""
    with pytest.raises(ValidationError, match=f"key {key!r} twice"):
        loads_bounded(line)
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "ok"}\n' + line + "\n", encoding="utf-8")
    lines = iter_jsonl(path)
    assert next(lines) == (1, {"id": "ok"})
    with pytest.raises(ValidationError, match=rf"in\.jsonl:2: .*key {key!r} twice"):
        next(lines)


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_an_unreadable_file_is_a_validation_error(tmp_path: Path, where: str) -> None:
    path = tmp_path / "missing.jsonl" if where == "missing" else tmp_path
    with pytest.raises(ValidationError, match="cannot read"):
        list(iter_jsonl(path))


# -- values, without a database ------------------------------------------------------------


@pytest.mark.parametrize(("fields", "name"), [
    ({"metadata": {"blob": "x" * (DEFAULT_LIMITS.metadata_bytes + 1)}}, "metadata"),
    ({"metadata": {"n": [[[[1.5e300]]]], "m": 10**70}}, "metadata"),
    ({"provenance": {"source": "é" * (DEFAULT_LIMITS.provenance_bytes // 2)}}, "provenance"),
])
def test_record_fields_over_their_bound(fields: dict[str, Any], name: str) -> None:
    rec = MemoryRecord.model_validate(record(**fields))
    with pytest.raises(ValidationError, match=name) as caught:
        DEFAULT_LIMITS.check_record(rec)
    assert caught.value.record_ids == ("b-1",)


def test_an_action_over_its_bound() -> None:
    intention = DeferredIntention(id="i-1", action="a" * (DEFAULT_LIMITS.action_bytes + 1),
                                  trigger_kind="k", trigger_value="v",
                                  scope={"tenant": "bounds"}, created_at=T0)
    with pytest.raises(ValidationError, match="action of 'i-1'"):
        DEFAULT_LIMITS.check_intention(intention)


@pytest.mark.parametrize(("fields", "name"), [
    ({"goal": "g" * (64 * 1024 + 1)}, "goal"),
    ({"subtask": "\U0001f600" * (16 * 1024 + 1)}, "subtask"),
    ({"last_observation": "o" * (64 * 1024 + 1)}, "last_observation"),
    ({"entities": ("e",) * 257}, "entities"),
    ({"entities": ("e" * 1025,)}, "entity"),
    ({"event": {"k": "v" * 1025}}, "event"),
    ({"event": {"k" * 1025: "v"}}, "cue kind"),
    ({"event": {f"k{n}": "v" for n in range(257)}}, "event_cues"),
])
def test_decision_state_fields_over_their_bound(fields: dict[str, Any], name: str) -> None:
    state = DecisionState(memory_scope={"tenant": "bounds"}, **fields)
    with pytest.raises(ValidationError, match=name):
        DEFAULT_LIMITS.check_decision(state)


def test_the_logged_query_is_cut_to_its_bound() -> None:
    assert DEFAULT_LIMITS.logged_query("short") == "short"
    cut = DEFAULT_LIMITS.logged_query("q" * 2_400_000)
    assert len(cut) == DEFAULT_LIMITS.logged_query_chars and cut.endswith("\u2026")


@pytest.mark.parametrize("ttl", [math.inf, -math.inf, math.nan, 1e15, -5, 0, -0.0, True,
                                 "5", MAX_TTL_MINUTES + 1])
def test_bad_ttls_are_validation_errors(ttl: Any) -> None:
    with pytest.raises(ValidationError, match="ttl"):
        check_ttl(ttl)


def test_good_ttls_pass() -> None:
    assert check_ttl(None) is None
    assert check_ttl(10) == 10.0
    assert check_ttl(0.5) == 0.5
    assert check_ttl(MAX_TTL_MINUTES) == float(MAX_TTL_MINUTES)


# -- through the client, the CLI and the LangGraph store, against Neo4j ----------------------


def test_a_configured_cue_bound_applies_to_intentions_and_events() -> None:
    tight = InputLimits(cue_bytes=8)
    intention = DeferredIntention(id="i-1", action="act", trigger_kind="topic",
                                  trigger_value="a-long-cue", scope={"tenant": "bounds"},
                                  created_at=T0)
    with pytest.raises(ValidationError, match="trigger_value of 'i-1'"):
        tight.check_intention(intention)
    with pytest.raises(ValidationError, match="event"):
        tight.check_event({"topic": "a-long-cue"})
    with pytest.raises(ValidationError, match="action_id"):
        tight.check_label("action_id", "a-long-action")
    tight.check_event({"topic": "short"})




def test_an_event_holds_at_most_event_cues_cues() -> None:
    """An event had no bound on its number of cues: 100,000 cues of 1 KiB each were each
    checked, digested and sought (seconds of work) before anything could be refused."""
    DEFAULT_LIMITS.check_event({f"k{n}": "v" for n in range(256)})
    with pytest.raises(ValidationError, match=r"257 cues.*InputLimits.event_cues: 256"):
        DEFAULT_LIMITS.check_event({f"k{n}": "v" for n in range(257)})
    tight = InputLimits(event_cues=2)
    tight.check_event({"a": "1", "b": "2"})
    tight.check_event(None)
    with pytest.raises(ValidationError, match="event_cues"):
        tight.check_event({"a": "1", "b": "2", "c": "3"})
    with pytest.raises(ValidationError, match="event_cues"):
        tight.check_decision(DecisionState(memory_scope={"tenant": "bounds"},
                                           event={"a": "1", "b": "2", "c": "3"}))
    with pytest.raises(ValueError):
        InputLimits(event_cues=0)


@pytest.mark.parametrize("event", [{"k\ud800": "v"}, {"k": "v\udfff"}, {1: "v"}, {"k": 1},
                                   {None: "v"}, {b"k": "v"}])
def test_an_event_that_is_no_text_is_a_validation_error(event: dict[Any, Any]) -> None:
    """A lone surrogate in an event's cue was a raw UnicodeEncodeError out of due and
    process_event (the cue's digest encodes it), and a key that is no string a raw
    TypeError while its message was made."""
    with pytest.raises(ValidationError, match="event"):
        DEFAULT_LIMITS.check_event(event)


BOM = "\ufeff"


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_byte_order_mark_at_the_start_of_a_file_is_not_its_text(tmp_path: Path,
                                                                   ending: str) -> None:
    """A file a Windows tool wrote (Notepad, PowerShell's Out-File) starts with a UTF-8 BOM:
    its first line was refused as "not JSON"."""
    path = tmp_path / "bom.jsonl"
    path.write_text(BOM + ending.join(['{"id": "a"}', '{"id": "b"}']) + ending,
                    encoding="utf-8", newline="")
    assert list(iter_jsonl(path)) == [(1, {"id": "a"}), (2, {"id": "b"})]
    path.write_text(BOM + ending + '{"id": "a"}' + ending, encoding="utf-8", newline="")
    assert list(iter_jsonl(path)) == [(2, {"id": "a"})]  # a blank first line, then a record
    path.write_bytes(BOM.encode())
    assert list(iter_jsonl(path)) == []
    at_bound = '{"id": "' + "x" * (1024 - 10) + '"}'
    path.write_text(BOM + at_bound + "\n", encoding="utf-8")  # the mark counts to no line
    assert list(iter_jsonl(path, InputLimits(line_bytes=1024))) == [(1, {"id": "x" * 1014})]


@pytest.mark.parametrize("text", [
    '{"id": "a"}\n' + BOM + '{"id": "b"}\n',  # at the start of a later line
    BOM + BOM + '{"id": "a"}\n',  # a second one
    ' ' + BOM + '{"id": "a"}\n',  # after a space
])
def test_a_byte_order_mark_anywhere_else_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bom\.jsonl:\d"):
        list(iter_jsonl(path))


def test_a_stretch_after_the_start_keeps_a_mark_as_text(tmp_path: Path) -> None:
    """A stretch read from a later offset (a part of an initial load) starts at a line, not
    at the file's start: a mark there is on a later line, refused as anywhere else."""
    path = tmp_path / "bom.jsonl"
    first = '{"id": "a"}\n'
    path.write_text(first + BOM + '{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bom\.jsonl:2"):
        list(iter_jsonl(path, start=len(first), first_line=2))
