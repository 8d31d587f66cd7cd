"""Lexical tokens for BM25 in every script (docs/spec/read-path.md#rank).

One function, :func:`tokenize`, serves the index and the query alike, so whatever a record
is split into, a query in the same language is split the same way:

* Text is folded with :func:`graphmem.fields.fold_case`: NFKC (full-width Latin and digits
  become ASCII, compatibility forms fold), full Unicode case folding ("Straße" and
  "STRASSE" give one term, as do "ΟΔΟΣ" and "οδος") and the Turkish dotted and dotless I
  ("İSTANBUL" and "istanbul" give one term).
* A word is a run of letters, digits, underscores *and combining marks*: Python's ``\\w``
  leaves out the vowel signs and viramas of Indic, Thai and other scripts, which cut
  "हिन्दी" or "ภาษาไทย" into single letters that BM25 then drops; keeping the marks
  inside words keeps those scripts searchable.
* Runs of scripts written without spaces between words (Han, Hiragana, Katakana, Hangul,
  Thai, Lao, Khmer, Myanmar, Yi, Tangut, Tai Tham, Javanese, Balinese, ...) become overlapping
  character bigrams plus single characters, the scheme of Lucene's ``CJKBigramFilter`` with
  unigrams on. It needs no dictionary, treats every such script alike, and guarantees
  that a query sharing any two adjacent characters (or one character) with a record
  gives it a score above zero. A dictionary segmenter (jieba for Chinese only, MeCab for
  Japanese only) would cover one language each and bring its own data; bigrams are the
  standard dictionary-free choice for mixed CJK and South-East Asian text. Which characters
  those are comes from Unicode itself, not a hand-kept list of scripts: the line-breaking
  classes (UAX #14) of characters between which a line may break with no space, ideographic
  ``ID`` and ``CJ``, South-East Asian ``SA``, the Hangul ``H2``/``H3``/``JL``/``JV``/``JT`` and
  the aksara classes ``AK``/``AP``/``AS``/``VI``/``VF`` (via the ``regex`` module), plus
  :data:`NO_SPACE_RANGES`. A script missing from a list would put a whole sentence into one
  term that no query matches (issue: Yi, Tangut, Tai Le, Bopomofo... scored zero).
* Every other word of two or more characters is kept unless it is a stop word, and is stemmed with
  the Snowball English stemmer (PyStemmer), as ``bm25s.tokenize(stopwords="en", stemmer=...)`` does.
  The stop words are bm25s's English list (Lucene's 33) and :data:`QUESTION_WORDS`, the function
  words a question to memory is built from ("What did she do?", "How many ... has he ...?"):
  interrogatives, the forms of *do*, *have* and *be* that Lucene's list leaves out, *many*/*much*,
  and personal pronouns. They match almost every record of a conversation, so as search terms they
  only add noise (multi-hop recall@10 on LoCoMo conversations 0-4 went from
  0.378 to 0.419 with them).

:func:`entity_terms` picks the terms of a text's names (words written with a capital letter,
such as people, products, acronyms): what a query is about.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import Any

import regex
import Stemmer
from bm25s.stopwords import STOPWORDS_EN

from graphmem.fields import fold_case

__all__ = ["NO_SPACE_LINE_BREAK", "NO_SPACE_RANGES", "QUESTION_WORDS", "entity_terms",
           "is_no_space_char", "tokenize",
           "tokenize_many"]

# Scripts written without spaces between words (code point ranges, inclusive), beside the
# line-breaking classes of NO_SPACE_LINE_BREAK (most of these ranges are in them too).
NO_SPACE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),    # Thai
    (0x0E80, 0x0EFF),    # Lao
    (0x1000, 0x109F),    # Myanmar
    (0x1100, 0x11FF),    # Hangul Jamo
    (0x1780, 0x17FF),    # Khmer
    (0x19E0, 0x19FF),    # Khmer symbols
    (0x1A00, 0x1A1F),    # Buginese (no line-breaking class of its own)
    (0x1B00, 0x1B7F),    # Balinese
    (0x2E80, 0x2FDF),    # CJK radicals, Kangxi radicals
    (0x3005, 0x3007),    # ideographic iteration mark, closing mark, number zero
    (0x3040, 0x30FF),    # Hiragana, Katakana
    (0x3130, 0x318F),    # Hangul compatibility Jamo
    (0x31F0, 0x31FF),    # Katakana phonetic extensions
    (0x3400, 0x4DBF),    # CJK extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xA960, 0xA97F),    # Hangul Jamo extended A
    (0xA980, 0xA9DF),    # Javanese
    (0xA9E0, 0xA9FF),    # Myanmar extended B
    (0xAA60, 0xAA7F),    # Myanmar extended A
    (0xAC00, 0xD7FF),    # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFF66, 0xFF9F),    # half-width Katakana (NFKC folds most of these)
    (0x11EE0, 0x11EFF),  # Makasar
    (0x18B00, 0x18CFF),  # Khitan small script (no line-breaking class of its own)
    (0x1AFF0, 0x1AFFF),  # Kana extended B
    (0x1B000, 0x1B16F),  # Kana supplement / extended
    (0x20000, 0x3134F),  # CJK extensions B-G, I (H and later: line-breaking class ID)
)


#: Unicode line-breaking classes (UAX #14) of characters that need no space to end a word.
#: ``NS`` brings the iteration marks (々, ゝ, the Yi, Tangut and Nushu ones): the only word
#: characters of that class.
NO_SPACE_LINE_BREAK = ("ID", "CJ", "NS", "SA", "H2", "H3", "JL", "JV", "JT", "AK", "AP", "AS",
                       "VI", "VF")


def _no_space_class() -> str:
    """The body of a ``regex`` character class of :func:`is_no_space_char`."""
    return _char_class(NO_SPACE_RANGES) + "".join(
        rf"\p{{Line_Break={name}}}" for name in NO_SPACE_LINE_BREAK)


@cache
def _no_space_char() -> regex.Pattern[str]:
    return regex.compile(f"[{_no_space_class()}]")


def is_no_space_char(ch: str) -> bool:
    """Whether ``ch`` belongs to a script written without spaces between words (its
    line-breaking class is one of :data:`NO_SPACE_LINE_BREAK`, or it is in
    :data:`NO_SPACE_RANGES`)."""
    return _no_space_char().fullmatch(ch) is not None


def _char_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(
        re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
        for lo, hi in ranges)


@cache
def _mark_ranges() -> tuple[tuple[int, int], ...]:
    """Code point ranges of every combining mark (categories Mn, Mc, Me)."""
    ranges: list[tuple[int, int]] = []
    category = unicodedata.category
    # below U+0300 there is no mark; above the SMP only the variation selectors supplement
    for cp in (*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)):
        if category(chr(cp))[0] == "M":
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    return tuple(ranges)


@cache
def _patterns() -> tuple[re.Pattern[str], regex.Pattern[str]]:
    """(word pattern, pattern of no-space runs inside a word)."""
    marks = _char_class(_mark_ranges())
    word = re.compile(rf"[\w{marks}]+")
    scripts = _no_space_class()
    no_space = regex.compile(rf"[{scripts}][{scripts}\p{{M}}]*")
    return word, no_space


@cache
def _stemmer() -> Any:
    return Stemmer.Stemmer("english")


QUESTION_WORDS: frozenset[str] = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "do", "does", "did", "doing", "has", "have", "had", "having", "am", "were", "been", "being",
    "many", "much",
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "yourselves",
    "he", "him", "his", "himself", "she", "her", "hers", "herself", "we", "us", "our", "ours",
    "ourselves", "its", "itself", "them", "theirs", "themselves",
})
"""Stop words beside Lucene's English list: the function words of questions (see above)."""

