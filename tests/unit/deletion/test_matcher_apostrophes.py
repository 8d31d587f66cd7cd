"""Names written with typographic punctuation or stretched with tatweel are one name with the
term (docs/deletion-terms.md, "Apostrophes, hyphens and tatweel"): word processors and phone
keyboards put U+2019 in O\u2019Brien and U+2010 or U+2011 in Jean\u2010Luc, Arabic text is
justified with the tatweel. Read alike in both directions, they give one digest and one plan
check; words that merely contain a term stay untouched. Pure: no database."""

from __future__ import annotations

import pytest

from graphmem.deletion.fold import APOSTROPHES, HYPHENS, SCHEME_TYPOGRAPHIC, normalise
from graphmem.deletion.matcher import REDACTION, TermMatcher, ascii_anchor, digest_terms, term_spec
from graphmem.deletion.terms import clean_terms, term_check

APOSTROPHE_SPELLINGS = ["O'Brien", "O\u2019Brien", "O\u02bcBrien", "O\u2018Brien",
                        "O\uff07Brien", "O`Brien", "O\u00b4Brien", "O\uff40Brien"]
HYPHEN_SPELLINGS = ["Jean-Luc", "Jean\u2010Luc", "Jean\u2011Luc", "Jean\u2012Luc",
                    "Jean\u2013Luc", "Jean\u2212Luc", "Jean\ufe63Luc", "Jean\uff0dLuc"]
MUHAMMAD = "\u0645\u062d\u0645\u062f"  # محمد
TATWEEL_SPELLINGS = [MUHAMMAD, "\u0645\u0640\u062d\u0640\u0645\u0640\u062f",  # مـحـمـد
                     "\u0645\u0640\u0640\u0640\u062d\u0645\u062f",  # a long stroke
                     "\u0645\u0640\u064e\u062d\u0645\u062f"]  # a fatha set on the tatweel
SAME = [*[(a, b) for a in APOSTROPHE_SPELLINGS for b in APOSTROPHE_SPELLINGS],
        *[(a, b) for a in HYPHEN_SPELLINGS for b in HYPHEN_SPELLINGS],
        *[(a, b) for a in TATWEEL_SPELLINGS for b in TATWEEL_SPELLINGS]]
SALT = "00" * 16


@pytest.mark.parametrize(("term", "written"), SAME)
def test_a_name_is_redacted_whichever_way_term_and_text_write_it(term: str, written: str
                                                                 ) -> None:
    text = f"Mr {written} called, ({written.upper()})."
    assert TermMatcher.from_terms([term]).redact(text) == f"Mr {REDACTION} called, ({REDACTION})."


@pytest.mark.parametrize("spellings", [APOSTROPHE_SPELLINGS, HYPHEN_SPELLINGS,
                                       TATWEEL_SPELLINGS])
def test_every_spelling_gives_one_spec_digest_and_plan_check(spellings: list[str]) -> None:
    assert len({term_spec(s) for s in spellings}) == 1
    assert len(set(digest_terms(spellings, b"k" * 32))) == 1
    assert len({term_check(s, SALT) for s in spellings}) == 1
    assert clean_terms(spellings) == (spellings[0],)


def test_the_folded_characters_are_the_documented_ones() -> None:
    for char in APOSTROPHES:
        assert normalise(f"a{char}b").text == "a'b"
    for char in HYPHENS:
        assert normalise(f"a{char}b").text == "a-b"
    assert normalise("\u0645\u0640\u062f").text == "\u0645\u062f"


@pytest.mark.parametrize(("term", "written"), [
    ("Jean-Luc", "Jean\u2014Luc"),  # an em dash parts clauses
    ("Jean-Luc", "Jean\u2015Luc"),
    ("O'Brien", "O\u02bbBrien"),  # the Hawaiian okina is a letter
    ("O'Brien", "O\u2032Brien"),  # a prime
    ("O'Brien", "OBrien"),
    ("Jean-Luc", "Jean Luc"),
])
def test_what_is_not_folded_stays_another_spelling(term: str, written: str) -> None:
    assert not TermMatcher.from_terms([term]).holds(written)


@pytest.mark.parametrize(("term", "text"), [
    ("Ann", "Annual Anne Joanna Ann\u0640a \u0623\u0646\u0640"),
    ("Ann", "Ann\u0640ual and Jo\u0640ann"),
    (MUHAMMAD, "\u0645\u062d\u0645\u062f\u0640\u064a \u0645\u0640\u062d\u0645\u0640\u062f\u064a"),
    ("O'Brien", "O\u2019Briens and DO\u2019Brien"),
    ("Jean-Luc", "Jean\u2010Lucas"),
])
def test_words_that_merely_contain_a_term_stay_intact(term: str, text: str) -> None:
    assert TermMatcher.from_terms([term]).redact(text) == text


def test_the_tatweel_is_neither_a_word_edge_nor_kept_around_a_match() -> None:
    matcher = TermMatcher.from_terms([MUHAMMAD])
    stretched = "\u0645\u0640\u062d\u0640\u0645\u0640\u062f"
    assert matcher.redact(f"\u0642\u0627\u0644 {stretched}.") == f"\u0642\u0627\u0644 {REDACTION}."
    # a tatweel is not a word edge: "Ann" is not in "Ann" + tatweel + "a"
    assert not TermMatcher.from_terms(["Ann"]).holds("Ann\u0640a")
    # a text of tatweel only holds nothing, and a term of tatweel only is refused
    assert not matcher.holds("\u0640\u0640")
    with pytest.raises(ValueError, match="letter or digit"):
        term_spec("\u0640")


def test_markers_never_match_and_redaction_is_idempotent() -> None:
    matcher = TermMatcher.from_terms(["O\u2019Brien", "Jean\u2010Luc"])
    once = matcher.redact("O'Brien met Jean-Luc and O`Brien")
    assert once == f"{REDACTION} met {REDACTION} and {REDACTION}"
    assert matcher.redact(once) == once


def test_offsets_of_folded_punctuation_point_into_the_original() -> None:
    text = "x O\u00b4Brien \u0645\u0640\u062f"
    n = normalise(text)
    assert n.text == "x o'brien \u0645\u062f"
    assert [text[s:e] for s, e in zip(n.starts, n.ends, strict=True)][2:4] == ["O", "\u00b4"]
    assert text[n.starts[-1]:n.ends[-1]] == "\u062f"


def test_a_term_typed_typographically_narrows_ascii_text() -> None:
    """Its skeleton is ASCII now, so ASCII text holding it holds its anchor."""
    spec = term_spec("O\u2019Brien")
    assert spec.scheme == SCHEME_TYPOGRAPHIC and ascii_anchor(spec) == "brien"
