# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""A term written with JSON string escapes (docs/deletion-terms.md#json-escapes): a record
whose content is JSON text (a LangGraph item's content is its value as JSON; an agent that
stores ``json.dumps(obj)`` escapes every non-ASCII letter) holds ``Jane\\nRoe`` or
``\\u0418\\u0432\\u0430\\u043d``, which the matcher read as other words: the plan, the apply and
the verification all passed over them, and the name stayed."""

from __future__ import annotations

import json
import re

import pytest

from graphmem.deletion import escapes
from graphmem.deletion.escapes import unescaped
from graphmem.deletion.matcher import REDACTION, TermMatcher, digest_terms
from graphmem.deletion.redaction import narrowing

NAMES = ["Jane Roe", "Иван Петров", "Σοφία Παππά", "山田太郎", "محمد علي", "राम शर्मा",
         "Zoë Müller", "O'Brien"]
VALUES = [
    "{first} {last}", "{first}\n{last}", "{first}\t{last}", "{first}\r\n{last}",
    "said \"{first} {last}\"", "{first}/{last} {first} {last}",
]


def _parts(name: str) -> tuple[str, str]:
    first, _, last = name.partition(" ")
    return first, last


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("form", VALUES)
@pytest.mark.parametrize("ascii_only", [False, True])
def test_a_name_inside_a_json_string_is_found_and_redacted(name: str, form: str,
                                                           ascii_only: bool) -> None:
    first, last = _parts(name)
    value = form.format(first=first, last=last) if last else form.split("{last}")[0].format(
        first=first)
    text = json.dumps({"note": f"call {value} today", "n": 1}, ensure_ascii=ascii_only)
    matcher = TermMatcher.from_terms([name])
    assert matcher.holds(text), text
    redacted = matcher.redact(text)
    assert not matcher.holds(redacted)
    decoded = json.loads(redacted)  # still JSON
    assert REDACTION in decoded["note"] and decoded["note"].startswith("call ")
    assert decoded["note"].endswith(" today") and decoded["n"] == 1
    assert matcher.redact(redacted) == redacted


@pytest.mark.parametrize("text", [
    json.dumps({"n": "Joanna\nannual"}), json.dumps({"n": "Annabel"}, ensure_ascii=True),
    json.dumps({"n": "Channel\tAnn2"}), '{"path": "C:\\\\nAnn"}',
    "a plain C:\\nAnn outside any string literal", '"\\u0041nna"',
])
def test_words_that_merely_contain_the_term_stay(text: str) -> None:
    matcher = TermMatcher.from_terms(["Ann"])
    assert not matcher.holds(text)
    assert matcher.redact(text) == text


def test_the_view_maps_each_character_to_the_escape_it_came_from() -> None:
    text = '{"a": "x\\u00e9\\n\\ud83d\\ude00\\\\n\\q"}'
    decoded, starts, ends = unescaped(text) or ("", [], [])
    assert decoded == '{"a": "xé\n😀\\n\\q"}'
    assert [text[s:e] for s, e in zip(starts, ends, strict=True)][6:12] == [
        '"', "x", "\\u00e9", "\\n", "\\ud83d\\ude00", "\\\\"]
    assert unescaped("no backslash here") is None
    assert unescaped("C:\\new outside a literal") is None
    assert unescaped('"a lone \\ud800 stays"') is None


def test_digests_decide_the_escaped_text_as_the_clear_terms_do() -> None:
    key = b"k" * 32
    text = json.dumps({"note": "Иван\nПетров"}, ensure_ascii=True)
    clear = TermMatcher.from_terms(["Иван Петров"])
    hidden = TermMatcher.from_digests(digest_terms(["Иван Петров"], key), key)
    assert clear.holds(text) and hidden.holds(text)
    assert clear.redact(text) == hidden.redact(text)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("gap", ["\x00", "\x00\x00\x00", " \x00", "\x01", "\x1b", "\x7f",
                                 "\x9b", "\\u0000"])
def test_a_control_character_between_the_words_is_a_separator(name: str, gap: str) -> None:
    """A NUL-padded field (``Jane\\x00\\x00Roe``, from a fixed-width export) or another
    control character between the words read as punctuation: no term matched across it."""
    first, last = _parts(name)
    if not last:
        return
    value = first + gap + last
    text = f'"{value}"' if gap.startswith("\\") else f"from the export: {value}."
    matcher = TermMatcher.from_terms([name])
    assert matcher.holds(text), repr(text)
    redacted = matcher.redact(text)
    assert not matcher.holds(redacted) and REDACTION in redacted
    assert redacted.startswith(text[:text.index(first)])


@pytest.mark.parametrize("text", ["Ann\x00a", "Jo\x00anna", "Ch\x01annel"])
def test_a_control_character_makes_no_word_of_a_part(text: str) -> None:
    """A control character is read as an invisible character: ``Jo`` NUL ``anna`` is no
    ``Ann`` (as ``Jo`` ZWSP ``anna`` is none); ``Ann`` NUL ``a`` was ``Ann`` already (the
    control read as punctuation, a word edge)."""
    matcher = TermMatcher.from_terms(["Ann"])
    assert matcher.holds(text) is text.startswith("Ann")


@pytest.mark.parametrize("text", ["J\x00ane Roe", "Ja\x7fne\x00Roe", "Jane\x00R\x01oe",
                                  '{"n": "J\\u0061ne Roe"}', "JANE\x00\x00ROE"])
def test_the_store_narrowing_passes_every_reading_that_matches(text: str) -> None:
    """The Cypher scan narrows candidates to strings holding a term's ASCII anchor; a
    control character inside the anchor's word hid it (``J\\x00ane``), so the plan's scan and
    the verification never gave the matcher that string."""
    matcher = TermMatcher.from_terms(["Jane Roe"])
    pattern = narrowing(matcher)
    assert matcher.holds(text) and pattern is not None
    assert re.fullmatch(pattern, text), (pattern, text)


@pytest.mark.parametrize("text", ['"' + '\\"' * 2000, '"a\\' * 2000, '"ok" "x\\"' + '"' * 500,
                                  '"a" "b\\n" "c' + '\\"' * 300])
def test_literals_are_found_in_one_pass(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A literal opened at a quote that never closes was tried again from each later quote
    (``finditer``): a quote and 20,000 escaped ones, or 60 kB of ``"a\\``, kept the plan's
    scan, the apply and the verification on one text for seconds to minutes. The scan tries
    each quote that opens a literal once, and stops at the first that does not close."""
    tried: list[int] = []
    literal = escapes._LITERAL

    class Counting:
        def match(self, string: str, pos: int) -> re.Match[str] | None:
            tried.append(pos)
            return literal.match(string, pos)

    monkeypatch.setattr(escapes, "_LITERAL", Counting())
    found = [m.span() for m in escapes._literals(text)]
    assert found == [m.span() for m in re.finditer(r'"(?:[^"\\]|\\.)*"', text, re.DOTALL)]
    assert len(tried) <= len(found) + 1
    assert TermMatcher.from_terms(["Ann"]).redact(text + " Ann") == text + " " + REDACTION


@pytest.mark.parametrize(("term", "value"), [
    ("tom", "\tom"), ("nina", "\nina"), ("bob", "\bob"), ("ray", "\ray"), ("fay", "\fay"),
    ("u00e9", "é"),
])
def test_no_match_cuts_into_an_escape(term: str, value: str) -> None:
    # json.dumps writes the tab before "om" as \t: the text as written holds "\tom", whose
    # "tom" is no word of the value; redacting it wrote "\[REDACTED]", which is no JSON
    text = json.dumps({"note": value})
    assert term in text.lower() and term not in value.lower()
    matcher = TermMatcher.from_terms([term])
    assert matcher.matches(text) == [] and matcher.redact(text) == text


def test_a_term_after_an_escaped_backslash_is_a_word() -> None:
    text = json.dumps({"path": "C:\\tom\\notes"})  # a backslash, then the word "tom"
    redacted = TermMatcher.from_terms(["tom"]).redact(text)
    assert json.loads(redacted) == {"path": f"C:\\{REDACTION}\\notes"}
