# ruff: noqa: RUF001  (letters of other scripts are the point here)
"""Redaction leaves no match behind (docs/deletion-terms.md, "Exactly the span"): a match
covers whole graphemes, and a grapheme may also hold the start of the next word (a Latin
combining letter after a Thai or Han letter is a word of its own), so replacing a match can
make a word edge where there was none. The matcher redacts again until nothing matches, so
``redact`` is idempotent and what it returns passes verification. Pure: no database."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.deletion.matcher import REDACTION, TermMatcher
from tests.support.sizes import size

#: letters of scripts with and without spaces, marks (the combining Latin letters U+0363 to
#: U+036F too, which read as Latin letters wherever they stand), compatibility forms,
#: punctuation and invisible characters
ALPHABET = st.sampled_from([
    *"OoAbЯяΣσאב\u0645\u062d\u4e00\u4e01\u3042\u304b\uac00\u0e12\u0e01",
    *"\u0300\u0301\u0308\u0e31\u093f\u3334\ufb01\u215f\u01c8\u2460 '-.\u200b\u00ad",
    *(chr(c) for c in range(0x363, 0x370))])
#: a letter of a script without spaces carrying a combining Latin letter: the grapheme that
#: holds the start of the next word
JOINED = st.builds("".join, st.tuples(st.sampled_from("\u4e00\u3042\uac00\u0e12"),
                                      st.sampled_from([chr(c) for c in range(0x363, 0x370)])))
TEXTS = st.lists(st.one_of(ALPHABET, JOINED), min_size=1, max_size=12).map("".join)


def test_a_match_that_a_replacement_uncovers_is_redacted_too() -> None:
    """'ฒ' matches the grapheme ฒ + U+0366 (a combining Latin o, read as a Latin letter): the
    O after it was part of that word; once the grapheme is replaced, the O is a word."""
    m = TermMatcher.from_terms(["O", "\u0e12"])
    text = "p\u3084\u0e12\u0366O"
    assert m.redact(text) == f"p\u3084{REDACTION}{REDACTION}"
    assert not m.holds(m.redact(text))


@settings(max_examples=size(300, 3000), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, start=st.integers(0, 13), length=st.integers(1, 5),
       short=st.sampled_from(["O", "\u4e00", "\u0e12", "b"]))
def test_redaction_leaves_no_match_and_is_idempotent(text: str, start: int, length: int,
                                                     short: str) -> None:
    piece = text[min(start, len(text) - 1):][:length]
    terms = [short] + ([piece] if any(c.isalnum() for c in piece) else [])
    m = TermMatcher.from_terms(terms)
    once = m.redact(text)
    assert not m.holds(once), (terms, text, once)
    assert m.redact(once) == once
