"""How the deletion term matcher reads a text before it compares (``docs/deletion-terms.md``):
each grapheme normalised on its own, so that every normalised character keeps the original span
it comes from. Pure: no database, no I/O.

Three schemes exist, because digests of terms are stored (on a ``DeletionRequest``, in a
plan's ``term_checks``) and must be compared with text read the way they were made:

- :data:`SCHEME_PLAIN` (1): compatibility forms and case folded, dotted and dotless I as
  ``i`` (:func:`graphmem.fields.fold_letters`). Accents count: ``Zoë`` is not ``Zoe``.
- :data:`SCHEME_FOLDED` (2): the same, then diacritics folded (:func:`fold_marks`):
  ``Zoë``, ``ZOE`` and ``zoe`` are one word, as are ``Παππά`` and ``ΠΑΠΠΑ``. Punctuation
  counts as written: ``O\u2019Brien`` is not ``O'Brien``.
- :data:`SCHEME_TYPOGRAPHIC` (3, :data:`SCHEME`, the one new terms use): the same, then
  typographic spellings folded (:func:`fold_typography`, ``docs/deletion-terms.md``,
  "Apostrophes, hyphens and tatweel"): the :data:`APOSTROPHES` read as ``'``, the
  :data:`HYPHENS` as ``-``, and the Arabic tatweel is read as absent: ``O\u2019Brien`` is
  ``O'Brien``, ``Jean\u2010Luc`` is ``Jean-Luc``, ``\u0645\u0640\u062d\u0645\u062f`` is
  ``\u0645\u062d\u0645\u062f``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from graphmem.fields import fold_letters

__all__ = [
    "APOSTROPHES",
    "FOLDED_SCRIPTS",
    "HYPHENS",
    "KEPT_MARKS",
    "SCHEME",
    "SCHEMES",
    "SCHEME_FOLDED",
    "SCHEME_PLAIN",
    "SCHEME_TYPOGRAPHIC",
    "STROKES",
    "TATWEEL",
    "Normalised",
    "fold_grapheme",
    "fold_marks",
    "fold_typography",
    "normalise",
]

SCHEME_PLAIN = 1
"""Accents count (how every term digest was made before diacritics were folded)."""
SCHEME_FOLDED = 2
"""Diacritics folded (:func:`fold_marks`); punctuation as written (how every term digest was
made before typographic apostrophes, hyphens and tatweel were folded)."""
SCHEME_TYPOGRAPHIC = 3
"""Diacritics and typographic spellings folded (:func:`fold_typography`)."""
SCHEME = SCHEME_TYPOGRAPHIC
"""The scheme new terms, digests and plans use."""
SCHEMES = frozenset({SCHEME_PLAIN, SCHEME_FOLDED, SCHEME_TYPOGRAPHIC})

FOLDED_SCRIPTS: tuple[str, ...] = ("Latin", "Greek", "Cyrillic", "Hebrew", "Arabic")
"""Scripts whose combining marks are folded away: in Latin, Greek and Cyrillic they are
accents people leave out (ASCII-only systems, Greek capitals without tonos, the Russian
``\u0451`` written as ``\u0435``); in Hebrew and Arabic they are vowel points and signs
most text omits. Marks of other scripts (Devanagari, Bengali, Thai ... vowel signs and
viramas) make different letters and count."""

KEPT_MARKS: frozenset[tuple[str, str]] = frozenset({
    ("\u0438", "\u0306"),  # й: a letter of its own, never written as и
    ("\u0443", "\u0306"),  # ў (Belarusian)
    ("\u0456", "\u0308"),  # ї (Ukrainian)
    ("\u0433", "\u0301"),  # ѓ (Macedonian)
    ("\u043a", "\u0301"),  # ќ (Macedonian)
})
"""(base letter, combining mark) pairs of a folded script that are kept: Cyrillic letters of
their own that are always written with their mark (``й`` is not ``и``; ``ё`` is read as
the plain ``\\u0435``)."""

STROKES: dict[str, str] = {"\u0142": "l", "\u00f8": "o", "\u0111": "d", "\u0127": "h"}
"""Latin letters whose mark Unicode does not decompose, written without it in ASCII as the
decomposed ones are: ``ł`` (``Łukasz``), ``ø`` (``Søren``), ``đ``, ``ħ``."""

APOSTROPHES = "\u2019\u2018\u02bc\u0060\u00b4"
"""What :data:`SCHEME_TYPOGRAPHIC` reads as the ASCII apostrophe ``'``: the right single
quotation mark U+2019 (what word processors and phone keyboards type for ``'``), the left
one U+2018 (what "smart quotes" put after a space or at a word's start, ``O\u2018Brien``
too), the modifier letter apostrophe U+02BC, and the grave and acute accents U+0060 and
U+00B4, typed for the apostrophe on keyboards where it is hard to reach (U+00B4 is folded
before NFKC, which would make it a space and a combining accent). The fullwidth U+FF07 is
``'`` already by NFKC, and U+FF40 becomes U+0060. Not folded: the Hawaiian \u02bbokina
U+02BB (a letter), primes U+2032 and U+02B9 (transliterate the soft sign)."""
HYPHENS = "\u2010\u2011\u2012\u2013\u2212\u05be"
"""What :data:`SCHEME_TYPOGRAPHIC` reads as the ASCII hyphen-minus ``-``: the hyphen U+2010
and non-breaking hyphen U+2011 (word processors and typesetting), the figure dash U+2012
(between digits), the en dash U+2013 (sometimes set in double-barrelled names), the minus
sign U+2212 (typesetting and number formatting turn ``-`` into it), and the Hebrew maqaf
U+05BE (the hyphen of Hebrew names, typed as ``-`` on most keyboards). U+FE63 and U+FF0D
are ``-`` already by NFKC. Not folded: the em dash U+2014 and the horizontal bar U+2015,
which part clauses and never join the parts of a name or number."""
TATWEEL = "\u0640"
"""The Arabic tatweel (kashida): an elongation stroke that justifies Arabic text and means
nothing, read as absent by :data:`SCHEME_TYPOGRAPHIC` (with the marks set on it), as if it
were not written: neither a word edge nor part of the skeleton."""

_FOLDED_BASE = regex.compile("[" + "".join(rf"\p{{sc={s}}}" for s in FOLDED_SCRIPTS) + "]")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_GRAPHEME = regex.compile(r"\X")
_STROKES = str.maketrans(STROKES)
_TYPOGRAPHY = str.maketrans(dict.fromkeys(APOSTROPHES, "'") | dict.fromkeys(HYPHENS, "-"))
_TATWEEL = regex.compile(TATWEEL + r"(?:(?!\p{Default_Ignorable_Code_Point})\p{Mn})*")


def fold_marks(text: str) -> str:
    """``text`` (already case folded, :func:`graphmem.fields.fold_letters`) without the
    diacritics of :data:`FOLDED_SCRIPTS`: after canonical decomposition, every nonspacing mark
    (category Mn) on a letter of those scripts is dropped, except :data:`KEPT_MARKS` (once) and
    default-ignorable ones (variation selectors, the grapheme joiner: they stay what they
    were); :data:`STROKES` become their plain letter. Marks of other scripts, and marks on no
    letter, stay. The result is NFC."""
    if text.isascii():
        return text
    out: list[str] = []
    base = ""
    for char in unicodedata.normalize("NFD", text).translate(_STROKES):
        if unicodedata.category(char) != "Mn":
            base = char
        elif base and _FOLDED_BASE.match(base) and not _IGNORABLE.match(char):
            if (base, char) not in KEPT_MARKS:
                continue
            base += char  # kept once: a stress mark on ѓ is dropped like any other
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


def fold_typography(text: str) -> str:
    """``text`` with :data:`APOSTROPHES` as ``'``, :data:`HYPHENS` as ``-``, and every
    :data:`TATWEEL` dropped with the nonspacing marks set on it (the vowel signs a tatweel
    may carry are dropped from Arabic letters anyway; default-ignorable marks stay)."""
    text = text.translate(_TYPOGRAPHY)
    return _TATWEEL.sub("", text) if TATWEEL in text else text


@lru_cache(maxsize=65536)
def fold_grapheme(grapheme: str, scheme: int = SCHEME) -> str:
    """One grapheme as ``scheme`` reads it (see the module docstring). With
    :data:`SCHEME_TYPOGRAPHIC` a grapheme may read as nothing (a tatweel)."""
    if scheme == SCHEME_PLAIN:
        return fold_letters(grapheme)
    if scheme == SCHEME_FOLDED:
        return fold_marks(fold_letters(grapheme))
    # folded before NFKC too: it turns U+00B4 into a space and a combining accent
    return fold_typography(fold_marks(fold_letters(grapheme.translate(_TYPOGRAPHY))))


@dataclass(frozen=True)
class Normalised:
    """A text's normalised form with the original span of every character.

    Attributes:
        text: the normalised text. starts, ends: for each of its characters, the start and
            end offset (in the original) of the grapheme it comes from. graphemes: each
            character's grapheme number.
    """

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    graphemes: tuple[int, ...]


def normalise(text: str, scheme: int = SCHEME) -> Normalised:
    """``text`` normalised grapheme by grapheme (NFKC, full case folding, dotted and dotless
    I as ``i``; from :data:`SCHEME_FOLDED` on, diacritics folded: :func:`fold_marks`; with
    :data:`SCHEME_TYPOGRAPHIC`, apostrophes, hyphens and tatweel too: :func:`fold_typography`),
    with the original span of every normalised character.

    Args:
        text: any text. scheme: one of :data:`SCHEMES`.
    """
    if text.isascii():
        n = len(text)
        lower = text.lower()
        if scheme == SCHEME_TYPOGRAPHIC:
            lower = lower.translate(_TYPOGRAPHY)  # the backtick: one character for one
        return Normalised(lower, tuple(range(n)), tuple(range(1, n + 1)), tuple(range(n)))
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    graphemes: list[int] = []
    for number, m in enumerate(_GRAPHEME.finditer(text)):
        folded = fold_grapheme(m.group(), scheme)
        out.append(folded)
        starts.extend([m.start()] * len(folded))
        ends.extend([m.end()] * len(folded))
        graphemes.extend([number] * len(folded))
    return Normalised("".join(out), tuple(starts), tuple(ends), tuple(graphemes))
