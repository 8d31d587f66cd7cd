# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""Case-insensitive matching in every script: one folding (NFKC, full case folding, the Turkish
dotted and dotless I) for the ranking index and the query alike (docs/spec/read-path.md#rank)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.client import Memory
from graphmem.fields import fold_case
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.read.steps import DecisionState
from graphmem.read.tokens import entity_terms, tokenize

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)

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


@pytest.mark.parametrize(("script", "stored", "typed"), SPELLINGS,
                         ids=[s[0] for s in SPELLINGS])
def test_one_term_for_both_spellings(script: str, stored: str, typed: str) -> None:
    assert tokenize(stored), script
    assert tokenize(stored) == tokenize(typed), script
    assert fold_case(stored) == fold_case(typed), script


def test_the_issue_queries_fold_onto_the_stored_words() -> None:
    assert tokenize("istanbul") == tokenize("İSTANBUL") == tokenize("Istanbul")
    assert tokenize("Izmir") == tokenize("İzmir") == tokenize("ızmir")
    assert tokenize("hauptstraße") == tokenize("HAUPTSTRASSE") == tokenize("Hauptstrasse")


def test_folding_keeps_words_that_differ_apart() -> None:
    assert tokenize("Straße") != tokenize("Strabe")
    assert tokenize("σοφος") != tokenize("σοφια")
    assert fold_case("ΟΔΟΣ") != fold_case("οδός")  # an accent is no case: it stays


def test_names_are_found_through_the_same_folding() -> None:
    assert entity_terms("flights to İSTANBUL") == tokenize("istanbul")
    assert entity_terms("treffen in der HAUPTSTRASSE") == tokenize("hauptstrasse")


LETTERS = st.text(st.characters(categories=["Lu", "Ll", "Lt"]), min_size=1, max_size=16)


@settings(max_examples=400, deadline=None)
@given(LETTERS)
def test_upper_and_lower_case_of_any_letters_fold_alike(word: str) -> None:
    assert fold_case(word.upper()) == fold_case(word.lower()) == fold_case(word)
    assert tokenize(word.upper()) == tokenize(word.lower())


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_folding_is_idempotent(text: str) -> None:
    assert fold_case(fold_case(text)) == fold_case(text)


def test_retrieval_matches_across_case_in_every_script(memory: Memory) -> None:
    records = {f"r{i}": stored for i, (_, stored, _) in enumerate(SPELLINGS)}
    records["control"] = "MONTREAL office opening"
    memory.put_many([
        MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, content=text,
                     created_at=T0, scope={"tenant": "fold"}, provenance={"source": "t"})
        for rid, text in records.items()])
    queries = {f"r{i}": typed for i, (_, _, typed) in enumerate(SPELLINGS)}
    queries["control"] = "montreal"
    for rid, query in queries.items():
        result = memory.retrieve(
            DecisionState(memory_scope={"tenant": "fold"}, goal=query,
                          needs_prior_context=True),
            principal=Principal(tenants=frozenset({"fold"})), now=NOW, budget_chars=10_000)
        scored = {r for r, score in result.trace.ranked if score > 0}
        same_word = {r for r, text in records.items() if set(tokenize(text)) & set(tokenize(query))}
        assert rid in scored, (query, scored)
        assert scored == same_word, (query, scored)
