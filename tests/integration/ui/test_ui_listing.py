"""The inspector's records list against a real Neo4j: each status filter lists exactly the
records ``explain`` gives that status for the principal, and nothing out of its reach; pages
follow one another by cursor with no record twice or missed, read from kept keys or in one
query alike; and what the list keeps is never stale after a write."""

from __future__ import annotations

import html
import itertools
import re
from datetime import timedelta

import pytest

from graphmem.client import Memory, store_of
from graphmem.db.browse import LISTED_STATUSES, ListingFilter
from graphmem.db.ops.listing import ListingOps
from graphmem.models import MemoryKind, Status
from graphmem.ui.config import UiConfig
from graphmem.ui.records import PAGE_SIZE

from .serving import CONFINED, T0, fetch, record, running

pytestmark = pytest.mark.neo4j

_ROW = re.compile(r'<tr><td><a href="/records/[^"]+">([^<]+)</a></td><td>(\w+)</td>'
                  r"<td>(\w+)</td>")
_NEXT = re.compile(r'class="next" href="([^"]+)"')


def _config() -> UiConfig:
    return UiConfig.build(tenants=["acme"], clearance="confidential",
                          scope={"user": CONFINED["user"]})


def _statuses_store(memory: Memory) -> None:
    """Records of u-17 in every status a client can give them, and some out of its reach."""
    memory.put_many([
        record("act-1", "Alice likes jazz"),
        record("old-1", "Alice lives in Lyon", minutes=1),
        record("new-1", "Alice lives in Paris", minutes=2, supersedes=["old-1"]),
        record("gone-1", "A sale until January", minutes=3,
               expires_at=T0 + timedelta(days=1)),
        record("later-1", "Alice starts her new job", minutes=4,
               valid_from=T0 + timedelta(days=3650)),
        record("wrong-1", "Alice is allergic to tea", minutes=5),
        record("ep-2", "Alice mentioned jazz on the call", minutes=6, kind="episodic"),
        record("wide-2", "The office opens at nine", user=None, minutes=7),
        record("bob-2", "Bob's salary is 4411", user="u-18", minutes=8),
        record("secret-1", "Alice's health record", minutes=9, sensitivity="restricted"),
    ])
    memory.retract("wrong-1", by="test", reason="the user corrected it")


def _listed(body: str) -> dict[str, str]:
    return {rid: status for rid, _kind, status in _ROW.findall(body)}


