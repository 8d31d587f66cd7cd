# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""Spellings in many scripts that fold alike, and lookalikes that must stay apart."""

from __future__ import annotations

#: (script, a proposal, the same proposal in other case): one PERSIST between them.
CASE_TWINS = [
    ("Turkish dotted capital I", "İSTANBUL'DA OFİS VAR", "istanbul'da ofis var"),
    ("Turkish dotless i", "ızmir şubesi açık", "IZMIR ŞUBESI AÇIK"),
    ("Turkish, typed plain", "İzmir office", "Izmir office."),
    ("German sharp s", "Hauptstraße gesperrt", "HAUPTSTRASSE GESPERRT"),
    ("German capital sharp s", "GROẞE PAUSE", "große pause"),
    ("Greek final sigma", "Ο ΣΟΦΟΣ ΛΟΓΟΣ", "ο σοφος λογος"),
    ("Cyrillic", "МОСКВА ЗИМОЙ", "москва зимой"),
    ("Armenian", "ՀԱՅԱՍՏԱՆԻ ՄԱՅՐԱՔԱՂԱՔ", "հայաստանի մայրաքաղաք"),
    ("Georgian Mtavruli", "ᲗᲑᲘᲚᲘᲡᲘ ᲓᲔᲓᲐᲥᲐᲚᲐᲥᲘᲐ", "თბილისი დედაქალაქია"),
    ("Cherokee", "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ", "ꮳꮃꭹ ꭶꮼꮒꭿꮝꮧ"),
    ("Deseret", "𐐔𐐯𐑅𐐨𐑉𐐯𐐻 text", "𐐼𐐯𐑅𐐨𐑉𐐯𐐻 TEXT"),
    ("fullwidth Latin", "ＴＯＫＹＯ ＯＦＦＩＣＥ", "tokyo office"),
    ("Coptic", "ⲠⲈⲚⲒⲰⲦ", "ⲡⲉⲛⲓⲱⲧ"),
    ("Glagolitic", "ⰀⰁⰂⰃ ⰄⰅ", "ⰰⰱⰲⰳ ⰴⰵ"),
    ("Adlam", "𞤀𞤁𞤂 𞤃", "𞤢𞤣𞤤 𞤥"),
    ("Osage", "𐒰𐒱𐒲", "𐓘𐓙𐓚"),
    ("ligature and Kelvin sign", "ﬁnal \u212aelvin reading", "FINAL KELVIN READING"),
]


#: texts that look alike in some case but differ: never merged.
CASE_DIFFERENT = [
    ("İzmir office", "İzmit office"),
    ("МОСКВА", "MOCKBA"),                   # Cyrillic letters, Latin look-alikes
    ("ΣΟΦΟΣ", "ΣΟΦΙΑ"),
    ("Ⲁⲃⲅ", "Αβγ"),                       # Coptic is not Greek
    ("strasse", "strase"),
    ("ᏣᎳᎩ", "ᏣᎳᎪ"),
]


#: (script, how a record writes a word, how a query types it): each pair must give one term.
SPELLINGS = [
    ("Turkish dotted capital", "İSTANBUL", "istanbul"),
    ("Turkish capital, typed plain", "İzmir", "Izmir"),
    ("Turkish dotless i", "ıspanak", "ISPANAK"),
    ("Turkish, lower-cased by Python", "ki\u0307li\u0307s", "KİLİS"),
    ("German sharp s", "Hauptstraße", "HAUPTSTRASSE"),
    ("German sharp s, query side", "HAUPTSTRASSE", "hauptstraße"),
    ("German capital sharp s", "GROẞE", "große"),
    ("Latin with diacritics", "CAFÉ RENÉ", "café rené"),
    ("Latin, decomposed accents", "Cafe\u0301", "CAFÉ"),
    ("Greek final sigma", "ΣΟΦΟΣ", "σοφος"),
    ("Cyrillic", "МОСКВА", "москва"),
    ("Armenian", "ՀԱՅԱՍՏԱՆ", "հայաստան"),
    ("Georgian Mtavruli", "ᲗᲑᲘᲚᲘᲡᲘ", "თბილისი"),
    ("Cherokee", "ᏣᎳᎩ", "ꮳꮃꭹ"),
    ("fullwidth Latin", "ＴＯＫＹＯ", "tokyo"),
    ("Lithuanian", "ĮVAŽIUOTI", "įvažiuoti"),
    ("Deseret", "𐐔𐐯𐑅𐐨𐑉𐐯𐐻", "𐐼𐐯𐑅𐐨𐑉𐐯𐐻"),
    ("Glagolitic", "ⰀⰁⰂⰃ", "ⰰⰱⰲⰳ"),
    ("Adlam", "𞤀𞤁𞤂", "𞤢𞤣𞤤"),
    ("ligature", "ﬁnance", "FINANCE"),
    ("Kelvin sign", "\u212aelvin", "kelvin"),
    ("soft hyphen inside a word", "data\u00adbase", "DATABASE"),
]
