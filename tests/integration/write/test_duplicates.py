# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""One normalisation for duplicate detection (docs/spec/write-path.md): NFKC, case-folded as every
comparison folds (graphmem.fields.fold_case, the Turkish dotted I too), whitespace runs
collapsed, leading/trailing whitespace and trailing sentence punctuation removed, in every
script; the same on the concurrent-writer path, and for keys
stored before it (the migration in graphmem.db.migrations)."""

from __future__ import annotations

import hashlib
import threading
import unicodedata
from datetime import UTC, datetime
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db.codec import DEDUP_VERSION, dedup_key
from graphmem.db.migrations import migrate
from graphmem.fields import _TRAILING_TERMINALS
from graphmem.write.policy import WriteDisposition
from tests.support.spellings import CASE_DIFFERENT, CASE_TWINS

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = {"tenant": "t", "user": "u1"}


# -- on the store ---------------------------------------------------------------------------


def _rec(rid: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "created_at": T0,
            "scope": SCOPE, "authority": "human_instruction", **extra}


def test_issue_inputs_are_discarded_as_duplicates(memory: Memory) -> None:
    def write(rid: str, content: str) -> Any:
        return memory.write(_rec(rid, content), now=T0)

    assert write("dm", "Prefers dark mode").disposition is WriteDisposition.PERSIST
    dup = write("dm-dot", "Prefers dark mode.")
    assert dup.disposition is WriteDisposition.DISCARD and dup.duplicate_of == "dm"
    assert write("dm-space", "prefers  dark mode ").disposition is WriteDisposition.DISCARD
    assert write("cafe", "Café latte is preferred").disposition is WriteDisposition.PERSIST
    nfd = write("cafe-nfd", "Cafe\u0301 latte is preferred")
    assert nfd.disposition is WriteDisposition.DISCARD and nfd.duplicate_of == "cafe"
    assert write("zh", "喜欢深色模式").disposition is WriteDisposition.PERSIST
    assert write("zh-stop", "喜欢深色模式。").disposition is WriteDisposition.DISCARD
    assert write("ja", "ダークモードが好き\uff01").disposition is WriteDisposition.PERSIST
    assert write("ja-bare", "ダークモードが好き").disposition is WriteDisposition.DISCARD
    # another scope is not a duplicate; neither is another kind
    other = memory.write(_rec("dm-other", "Prefers dark mode.",
                              scope={"tenant": "t", "user": "u2"}), now=T0)
    assert other.disposition is WriteDisposition.PERSIST
    episode = memory.write(_rec("dm-ep", "Prefers dark mode!", kind="episodic"), now=T0)
    assert episode.disposition is WriteDisposition.PERSIST


def test_concurrent_near_duplicates_persist_once(memory: Memory) -> None:
    """The concurrent-writer path (write slot + write/check) uses the same key."""
    variants = ["Prefers dark mode", "Prefers dark mode.", "prefers  dark mode ",
                "PREFERS DARK MODE!", "Prefers dark mode\u2026", "prefers dark mode。"]
    _race(memory, variants, "v")
    assert store_of(memory).counts()["Record"] == 1


def test_keys_stored_before_the_new_normalisation_are_migrated(memory: Memory) -> None:
    """A record stored with the old key ("prefers dark mode." kept its dot) is found as a
    duplicate once ensure_schema has run the migration; unchanged keys are not rewritten."""
    memory.put_many([_rec("old", "Prefers dark mode."), _rec("same", "Likes tea")])
    old_key = "legacy-key-of-the-old-normalisation"
    driver, db = store_of(memory).driver, store_of(memory).database
    driver.execute_query("MATCH (r:Record {id: 'old'}) SET r.dedup_key = $k",
                         {"k": old_key}, database_=db)
    driver.execute_query("MATCH (m:GraphmemMigration) DELETE m", database_=db)
    before = store_of(memory).get_props(["old", "same"])
    assert before["old"]["dedup_key"] == old_key
    assert migrate(store_of(memory)) == 1  # only the stale key changed
    after = store_of(memory).get_props(["old", "same"])
    assert after["old"]["dedup_key"] == dedup_key(memory.get("old"))
    assert after["old"]["rev"] == before["old"]["rev"] + 1
    assert after["same"]["rev"] == before["same"]["rev"]
    assert migrate(store_of(memory)) == 0  # the version is recorded: later connections skip it
    rows, _, _ = driver.execute_query(
        "MATCH (m:GraphmemMigration {name: 'dedup_key'}) RETURN m.version AS v", database_=db)
    assert [r["v"] for r in rows] == [DEDUP_VERSION]
    dup = memory.write(_rec("new", "prefers dark mode"), now=T0)
    assert dup.disposition is WriteDisposition.DISCARD and dup.duplicate_of == "old"
    store_of(memory).ensure_schema()  # idempotent


# -- case in every script: the one folding (graphmem.fields.fold_case) -----------------------


def _v3_key(kind: str, content: str) -> str:
    """The dedup key of version 3 (NFC and casefold only), what stores hold before."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", content).casefold())
    collapsed = " ".join(folded.split())
    text = _TRAILING_TERMINALS.sub("", collapsed) or collapsed
    return hashlib.sha256(f"{kind}\x1f{text}".encode()).hexdigest()


