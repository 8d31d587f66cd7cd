# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""Case-insensitive matching in every script: one folding (graphmem.fields.fold_case: NFKC,
full case folding, the Turkish dotted and dotless I) for the ranking index and the query alike
(docs/spec/read-path.md#rank)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.fields import fold_case
from graphmem.read.tokens import entity_terms, tokenize
from tests.support.sizes import size
from tests.support.spellings import SPELLINGS


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


@settings(max_examples=size(150, 400), deadline=None)
@given(LETTERS)
def test_upper_and_lower_case_of_any_letters_fold_alike(word: str) -> None:
    assert fold_case(word.upper()) == fold_case(word.lower()) == fold_case(word)
    assert tokenize(word.upper()) == tokenize(word.lower())


@settings(max_examples=size(150, 400), deadline=None)
@given(st.text(max_size=40))
def test_folding_is_idempotent(text: str) -> None:
    assert fold_case(fold_case(text)) == fold_case(text)


