"""BM25 in every script through ``retrieve`` on real Neo4j (docs/spec/read-path.md#rank): text
written without spaces between words is segmented, in the index and the query alike."""

from __future__ import annotations

from graphmem.client import Memory
from graphmem.models import Principal
from graphmem.read.steps import DecisionState
from tests.support.scripts import NOW, rec

ISSUE_RECORDS = {
    "zh": "项目数据库已从 PostgreSQL 迁移到 MySQL",
    "ja": "今日は成語しりとりをした",
    "ko": "오늘 끝말잇기 게임을 했다",
    "en": "The deployment pipeline failed on the staging cluster",
}


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