def test_each_status_filter_lists_what_explain_says(memory: Memory) -> None:
    """``status=S`` lists exactly the records in reach whose explanation for the principal is
    S; the default is ACTIVE; ``any`` lists every one in reach; another user's record and a
    record above the clearance are never listed."""
    _statuses_store(memory)
    config = _config()
    reach = {"act-1", "old-1", "new-1", "gone-1", "later-1", "wrong-1", "ep-2", "wide-2"}
    scope = config.query_scope(None)
    truth = {rid: memory.explain(rid, principal=config.principal, scope=scope).status.value
             for rid in reach}
    assert {"ACTIVE", "SUPERSEDED", "EXPIRED", "NOT_YET_VALID", "RETRACTED"} <= set(
        truth.values())
    with running(memory, config) as base:
        everything = _listed(fetch(f"{base}/records?status=any").body)
        assert everything == truth
        assert _listed(fetch(f"{base}/records").body) == {
            r: s for r, s in truth.items() if s == "ACTIVE"}
        for status in LISTED_STATUSES:
            page = fetch(f"{base}/records?status={status.value}")
            assert page.status == 200
            assert _listed(page.body) == {r: s for r, s in truth.items()
                                          if s == status.value}, status
        episodic = _listed(fetch(f"{base}/records?status=any&kind=episodic").body)
        assert episodic == {"ep-2": truth["ep-2"]}
        after = (T0 + timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M")
        recent = _listed(fetch(f"{base}/records?status=any&after={after}").body)
        assert set(recent) == {"gone-1", "later-1", "wrong-1", "ep-2", "wide-2"}
        assert fetch(f"{base}/records?status=DISCARDED").status == 400
        assert fetch(f"{base}/records?cursor=yesterday").status == 400


def _walk(base: str, first: str) -> list[str]:
    """Every id the list shows, following its next links from ``first``."""
    seen: list[str] = []
    path: str | None = first
    while path is not None:
        body = fetch(base + path).body
        rows = _listed(body)
        assert len(rows) <= PAGE_SIZE
        seen += [rid for rid, _kind, _status in _ROW.findall(body)]
        found = _NEXT.search(body)
        path = html.unescape(found.group(1)) if found else None
    return seen


def test_pages_follow_one_another_by_cursor(memory: Memory) -> None:
    """Over three pages, with ties in creation time, the list shows each record once, newest
    first (then by id), for a filter read from kept keys (ACTIVE) and one read in a query
    (RETRACTED) alike."""
    records = [record(f"r-{i:03d}", f"note {i}", minutes=i // 3) for i in range(130)]
    memory.put_many(records)
    for i in range(0, 130, 2):
        memory.retract(f"r-{i:03d}", by="test", reason="half of them")
    expected = sorted(((r["created_at"], r["id"]) for r in records), reverse=True)
    with running(memory, _config()) as base:
        active = _walk(base, "/records")
        assert active == [rid for _, rid in expected if int(rid[2:]) % 2]
        retracted = _walk(base, "/records?status=RETRACTED")
        assert retracted == [rid for _, rid in expected if int(rid[2:]) % 2 == 0]
        assert len(_walk(base, "/records?status=any")) == 130


def test_kept_keys_give_the_pages_a_query_gives(memory: Memory) -> None:
    """ListingOps' pages (kept keys) equal Browsing.listing's (one query) page by page, for
    every filter it answers from its keys."""
    memory.put_many([record(f"k-{i:03d}", f"fact {i}", minutes=i // 4,
                            kind="episodic" if i % 3 else "semantic",
                            authority="human_instruction" if i % 5 == 0 else "model_inferred")
                     for i in range(90)])
    memory.retract("k-010", by="test", reason="wrong")
    store, config = store_of(memory), _config()
    scope, ops = config.query_scope(None), ListingOps(store)
    for where in (ListingFilter(), ListingFilter(status=Status.ACTIVE),
                  ListingFilter(kind=MemoryKind.EPISODIC, status=Status.ACTIVE),
                  ListingFilter(created_after=T0 + timedelta(minutes=5),
                                created_before=T0 + timedelta(minutes=15))):
        now = store.clock()
        mine = theirs = None
        for _ in range(4):
            kept = ops.view(config.principal, scope, now).page(where, mine, 20)
            queried = store.listing(config.principal, scope, now, where=where, after=theirs,
                                    limit=20)
            assert kept == queried, where
            mine, theirs = kept.next, queried.next
            if mine is None:
                break


def test_what_the_list_keeps_follows_every_write(memory: Memory) -> None:
    """After a write, a retraction and a write by another client, the next page and the
    counts show them: nothing kept outlives a change of the records in reach."""
    memory.put_many([record("a-1", "first fact"), record("a-2", "second fact", minutes=1)])
    with running(memory, _config()) as base:
        first = fetch(f"{base}/records").body
        assert set(_listed(first)) == {"a-1", "a-2"} and "2 records, 2 eligible" in first
        memory.put(record("a-3", "third fact", minutes=2))
        second = fetch(f"{base}/records").body
        assert set(_listed(second)) == {"a-1", "a-2", "a-3"}
        assert "3 records, 3 eligible" in second
        memory.retract("a-2", by="test", reason="wrong")
        third = fetch(f"{base}/records").body
        assert set(_listed(third)) == {"a-1", "a-3"}
        counts = re.search(r'<p class="counts">(.*?)</p>', third, re.S)
        assert counts is not None
        assert " ".join(counts.group(1).split()).endswith(
            "3 records, 2 eligible, 0 quarantined, 0 pending recompute, 1 retracted."), counts[1]
        assert _listed(fetch(f"{base}/records?status=RETRACTED").body) == {"a-2": "RETRACTED"}


def test_every_status_filter_reads_only_its_records(memory: Memory) -> None:
    """On one record per combination of the status flags and time conditions (set by Cypher,
    as a hand edit or an older version's data could leave them), ListingOps' page for each
    status equals Browsing.listing's (one query over every record in reach), over pages; and
    it reads rows of that status's records only (and, for ACTIVE, of the superseded ones,
    whose successor the rows query weighs), with no query over every record in reach."""
    flags = ("erased", "quarantined", "pending_recompute", "retracted")
    combos = [dict(zip((*flags, "later", "expired", "superseded"), bits, strict=True))
              for bits in itertools.product((False, True), repeat=7)]
    memory.put_many([record(f"c-{i:03d}", f"note {i}", minutes=i % 40)
                     for i in range(len(combos))])
    memory.put_many([record(f"c-{i:03d}-next", f"newer note {i}", minutes=50,
                            supersedes=[f"c-{i:03d}"])
                     for i, combo in enumerate(combos) if combo["superseded"]])
    now = T0 + timedelta(days=1)
    store = store_of(memory)
    store.driver.execute_query(
        "UNWIND $rows AS row MATCH (r:Record {id: row.id}) "
        "SET r.erased = row.erased, r.quarantined = row.quarantined, "
        "r.pending_recompute = row.pending_recompute, r.retracted = row.retracted, "
        "r.valid_from = row.valid_from, r.expires_at = row.expires_at",
        {"rows": [{"id": f"c-{i:03d}", **{flag: combo[flag] for flag in flags},
                   "valid_from": now + timedelta(days=2) if combo["later"] else None,
                   "expires_at": now - timedelta(hours=1) if combo["expired"] else None}
                  for i, combo in enumerate(combos)]},
        database_=store.database)
    config = _config()
    scope, ops = config.query_scope(None), ListingOps(store)
    read: list[str] = []
    queries: list[str] = []
    real_read = store.read_values

    def counting(name: str, **params: object) -> list[dict[str, object]]:
        queries.append(name)
        if name == "listing/rows":
            read.extend(params["ids"])  # type: ignore[arg-type]
        return real_read(name, **params)

    store.read_values = counting  # type: ignore[method-assign]
    try:
        seen: set[str] = set()
        for status in LISTED_STATUSES:
            read.clear()
            where = ListingFilter(status=status)
            mine = theirs = None
            listed: list[str] = []
            for _ in range(10):
                queries.clear()
                kept = ops.view(config.principal, scope, now).page(where, mine, 20)
                assert "listing/page" not in queries, status  # no pass over the reach
                queried = store.listing(config.principal, scope, now, where=where,
                                        after=theirs, limit=20)
                assert kept == queried, status
                listed += [row.id for row in kept.rows]
                mine, theirs = kept.next, queried.next
                if mine is None:
                    break
            assert mine is None and listed, status
            superseded = {f"c-{i:03d}" for i, combo in enumerate(combos)
                          if combo["superseded"]}
            extra = superseded if status is Status.ACTIVE else set()
            assert set(read) <= set(listed) | extra, status
            seen |= set(listed)
        assert seen == {f"c-{i:03d}" for i in range(len(combos))} | {
            f"c-{i:03d}-next" for i, combo in enumerate(combos) if combo["superseded"]}
    finally:
        del store.read_values
