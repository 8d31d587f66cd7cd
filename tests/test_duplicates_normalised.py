# ruff: noqa: RUF001  (letters of other scripts that look Latin are the point here)
"""One normalisation for duplicate detection (docs/spec/write-path.md): NFKC, case-folded as every
comparison folds (graphmem.fields.fold_case, the Turkish dotted I too), whitespace runs
collapsed, leading/trailing whitespace and trailing sentence punctuation removed, in every
script; the same on the concurrent-writer path, and for keys
stored before it (the migration in graphmem.db.migrations)."""

from __future__ import annotations

import hashlib
import sys
import threading
import unicodedata
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.client import Memory, store_of
from graphmem.db.codec import DEDUP_VERSION, dedup_key
from graphmem.db.migrations import migrate
from graphmem.fields import _TRAILING_TERMINALS, duplicate_text, fold_case
from graphmem.models import MemoryKind, MemoryRecord
from graphmem.write.policy import WriteDisposition

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = {"tenant": "t", "user": "u1"}

# (first write, second write): the second is a duplicate of the first
SAME = [
    ("Prefers dark mode", "Prefers dark mode."),                       # the issue's input
    ("Café latte is preferred", "Cafe\u0301 latte is preferred"),       # composed / decomposed
    ("prefers dark mode", "prefers  dark mode "),                      # case and spaces
    ("Prefers dark mode", "  PREFERS\tdark\u3000mode!!  "),            # tab, ideographic space
    ("Prefers dark mode", "Prefers dark mode..."),
    ("Prefers dark mode", "Prefers dark mode\u2026"),                  # ellipsis
    ("Prefers dark mode", "Prefers dark mode?!"),
    ("喜欢深色模式", "喜欢深色模式。"),                                  # Chinese full stop
    ("ダークモードが好き", "ダークモードが好き\uff01"),                       # fullwidth !
    ("ダークモードが好き", "ダークモードが好き\uff1f"),                       # fullwidth ?
    ("ダークモードが好き", "ダークモードが好き｡"),                        # halfwidth 。
    ("深色模式", "深色模式⋯"),                                          # midline ellipsis
    ("다크 모드를 선호함", "다크 모드를 선호함."),                          # Korean
    ("يفضل الوضع الداكن", "يفضل الوضع الداكن؟"),                        # Arabic question mark
    ("गहरा मोड पसंद है", "गहरा मोड पसंद है।"),                            # Devanagari danda
    ("ጨለማ ሁነታ", "ጨለማ ሁነታ።"),                                        # Ethiopic full stop
    ("Straße gesperrt", "STRASSE GESPERRT."),                          # full case folding
    ("ΣΟΦΟΣ ΑΝΘΡΩΠΟΣ", "σοφος ανθρωπος"),                              # final sigma folds
    ("བཀྲ་ཤིས་བདེ་ལེགས", "བཀྲ་ཤིས་བདེ་ལེགས།"),                                # Tibetan shad
    ("Τι κάνεις", "Τι κάνεις\u037e"),                                  # Greek question mark
    ("ภาษาไทย", "ภาษาไทย\u0e5a"),                                      # Thai angkhankhu
    ("שלום עולם", "שלום עולם\u05c3"),                                  # Hebrew sof pasuq
    ("Ⲡⲉⲛⲓⲱⲧ", "Ⲡⲉⲛⲓⲱⲧ\u2cfe"),                                        # Coptic full stop
]
# pairs that stay different
DIFFERENT = [
    ("Prefers dark mode", "Prefers dark. mode"),    # only trailing punctuation goes
    ("Prefers dark mode", "Prefers dark mode, no"),
    ("?", "!"),                                     # punctuation-only text keeps it
    ("Prefers dark mode", "Prefers darkmode"),
    ("Version 2.0", "Version 2"),                   # "2.0" keeps its inner dot ...
]


@pytest.mark.parametrize(("first", "second"), SAME)
def test_normalised_equal(first: str, second: str) -> None:
    assert duplicate_text(first) == duplicate_text(second)
    a, b = (MemoryRecord(id=i, kind=MemoryKind.SEMANTIC, content=c, created_at=T0, scope=SCOPE)
            for i, c in (("a", first), ("b", second)))
    assert dedup_key(a) == dedup_key(b)


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_normalised_different(first: str, second: str) -> None:
    assert duplicate_text(first) != duplicate_text(second)


