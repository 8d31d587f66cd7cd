"""How the deletion term matcher reads a text before it compares (``docs/deletion-terms.md``):
each grapheme normalised on its own, so that every normalised character keeps the original span
it comes from. Pure: no database, no I/O.

Two schemes exist, because digests of terms are stored (on a ``DeletionRequest``, in a plan's
``term_checks``) and must be compared with text read the way they were made:

- :data:`SCHEME_PLAIN` (1): compatibility forms and case folded, dotted and dotless I as
  ``i`` (:func:`graphmem.fields.fold_letters`). Accents count: ``Zoë`` is not ``Zoe``.
- :data:`SCHEME_FOLDED` (2, :data:`SCHEME`, the one new terms use): the same, then
  diacritics folded (:func:`fold_marks`): ``Zoë``, ``ZOE`` and ``zoe`` are one word, as are
  ``Παππά`` and ``ΠΑΠΠΑ``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

from graphmem.fields import fold_letters

__all__ = [
    "FOLDED_SCRIPTS",
    "KEPT_MARKS",
    "SCHEME",
    "SCHEMES",
    "SCHEME_FOLDED",
    "SCHEME_PLAIN",
    "STROKES",
    "Normalised",
    "fold_grapheme",
    "fold_marks",
    "normalise",
]

SCHEME_PLAIN = 1
"""Accents count (how every term digest was made before diacritics were folded)."""
SCHEME_FOLDED = 2
"""Diacritics folded (:func:`fold_marks`)."""
SCHEME = SCHEME_FOLDED
"""The scheme new terms, digests and plans use."""
SCHEMES = frozenset({SCHEME_PLAIN, SCHEME_FOLDED})

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

_FOLDED_BASE = regex.compile("[" + "".join(rf"\p{{sc={s}}}" for s in FOLDED_SCRIPTS) + "]")
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
_GRAPHEME = regex.compile(r"\X")
_STROKES = str.maketrans(STROKES)


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


@lru_cache(maxsize=65536)
def fold_grapheme(grapheme: str, scheme: int = SCHEME) -> str:
    """One grapheme as ``scheme`` reads it (see the module docstring)."""
    folded = fold_letters(grapheme)
    return fold_marks(folded) if scheme == SCHEME_FOLDED else folded


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
    I as ``i``; with :data:`SCHEME_FOLDED`, diacritics folded: :func:`fold_marks`), with the
    original span of every normalised character.

    Args:
        text: any text. scheme: :data:`SCHEME_PLAIN` or :data:`SCHEME_FOLDED`.
    """
    if text.isascii():
        n = len(text)
        return Normalised(text.lower(), tuple(range(n)), tuple(range(1, n + 1)),
                          tuple(range(n)))
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
