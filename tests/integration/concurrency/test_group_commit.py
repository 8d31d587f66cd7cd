"""Group commit: writes from many threads through one driver are stored in one
statement and one commit, each decided exactly as it would be alone."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import catalogue
from graphmem.db.batches import _Entry
from graphmem.db.group_commit import (
    GroupCommit,
    Write,
    group_for,
)
from graphmem.db.store import Neo4jStore
from graphmem.errors import ClientClosedError
from graphmem.write.policy import WriteDisposition
from tests.support.database import KeptDriver, Neo4jUnderTest
from tests.support.group_commit import Threads, held
from tests.support.writers import ACME, SCOPE, T0, rec


def test_a_batch_decides_each_write_as_alone(memory: Memory) -> None:
    """Distinct writes are stored; of two identical proposals in one batch exactly one is; a
    duplicate of a stored record and a copy of a stored id are turned away and decided alone,
    with the outcomes they get alone; every record gets its own slot stamp."""
    memory.write(rec("stored"), now=T0)
    memory.write(rec("earlier", content="the earlier observation of the pipeline"), now=T0)
    store = store_of(memory)
    writers = [Memory(Neo4jStore(store.driver, database=store.database)) for _ in range(3)]
    proposals = ([rec(f"new-{i}") for i in range(6)] + [rec("twin"), rec("twin")]
                 + [rec("dup", content="the earlier observation of the pipeline"),
                    rec("stored")])
    group = group_for(store)
    batches0 = group.batches
    with held(group, len(proposals)) as release:
        started = Threads(lambda i: writers[i % 3].write(proposals[i], now=T0), len(proposals))
        release()
        decisions = started.join()
    assert group.batches == batches0 + 1  # all ten in one batch
    assert group.in_flight == 0 and group.waiting == []  # nothing left counted in flight
    outcome = {(p["id"], d.disposition) for p, d in zip(proposals, decisions, strict=True)}
    persisted = [d.record_id for d in decisions if d.disposition is WriteDisposition.PERSIST]
    assert sorted(persisted) == sorted([f"new-{i}" for i in range(6)] + ["twin"])
    assert ("dup", WriteDisposition.DISCARD) in outcome
    assert ("stored", WriteDisposition.DISCARD) in outcome
    assert [d.disposition for d in decisions[6:8]].count(WriteDisposition.DISCARD) == 1
    visible = {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}
    assert visible == {"stored", "earlier", "twin", *(f"new-{i}" for i in range(6))}
    stamps, _, _ = store.driver.execute_query(
        "MATCH (r:Record) WHERE r.wslot IS NOT NULL RETURN r.wslot AS s, r.wseq AS q",
        database_=store.database)
    pairs = [(row["s"], row["q"]) for row in stamps]
    assert len(pairs) == 9 and len(set(pairs)) == 9
    for rid in ("dup", "stored", "twin"):  # every decision logged once per proposal
        assert len(memory.history(rid)) == {"dup": 1, "stored": 2, "twin": 2}[rid], rid


def test_a_batch_that_fails_stores_nothing_and_each_write_runs_alone(memory: Memory) -> None:
    """One write the server refuses fails the batch as a whole: none of it is stored, every
    write comes back "run alone", and alone the others are stored."""
    store = store_of(memory)
    writers = [Memory(Neo4jStore(store.driver, database=store.database)) for _ in range(3)]
    for i, w in enumerate(writers):  # the scope's nodes, and a real params map to copy
        w.write(rec(f"seed-{i}"), now=T0)
    captured: list[dict[str, Any]] = []
    original = store.write_once

    def capture(name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "write/new":
            captured.append(params["write"])
        return original(name, **params)

    store.write_once = capture  # type: ignore[method-assign]
    try:
        for i in range(3):
            memory.write(rec(f"late-{i}"), now=T0)
    finally:
        del store.write_once
    # delete them again, so the batch below would store them
    store.driver.execute_query(
        "MATCH (r:Record) WHERE r.id STARTS WITH 'late-' "
        "OPTIONAL MATCH (d:WriteDecision)-[:DECIDED]->(r) DETACH DELETE r, d",
        database_=store.database)
    # a write the statement keeps (its own id and dedup key) that the server then refuses
    row = captured[0]["row"]
    bad = {**captured[0], "ids": ["bad"], "dedup_key": "bad", "row": {
        **row, "props": {**row["props"], "id": "bad"},
        "times": {**row["times"], "created_at": "not a time"}}}
    batch: list[_Entry[Write, bool]] = [_Entry((store, p)) for p in (*captured, bad)]
    GroupCommit()._run(batch)
    assert all(w.result is None for w in batch)
    rows, _, _ = store.driver.execute_query(
        "MATCH (r:Record) WHERE r.id STARTS WITH 'late-' OR r.id = 'bad' RETURN count(r) AS n",
        database_=store.database)
    assert rows[0]["n"] == 0
    good: list[_Entry[Write, bool]] = [_Entry((store, p)) for p in captured[:2]]  # not the bad
    GroupCommit()._run(good)
    assert [w.result for w in good] == [True, True]
    visible = {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}
    assert {"late-0", "late-1"} <= visible and "late-2" not in visible


def test_clients_of_one_settings_share_a_driver_until_the_last_closes(
        neo4j_db: Neo4jUnderTest, kept_driver: KeptDriver) -> None:
    kept_driver.release()  # the suite's held client would be the last to close otherwise
    first = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    second = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    assert store_of(first).driver is store_of(second).driver
    first.close()
    first.close()  # a second close releases nothing more
    assert store_of(second).driver.execute_query("RETURN 1 AS one")[0][0]["one"] == 1
    second.close()
    third = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    try:
        assert store_of(third).driver is not store_of(first).driver  # the old one was closed
    finally:
        third.close()


def test_a_closed_client_sends_nothing_while_its_driver_stays_open(
        neo4j_db: Neo4jUnderTest) -> None:
    """Found by a new user: a closed client kept writing while another client of the same
    settings held the shared driver open."""
    first = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    second = Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
    try:
        first.close()
        for call in (lambda: first.write(rec("after-close"), now=T0),
                     lambda: first.candidates(principal=ACME, scope=SCOPE, now=T0),
                     lambda: first.get("after-close")):
            with pytest.raises(ClientClosedError):
                call()
        assert store_of(second).get_many(["after-close"]) == {}  # nothing was written
    finally:
        second.close()


def test_the_batch_statement_plans_without_notifications(memory: Memory) -> None:
    """No variable of the batch shadows one of its subqueries' (Neo4j's 03N60 notice,
    printed under ``python -X dev``), nor any other notice."""
    _, summary, _ = store_of(memory).driver.execute_query(
        "EXPLAIN " + catalogue.statement("write/new_batch"),
        catalogue.arguments("write/new_batch", {"writes": [], "slots": []}),
        database_=store_of(memory).database)
    assert [n.gql_status for n in summary.gql_status_objects
            if n.is_notification] == []


@pytest.mark.parametrize("writers", [8])
def test_writers_racing_through_one_driver_batch_and_lose_nothing(
        memory: Memory, neo4j_db: Neo4jUnderTest, writers: int) -> None:
    """Many threads through one driver: batches form, every write is stored once, with its
    own stamp, and no transaction is retried."""
    from graphmem.db import retries

    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
               for _ in range(writers)]
    group = group_for(store_of(clients[0]))
    batches0, retries0 = group.batches, retries.retry_count()
    barrier = threading.Barrier(writers)

    def work(w: int) -> list[WriteDisposition]:
        barrier.wait()
        return [clients[w].write(rec(f"r{w}-{i}", asserts="deploy.owner" if i % 3 == 0 else None,
                                     asserted_value=f"team-{w}-{i}" if i % 3 == 0 else None),
                                 now=T0).disposition for i in range(30)]

    try:
        results = Threads(work, writers).join()
    finally:
        for c in clients:
            c.close()
    assert all(d is WriteDisposition.PERSIST for r in results for d in r)
    assert group.batches > batches0
    assert retries.retry_count() == retries0
    visible = {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}
    assert visible == {f"r{w}-{i}" for w in range(writers) for i in range(30)}
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (r:Record) RETURN r.wslot AS s, r.wseq AS q, EXISTS { (r)-[:ASSERTS]->() } AS g,"
        " r.asserts IS NOT NULL AS a", database_=store_of(memory).database)
    assert len({(row["s"], row["q"]) for row in rows}) == writers * 30
    assert all(row["g"] == row["a"] for row in rows)


def test_every_write_path_chains_the_drivers_bookmarks(memory: Memory) -> None:
    """Reads go through ``execute_query``, whose bookmark manager makes a read wait, in a
    cluster, for the writes it has seen. A write sent in a session of its own (write/new as an
    auto-commit statement, the full transaction) must hand its bookmark to that manager,
    else the agent's read right after its own write could miss it on another member."""
    manager = store_of(memory).driver.execute_query_bookmark_manager
    seen = [frozenset(manager.get_bookmarks())]
    memory.write(rec("chained"), now=T0)  # write/new, auto-commit
    seen.append(frozenset(manager.get_bookmarks()))
    assert memory.write(rec("chained"), now=T0).disposition is WriteDisposition.DISCARD
    seen.append(frozenset(manager.get_bookmarks()))  # the full transaction logged a DISCARD
    assert all(seen[1:]) and len(set(seen)) == 3