def test_blank_is_empty_and_terminal_punctuation_is_listed() -> None:
    assert duplicate_text(" \t\u3000\n") == ""
    assert duplicate_text("ok。\uff01\uff1f…") == "ok"
    assert duplicate_text("Version 2.0.") == "version 2.0"  # ... and loses the final one


# Every sentence-final mark Unicode names, in every script (from the character names, not
# from the properties the normalisation uses): leading marks (inverted, Adlam initial),
# Armenian marks (written over a vowel, not at the end) and Tibetan head marks (yig mgo) stay.
FINAL_MARKS = [chr(cp) for cp in range(sys.maxunicode + 1)
               if unicodedata.category(chr(cp)) == "Po"
               and any(k in unicodedata.name(chr(cp), "") for k in (
                   "FULL STOP", "QUESTION MARK", "EXCLAMATION MARK", "DANDA", "SHAD",
                   "SOF PASUQ"))
               and not any(k in unicodedata.name(chr(cp)) for k in (
                   "INVERTED", "INITIAL", "ARMENIAN", "YIG MGO"))]


@given(text=st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=12),
       mark=st.sampled_from(FINAL_MARKS))
def test_every_scripts_final_mark_goes(text: str, mark: str) -> None:
    assert duplicate_text(text + mark) == duplicate_text(text), hex(ord(mark))


WORDS = st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8)
SPACES = st.text(st.sampled_from(" \t\n\u00a0\u2003\u3000"), min_size=1, max_size=3)
ENDINGS = st.text(st.sampled_from(".!?\u3002\uff01\uff1f\uff61\u2026\u061f\u0964 "),
                  max_size=4)


@given(words=st.lists(WORDS, min_size=1, max_size=5), gaps=st.lists(SPACES, min_size=6,
                                                                    max_size=6),
       ending=ENDINGS, lead=st.sampled_from(["", " ", "\u3000"]))
def test_spelling_variants_normalise_alike(words: list[str], gaps: list[str], ending: str,
                                           lead: str) -> None:
    """Any words of any script: NFD vs NFC, upper vs as-is, other whitespace and a trailing
    run of sentence punctuation all give the same normalised text."""
    plain = " ".join(words)
    variant = lead + "".join(w + g for w, g in zip(words, gaps, strict=False)).rstrip() + ending
    forms = [variant, unicodedata.normalize("NFD", variant)]
    if variant.upper().casefold() == variant.casefold():  # not so for e.g. dotless i
        forms.append(variant.upper())
    for form in forms:
        assert duplicate_text(form) == duplicate_text(plain), form
    assert duplicate_text(duplicate_text(plain)) == duplicate_text(plain)  # idempotent


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


def _v3_key(kind: str, content: str) -> str:
    """The dedup key of version 3 (NFC and casefold only), what stores hold before."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", content).casefold())
    collapsed = " ".join(folded.split())
    text = _TRAILING_TERMINALS.sub("", collapsed) or collapsed
    return hashlib.sha256(f"{kind}\x1f{text}".encode()).hexdigest()


@pytest.mark.parametrize(("script", "first", "second"), CASE_TWINS,
                         ids=[t[0] for t in CASE_TWINS])
def test_case_twins_normalise_alike(script: str, first: str, second: str) -> None:
    assert duplicate_text(first) == duplicate_text(second), script
    assert duplicate_text(first) == fold_case(duplicate_text(first))  # one folding


@pytest.mark.parametrize(("first", "second"), CASE_DIFFERENT)
def test_case_lookalikes_stay_different(first: str, second: str) -> None:
    assert duplicate_text(first) != duplicate_text(second)


@given(text=st.text(min_size=1, max_size=20))
def test_duplicate_text_folds_as_fold_case(text: str) -> None:
    """Upper- and lower-casing any text, in any script, gives the same duplicate text
    wherever the one folding says the two are equal."""
    for other in (text.upper(), text.lower(), text.title()):
        if fold_case(other) == fold_case(text):
            assert duplicate_text(other) == duplicate_text(text)


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
