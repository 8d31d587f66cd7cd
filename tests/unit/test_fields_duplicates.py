# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""One normalisation for duplicate detection (graphmem.fields.duplicate_text,
docs/spec/write-path.md): NFKC, case-folded as every comparison folds (fold_case, the Turkish
dotted I too), whitespace runs collapsed, leading/trailing whitespace and trailing sentence
punctuation removed, in every script."""

from __future__ import annotations

import sys
import unicodedata
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.db.codec import dedup_key
from graphmem.fields import duplicate_text, fold_case
from graphmem.models import MemoryKind, MemoryRecord
from tests.support.spellings import CASE_DIFFERENT, CASE_TWINS

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = {"tenant": "t", "user": "u1"}

# (first write, second write): the second is a duplicate of the first
SAME = [
    ("Prefers dark mode", "Prefers dark mode."),                       # the input
    ("Café latte is preferred", "Cafe\u0301 latte is preferred"),       # composed / decomposed
    ("prefers dark mode", "prefers  dark mode "),                      # case and spaces
    ("Prefers dark mode", "  PREFERS\tdark\u3000mode!!  "),            # tab, ideographic space
    ("Prefers dark mode", "Prefers dark mode..."),
    ("Prefers dark mode", "Prefers dark mode\u2026"),                  # ellipsis
    ("Prefers dark mode", "Prefers dark mode?!"),
    ("喜欢深色模式", "喜欢深色模式。"),                                  # Chinese full stop
    ("ダークモードが好き", "ダークモードが好き\uff01"),                       # fullwidth !
    ("ダークモードが好き", "ダークモードが好き\uff1f"),                       # fullwidth ?
    ("ダークモードが好き", "ダークモードが好き｡"),                        # halfwidth 。
    ("深色模式", "深色模式⋯"),                                          # midline ellipsis
    ("다크 모드를 선호함", "다크 모드를 선호함."),                          # Korean
    ("يفضل الوضع الداكن", "يفضل الوضع الداكن؟"),                        # Arabic question mark
    ("गहरा मोड पसंद है", "गहरा मोड पसंद है।"),                            # Devanagari danda
    ("ጨለማ ሁነታ", "ጨለማ ሁነታ።"),                                        # Ethiopic full stop
    ("Straße gesperrt", "STRASSE GESPERRT."),                          # full case folding
    ("ΣΟΦΟΣ ΑΝΘΡΩΠΟΣ", "σοφος ανθρωπος"),                              # final sigma folds
    ("བཀྲ་ཤིས་བདེ་ལེགས", "བཀྲ་ཤིས་བདེ་ལེགས།"),                                # Tibetan shad
    ("Τι κάνεις", "Τι κάνεις\u037e"),                                  # Greek question mark
    ("ภาษาไทย", "ภาษาไทย\u0e5a"),                                      # Thai angkhankhu
    ("שלום עולם", "שלום עולם\u05c3"),                                  # Hebrew sof pasuq
    ("Ⲡⲉⲛⲓⲱⲧ", "Ⲡⲉⲛⲓⲱⲧ\u2cfe"),                                        # Coptic full stop
]
# pairs that stay different
DIFFERENT = [
    ("Prefers dark mode", "Prefers dark. mode"),    # only trailing punctuation goes
    ("Prefers dark mode", "Prefers dark mode, no"),
    ("?", "!"),                                     # punctuation-only text keeps it
    ("Prefers dark mode", "Prefers darkmode"),
    ("Version 2.0", "Version 2"),                   # "2.0" keeps its inner dot ...
]


@pytest.mark.parametrize(("first", "second"), SAME)
def test_normalised_equal(first: str, second: str) -> None:
    assert duplicate_text(first) == duplicate_text(second)
    a, b = (MemoryRecord(id=i, kind=MemoryKind.SEMANTIC, content=c, created_at=T0, scope=SCOPE)
            for i, c in (("a", first), ("b", second)))
    assert dedup_key(a) == dedup_key(b)


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_normalised_different(first: str, second: str) -> None:
    assert duplicate_text(first) != duplicate_text(second)


def test_blank_is_empty_and_terminal_punctuation_is_listed() -> None:
    assert duplicate_text(" \t\u3000\n") == ""
    assert duplicate_text("ok。\uff01\uff1f…") == "ok"
    assert duplicate_text("Version 2.0.") == "version 2.0"  # ... and loses the final one


# Every sentence-final mark Unicode names, in every script (from the character names, not
# from the properties the normalisation uses): leading marks (inverted, Adlam initial),
# Armenian marks (written over a vowel, not at the end) and Tibetan head marks (yig mgo) stay.
FINAL_MARKS = [chr(cp) for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) == "Po"
               and any(k in unicodedata.name(chr(cp), "") for k in (
                   "FULL STOP", "QUESTION MARK", "EXCLAMATION MARK", "DANDA", "SHAD",
                   "SOF PASUQ"))
               and not any(k in unicodedata.name(chr(cp)) for k in (
                   "INVERTED", "INITIAL", "ARMENIAN", "YIG MGO"))]


@given(text=st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12),
       mark=st.sampled_from(FINAL_MARKS))
def test_every_scripts_final_mark_goes(text: str, mark: str) -> None:
    assert duplicate_text(text + mark) == duplicate_text(text), hex(ord(mark))


WORDS = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8)
SPACES = st.text(st.sampled_from(" \t\n\u00a0\u2003\u3000"), min_size=1, max_size=3)
ENDINGS = st.text(st.sampled_from(".!?\u3002\uff01\uff1f\uff61\u2026\u061f\u0964 "),
                  max_size=4)


@given(words=st.lists(WORDS, min_size=1, max_size=5), gaps=st.lists(SPACES, min_size=6,
                                                                    max_size=6),
       ending=ENDINGS, lead=st.sampled_from(["", " ", "\u3000"]))
def test_spelling_variants_normalise_alike(words: list[str], gaps: list[str], ending: str,
                                           lead: str) -> None:
    """Any words of any script: NFD vs NFC, upper vs as-is, other whitespace and a trailing
    run of sentence punctuation all give the same normalised text."""
    plain = " ".join(words)
    variant = lead + "".join(w + g for w, g in zip(words, gaps, strict=False)).rstrip() + ending
    forms = [variant, unicodedata.normalize("NFD", variant)]
    if variant.upper().casefold() == variant.casefold():  # not so for e.g. dotless i
        forms.append(variant.upper())
    for form in forms:
        assert duplicate_text(form) == duplicate_text(plain), form
    assert duplicate_text(duplicate_text(plain)) == duplicate_text(plain)  # idempotent


# -- on the store ---------------------------------------------------------------------------


# -- case in every script: the one folding (graphmem.fields.fold_case) -----------------------


@pytest.mark.parametrize(("script", "first", "second"), CASE_TWINS,
                         ids=[t[0] for t in CASE_TWINS])
def test_case_twins_normalise_alike(script: str, first: str, second: str) -> None:
    assert duplicate_text(first) == duplicate_text(second), script
    assert duplicate_text(first) == fold_case(duplicate_text(first))  # one folding


@pytest.mark.parametrize(("first", "second"), CASE_DIFFERENT)
def test_case_lookalikes_stay_different(first: str, second: str) -> None:
    assert duplicate_text(first) != duplicate_text(second)


@given(text=st.text(min_size=1, max_size=20))
def test_duplicate_text_folds_as_fold_case(text: str) -> None:
    """Upper- and lower-casing any text, in any script, gives the same duplicate text
    wherever the one folding says the two are equal."""
    for other in (text.upper(), text.lower(), text.title()):
        if fold_case(other) == fold_case(text):
            assert duplicate_text(other) == duplicate_text(text)


