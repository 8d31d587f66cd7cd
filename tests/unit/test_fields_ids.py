"""Ids with whitespace, control or invisible format characters, or over 256 characters, are
refused with a ValidationError naming the id and the character (graphmem.fields.id_problem,
docs/spec/records.md); visible ids of any script are accepted."""

from __future__ import annotations

import sys
import unicodedata

import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.fields import MAX_ID_CHARS, id_problem
from graphmem.models import DeferredIntention, MemoryRecord
from tests.support.ids import ISSUE_INPUTS, T0, record

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


@given(ch=st.sampled_from(IGNORABLE), head=st.text(st.characters(
    categories=["L", "N"], exclude_characters="".join(IGNORABLE)), max_size=5))
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




def test_every_ascii_character_is_judged_by_its_unicode_category() -> None:
    # ASCII ids take a shortcut: it must refuse exactly the characters the full rule refuses
    for code in range(128):
        ch = chr(code)
        refused = unicodedata.category(ch) in {"Zs", "Zl", "Zp", "Cc", "Cf", "Cs"}
        for rid in (ch, f"a{ch}", f"{ch}b", f"a{ch}b"):
            problem = id_problem(rid)
            assert (problem is not None) == refused, (code, problem)
            if refused:
                assert problem is not None and f"U+{code:04X}" in problem
