"""BM25 in every script (docs/spec/read-path.md#rank): text written without
spaces between words is segmented, in the index and the query alike."""

from __future__ import annotations

import sys
import unicodedata
from datetime import UTC, datetime
from functools import cache

import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graphmem.client import Memory
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.read.rankers import BM25Ranker
from graphmem.read.steps import DecisionState
from graphmem.read.tokens import tokenize

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)

ISSUE_RECORDS = {
    "zh": "项目数据库已从 PostgreSQL 迁移到 MySQL",
    "ja": "今日は成語しりとりをした",
    "ko": "오늘 끝말잇기 게임을 했다",
    "en": "The deployment pipeline failed on the staging cluster",
}


def rec(rid: str, content: str, tenant: str = "t") -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.EPISODIC, content=content, created_at=T0,
                        scope={"tenant": tenant}, provenance={"source": "agent"})


def first_for(memory: Memory, goal: str, tenant: str = "t") -> list[str]:
    result = memory.retrieve(
        DecisionState(memory_scope={"tenant": tenant}, goal=goal, needs_prior_context=True),
        principal=Principal(tenants=frozenset({tenant})), now=NOW, budget_chars=10_000)
    return [rid for rid, score in result.trace.ranked if score > 0]


def test_issue_inputs_each_return_their_record_first(memory: Memory) -> None:
    memory.put_many([rec(rid, text) for rid, text in ISSUE_RECORDS.items()])
    for goal, expected in (("数据库", "zh"), ("しりとり", "ja"), ("끝말잇기", "ko"),
                           ("staging deployments", "en"), ("PostgreSQL", "zh")):
        found = first_for(memory, goal)
        assert found and found[0] == expected, (goal, found)


def test_more_scripts_through_retrieve(memory: Memory) -> None:
    texts = {
        "th": "วันนี้เราย้ายฐานข้อมูลไปยังเซิร์ฟเวอร์ใหม่",
        "lo": "ມື້ນີ້ພວກເຮົາຍ້າຍຖານຂໍ້ມູນ",
        "km": "ថ្ងៃនេះយើងបានផ្លាស់ប្តូរមូលដ្ឋានទិន្នន័យ",
        "my": "ဒီနေ့ဒေတာဘေ့စ်ကိုပြောင်းခဲ့တယ်",
        "hi": "आज हमने डेटाबेस को नए सर्वर पर भेजा",
        "katakana": "データベースをサーバーに移行した",
        "mixed": "客户说CRM系统はとても遅い today",
        "en": "Prefers dark mode in every editor",
    }
    memory.put_many([rec(rid, text, tenant="s") for rid, text in texts.items()])
    for goal, expected in (("ฐานข้อมูล", "th"), ("ຖານຂໍ້ມູນ", "lo"), ("មូលដ្ឋានទិន្នន័យ", "km"),
                           ("ဒေတာဘေ့စ်", "my"), ("डेटाबेस सर्वर", "hi"), ("データベース", "katakana"),
                           ("CRM系统", "mixed"), ("遅い", "mixed"), ("editors", "en")):
        found = first_for(memory, goal, tenant="s")
        assert found and found[0] == expected, (goal, found)


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


@settings(max_examples=200, deadline=None)
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


@cache
def script_letters(script: str) -> list[str]:
    """The letters (category L) of ``script`` that NFKC leaves alone, as Unicode assigns them."""
    pattern = regex.compile(rf"\p{{Script={script}}}")
    return [chr(cp) for cp in range(sys.maxunicode + 1)
            if unicodedata.category(chr(cp))[0] == "L" and pattern.match(chr(cp))
            and unicodedata.normalize("NFKC", chr(cp)) == chr(cp)]


@settings(max_examples=300, deadline=None)
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
