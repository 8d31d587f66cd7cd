"""Ids with whitespace, control or invisible format characters, or over
256 characters, are refused with a ValidationError naming the id and the character, and
nothing is written (docs/spec/records.md); the same for intention and deletion request ids."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.deletion.models import DeletionPlan
from graphmem.deletion.plan import plan_deletion
from graphmem.errors import DeletionError, ValidationError
from graphmem.fields import MAX_ID_CHARS, id_problem
from graphmem.models import DeferredIntention, MemoryRecord

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ISSUE_INPUTS = [(" pad", "U+0020"), ("zw\u200b", "U+200B"), ("tab\tid", "U+0009")]
# more of the kind: other spaces, line/paragraph separators, controls, zero-width and bidi
# format characters, BOM, soft hyphen, Hangul filler
MORE = [("nb\u00a0sp", "U+00A0"), ("ideo\u3000", "U+3000"), ("line\u2028", "U+2028"),
        ("para\u2029x", "U+2029"), ("nl\n", "U+000A"), ("nul\x00", "U+0000"),
        ("del\x7f", "U+007F"), ("c1\x85", "U+0085"), ("\ufeffbom", "U+FEFF"),
        ("zwj\u200d", "U+200D"), ("zwnj\u200c", "U+200C"), ("wj\u2060", "U+2060"),
        ("lrm\u200e", "U+200E"), ("rlm\u200f", "U+200F"), ("rlo\u202eevil", "U+202E"),
        ("iso\u2066x\u2069", "U+2066"), ("alm\u061c", "U+061C"), ("shy\u00ad", "U+00AD"),
        ("fill\u3164", "U+3164"), ("mvs\u180e", "U+180E"), ("vs16\ufe0f", "U+FE0F"),
        ("cgj\u034f", "U+034F")]


def record(rid: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": "c", "created_at": T0,
            "scope": {"tenant": "t"}}


@pytest.mark.parametrize(("rid", "code"), ISSUE_INPUTS + MORE)
def test_bad_ids_are_named_with_their_character(rid: str, code: str) -> None:
    problem = id_problem(rid)
    assert problem is not None and code in problem and repr(rid) in problem
    with pytest.raises(pydantic.ValidationError):
        MemoryRecord.model_validate(record(rid))
    with pytest.raises(pydantic.ValidationError):
        DeferredIntention(id=rid, action="a", trigger_kind="k", trigger_value="v",
                          scope={"tenant": "t"}, created_at=T0)


def test_length_limit() -> None:
    assert id_problem("x" * MAX_ID_CHARS) is None
    assert "257 characters" in (id_problem("x" * (MAX_ID_CHARS + 1)) or "")
    assert id_problem("漢" * MAX_ID_CHARS) is None  # characters, not bytes
    assert id_problem("") is not None


FORBIDDEN = [chr(c) for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)) in {"Zs", "Zl", "Zp", "Cc", "Cf"}]


@given(ch=st.sampled_from(FORBIDDEN), head=st.text(st.characters(categories=["L", "N"]),
                                                   max_size=5),
       tail=st.text(st.characters(categories=["L", "N"]), max_size=5))
def test_every_invisible_or_blank_character_is_refused(ch: str, head: str, tail: str) -> None:
    problem = id_problem(head + ch + tail)
    assert problem is not None and f"U+{ord(ch):04X}" in problem


# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt), written out here
# rather than taken from the property the code uses: what renders as nothing
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
                     (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
                     (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
                     (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                     (0xE0000, 0xE0FFF)]
IGNORABLE = [chr(c) for lo, hi in DEFAULT_IGNORABLE for c in range(lo, hi + 1)]


@given(ch=st.sampled_from(IGNORABLE), head=st.text(st.characters(categories=["L", "N"]),
                                                   max_size=5))
def test_every_default_ignorable_character_is_refused(ch: str, head: str) -> None:
    """Variation selectors, the combining grapheme joiner, Hangul fillers...: 'a' and 'a' with
    an invisible character after it would be two ids that look the same."""
    problem = id_problem(head + "a" + ch)
    assert problem is not None and f"U+{ord(ch):04X}" in problem


VISIBLE = st.text(st.characters(categories=["L", "M", "N", "P", "S"],
                                exclude_characters="".join(IGNORABLE)),
                  min_size=1, max_size=MAX_ID_CHARS)


@given(rid=VISIBLE)
def test_visible_ids_of_any_script_are_accepted(rid: str) -> None:
    assert id_problem(rid) is None


def test_nothing_is_written_for_a_bad_id(memory: Memory) -> None:
    for rid, code in ISSUE_INPUTS:
        for write in (memory.put, lambda r: memory.put_many([record("good"), r]),
                      lambda r: memory.write(r, now=T0)):
            with pytest.raises(ValidationError) as err:
                write(record(rid))
            assert code in str(err.value) and repr(rid) in str(err.value)
            assert err.value.record_ids == (rid,)
        with pytest.raises(ValidationError, match=re.escape(code)):
            memory.intend({"id": rid, "action": "call back", "trigger_kind": "entity",
                           "trigger_value": "u1", "scope": {"tenant": "t"},
                           "created_at": T0})
    assert store_of(memory).counts() == {}  # no record, decision, scope or intention


def test_deletion_request_ids(memory: Memory) -> None:
    memory.put(record("r1"))
    for rid, code in ISSUE_INPUTS:
        with pytest.raises(ValidationError, match=re.escape(code)):
            plan_deletion(store_of(memory), roots=["r1"], requested_by="p", reason="r",
                          request_id=rid)
    plan = plan_deletion(store_of(memory), roots=["r1"], requested_by="p", reason="r",
                         request_id="del-ok")
    # a saved plan edited to carry a bad id is refused on load, before anything is applied
    tampered = plan.to_json().replace('"del-ok"', '"del\\u200bok"')
    with pytest.raises(DeletionError, match="malformed"):
        DeletionPlan.from_json(tampered)
    assert store_of(memory).counts().get("DeletionRequest") is None
    assert memory.get("r1").id == "r1"


def _unvalidated(rid: str, how: str) -> MemoryRecord:
    """A record instance carrying a bad id: pydantic builds these without validation."""
    good = MemoryRecord.model_validate(record("good-template"))
    if how == "copy":
        return good.model_copy(update={"id": rid})
    return MemoryRecord.model_construct(**{**dict(good), "id": rid})


WRITE_PATHS: dict[str, Callable[[Memory, MemoryRecord], object]] = {
    "put": lambda m, r: m.put(r),
    "put_many": lambda m, r: m.put_many([r]),
    "put_stream": lambda m, r: list(m.put_stream([[r]])),
    "write": lambda m, r: m.write(r, now=T0),
    "supersede": lambda m, r: m.supersede(["old"], r, by="a", reason="r"),
    "consolidate": lambda m, r: m.consolidate(["old", "old2"], into=r, by="a", reason="r"),
}


@pytest.mark.parametrize("how", ["copy", "construct"])
@pytest.mark.parametrize("path", sorted(WRITE_PATHS))
def test_an_unvalidated_instance_cannot_bypass_the_id_rule(memory: Memory, path: str,
                                                           how: str) -> None:
    """Every write path validates a record instance again, so a bad id slipped in with
    ``model_copy(update=...)`` or ``model_construct`` is refused and nothing is written; the
    same for intentions."""
    memory.put_many([record("old"), {**record("old2"), "content": "d"}])
    before = store_of(memory).counts()
    for rid, code in [*ISSUE_INPUTS, ("x" * (MAX_ID_CHARS + 1), "257 characters")]:
        with pytest.raises(ValidationError, match=re.escape(code)):
            WRITE_PATHS[path](memory, _unvalidated(rid, how))
    assert store_of(memory).counts() == before
    intention = DeferredIntention(id="i1", action="call back", trigger_kind="entity",
                                  trigger_value="u1", scope={"tenant": "t"}, created_at=T0)
    bad = (intention.model_copy(update={"id": "i\u200b1"}) if how == "copy" else
           DeferredIntention.model_construct(**{**dict(intention), "id": "i\u200b1"}))
    with pytest.raises(ValidationError, match="U\\+200B"):
        memory.intend(bad)
    assert store_of(memory).counts() == before