def test_case_twins_in_every_script_persist_once(memory: Memory) -> None:
    for n, (script, first, second) in enumerate(CASE_TWINS):
        kept = memory.write(_rec(f"c{n}", first), now=T0)
        assert kept.disposition is WriteDisposition.PERSIST, script
        twin = memory.write(_rec(f"c{n}-twin", second), now=T0)
        assert twin.disposition is WriteDisposition.DISCARD, script
        assert twin.duplicate_of == f"c{n}", script
    apart = {"tenant": "t", "user": "u-apart"}  # away from the twins above
    for n, (first, second) in enumerate(CASE_DIFFERENT):
        assert memory.write(_rec(f"d{n}", first, scope=apart), now=T0).disposition is (
            WriteDisposition.PERSIST)
        assert memory.write(_rec(f"d{n}-other", second, scope=apart), now=T0).disposition is (
            WriteDisposition.PERSIST), (first, second)
    assert store_of(memory).counts()["Record"] == len(CASE_TWINS) + 2 * len(CASE_DIFFERENT)


def test_concurrent_case_twins_persist_once(memory: Memory) -> None:
    """Six writers at once, each with the Turkish, German or fullwidth spelling: one PERSIST."""
    variants = ["İSTANBUL OFİSİ", "istanbul ofisi", "Istanbul Ofisi.", "ıstanbul ofısı",
                "ＩＳＴＡＮＢＵＬ ＯＦＩＳＩ", "İstanbul ofisi!"]
    _race(memory, variants, "t")


def test_keys_of_the_case_folding_before_are_migrated(memory: Memory) -> None:
    """Records stored with version 3 keys (no NFKC, İ folded to "i" + dot) are found as
    case twins once the migration has run; it is idempotent."""
    contents = {"tr": "İSTANBUL OFİSİ", "fw": "ＴＯＫＹＯ ＯＦＦＩＣＥ", "plain": "Likes tea"}
    memory.put_many([_rec(rid, text) for rid, text in contents.items()])
    driver, db = store_of(memory).driver, store_of(memory).database
    for rid, text in contents.items():
        driver.execute_query("MATCH (r:Record {id: $id}) SET r.dedup_key = $k",
                             {"id": rid, "k": _v3_key("semantic", text)}, database_=db)
    driver.execute_query("MATCH (m:GraphmemMigration {name: 'dedup_key'}) SET m.version = 3",
                         database_=db)
    assert migrate(store_of(memory)) == 2  # "Likes tea" has the same key in both versions
    assert migrate(store_of(memory)) == 0
    for rid in contents:
        assert store_of(memory).get_props([rid])[rid]["dedup_key"] == dedup_key(memory.get(rid))
    for rid, twin in (("tr", "istanbul ofisi"), ("fw", "Tokyo office.")):
        dup = memory.write(_rec(f"{rid}-new", twin), now=T0)
        assert dup.disposition is WriteDisposition.DISCARD and dup.duplicate_of == rid


def _race(memory: Memory, variants: list[str], prefix: str) -> None:
    """Write each variant from its own thread, all released at once: exactly one PERSIST."""
    barrier = threading.Barrier(len(variants))
    results: list[str] = []
    lock = threading.Lock()

    def write(i: int) -> None:
        barrier.wait()
        decision = memory.write(_rec(f"{prefix}{i}", variants[i]), by=f"worker-{i}", now=T0)
        with lock:
            results.append(decision.disposition.value)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(variants))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["DISCARD"] * (len(variants) - 1) + ["PERSIST"]