_STOPWORDS = frozenset(STOPWORDS_EN) | QUESTION_WORDS


def _grams(run: str, out: list[str]) -> None:
    """Single characters and overlapping bigrams of a no-space run (combining marks stay
    attached to the bigram they fall in and are no term of their own)."""
    out.extend(c for c in run if unicodedata.category(c)[0] != "M")
    out.extend(run[i:i + 2] for i in range(len(run) - 1)
               if unicodedata.category(run[i])[0] != "M")


def tokenize(text: str) -> list[str]:
    """The BM25 terms of ``text`` (see the module docstring); the same for index and query.

    Args:
        text: any Unicode text.

    Returns:
        Terms in order of appearance (repeats kept: BM25 counts them).
    """
    word, no_space = _patterns()
    plain: list[str] = []
    grams: list[str] = []
    normalised = fold_case(text)
    for w in word.findall(normalised):
        if w.isascii():  # no script written without spaces is ASCII
            plain.append(w)
            continue
        pos = 0
        for m in no_space.finditer(w):
            if m.start() > pos:
                plain.append(w[pos:m.start()])
            _grams(m.group(), grams)
            pos = m.end()
        if pos < len(w):
            plain.append(w[pos:])
    kept = [t for t in plain if len(t) > 1 and t not in _STOPWORDS]
    return [*_stemmer().stemWords(kept), *grams]


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    """:func:`tokenize` of each text, in order."""
    return [tokenize(t) for t in texts]


def entity_terms(text: str) -> list[str]:
    """The terms of the names in ``text``: words with an upper-case letter ("Melanie",
    "LoCoMo", "CRM", "iPhone"), as :func:`tokenize` gives them, stop words left out (so a
    question's "What" or "How" is none), each once, in order of appearance.

    Args:
        text: any Unicode text (scripts without letter case have no names by this rule).

    Returns:
        Distinct terms, e.g. ``["melani"]`` for "What did Melanie paint?".
    """
    word, _ = _patterns()
    found: dict[str, None] = {}
    for w in word.findall(unicodedata.normalize("NFKC", text)):
        if any(c.isupper() for c in w):
            found.update(dict.fromkeys(tokenize(w)))
    return list(found)
