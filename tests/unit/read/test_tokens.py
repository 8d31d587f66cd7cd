"""Tokens in every script (graphmem.read.tokens, docs/spec/read-path.md#rank): text written
without spaces between words is segmented, English keeps its stemming, and BM25 scores a
shared substring in any script."""

from __future__ import annotations

import sys
import unicodedata
from functools import cache

import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graphmem.read.rankers import BM25Ranker
from graphmem.read.tokens import tokenize
from tests.support.scripts import rec
from tests.support.sizes import size


def test_tokens_keep_english_stemming_and_split_no_space_runs() -> None:
    assert tokenize("The editors were running") == ["editor", "run"]
    # the function words of a question are no terms
    assert tokenize("What did she paint, and how many has he sold?") == ["paint", "sold"]
    zh = tokenize("迁移到MySQL")
    assert "mysql" in zh and "迁移" in zh and "移到" in zh and "迁" in zh
    # full-width Latin folds to ASCII; combining marks stay inside Indic words
    assert tokenize("\uff2d\uff59\uff33\uff31\uff2c") == ["mysql"]  # full-width MySQL
    assert "हिन्दी" in tokenize("हिन्दी भाषा")


CJK = st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF)
              | st.characters(min_codepoint=0x3041, max_codepoint=0x3096)
              | st.characters(min_codepoint=0xAC00, max_codepoint=0xAD00)
              | st.characters(min_codepoint=0x0E01, max_codepoint=0x0E2E),
              min_size=2, max_size=40)


@settings(max_examples=size(100, 200), deadline=None)
@given(text=CJK, others=st.lists(CJK, min_size=0, max_size=5), data=st.data())
def test_a_shared_substring_always_scores(text: str, others: list[str],
                                          data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 2))
    end = data.draw(st.integers(start + 2, len(text)))
    query = text[start:end]
    records = [rec("hit", text)] + [rec(f"o{i}", o) for i, o in enumerate(others)]
    scores = BM25Ranker().score(query, records)
    assert scores[0] > 0
    assert tokenize(query) and set(tokenize(query)) <= set(tokenize(text))


# Scripts written without spaces between words (scriptio continua), from the writing-system
# literature rather than from the tokenizer's own tables: each one must be segmented.
NO_SPACE_SCRIPTS = ["Han", "Hiragana", "Katakana", "Hangul", "Bopomofo", "Yi", "Thai", "Lao",
                    "Khmer", "Myanmar", "Tai_Le", "New_Tai_Lue", "Tai_Tham", "Tai_Viet", "Ahom",
                    "Tangut", "Nushu", "Khitan_Small_Script", "Balinese", "Javanese",
                    "Buginese", "Makasar", "Batak"]


IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")


@cache
def stable_letters() -> str:
    """Every visible letter (category L) that NFKC leaves alone, in code point order: not
    the default-ignorable ones (the Hangul fillers), which render as nothing and which the
    tokenizer drops by design (:func:`graphmem.fields.fold_case`)."""
    return "".join(c for c in map(chr, range(sys.maxunicode + 1))
                   if unicodedata.category(c)[0] == "L" and unicodedata.normalize("NFKC", c) == c
                   and not IGNORABLE.match(c))


@cache
def script_letters(script: str) -> list[str]:
    """The letters (category L) of ``script`` that NFKC leaves alone, as Unicode assigns them
    (one pass over the code points for all scripts, then one regex scan per script)."""
    return list(regex.findall(rf"\p{{Script={script}}}", stable_letters()))


@settings(max_examples=size(120, 300), deadline=None)
@given(script=st.sampled_from(NO_SPACE_SCRIPTS), data=st.data())
def test_no_script_written_without_spaces_scores_zero(script: str, data: st.DataObject) -> None:
    """In every script written without spaces, a query sharing any run of characters with a
    record (one character or more) scores it above zero, and its terms are the record's."""
    letters = st.sampled_from(script_letters(script))
    text = "".join(data.draw(st.lists(letters, min_size=1, max_size=20)))
    start = data.draw(st.integers(0, len(text) - 1))
    query = text[start:data.draw(st.integers(start + 1, len(text)))]
    assume(unicodedata.normalize("NFKC", text) == text)
    assume(unicodedata.normalize("NFKC", query) == query)
    assert tokenize(query) and set(tokenize(query)) <= set(tokenize(text)), (script, query)
    assert BM25Ranker().score(query, [rec("hit", text), rec("other", "unrelated words")])[0] > 0


def test_invisible_letters_alone_make_no_term() -> None:
    """Hangul fillers are letters (Lo) that render as nothing: alone they give no term, and
    beside a syllable they do not change its term (the same text to a reader)."""
    assert tokenize("\u115f\u1160") == []
    assert tokenize("\u1160\uac00\u115f") == tokenize("\uac00")
