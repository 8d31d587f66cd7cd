"""Crash tests against a real server process.

One throwaway launcher server for the crash tests (``crash_server``, shared with the
group-commit breaker's), on its own temporary home (not the session's ``neo4j_db``): each
test ``kill -9``s its Java process in the middle of something, starts a new server on the
SAME home and port (Neo4j recovers the store from its transaction log) and
checks what survived. Each test works in its own tenant, so they share the server without
seeing each other's records; the server is restarted by every test, so a test never depends
on one before it.

Sizes: ``GRAPHMEM_CRASH_IMPORT_RECORDS`` (default 10^4; 10^5 under ``--heavy``) and
``GRAPHMEM_CRASH_DELETE_RECORDS`` (default 10^4). At 10^4 the import is still killed in the
middle of its batches (at 30%: 3 of 10 whole batches and part of a fourth written), so the
same property is checked: whole batches survive and the re-import completes.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import DatabaseUnavailableError, GraphmemError, RecordNotFoundError
from graphmem.models import Principal
from tests.support.crash import JOIN_S, RETRY_S, CrashableServer, query, wait_until
from tests.support.sizes import size

pytestmark = pytest.mark.neo4j

IMPORT_RECORDS = size(10_000, 100_000, env="GRAPHMEM_CRASH_IMPORT_RECORDS")
DELETE_RECORDS = size(10_000, 10_000, env="GRAPHMEM_CRASH_DELETE_RECORDS")
IMPORT_BATCH = 1000
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def record(rid: str, tenant: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "created_at": NOW.isoformat(),
            "scope": {"tenant": tenant, **extra}}


# ------------------------------------------------------------------------------------ (a)


def test_import_killed_midway_keeps_whole_batches_and_reimport_completes(
    crash_server: CrashableServer, tmp_path: Path,
) -> None:
    tenant = "crash-import"
    path = tmp_path / "records.jsonl"
    ids = [f"imp-{i:06d}" for i in range(IMPORT_RECORDS)]
    with path.open("w", encoding="utf-8") as fh:
        for i, rid in enumerate(ids):
            fh.write(json.dumps(record(rid, tenant, f"imported fact {i}", part=f"p{i % 7}"))
                     + "\n")
    settings = crash_server.settings
    count_q = "MATCH (r:Record {tenant: $t}) RETURN count(r) AS n"
    errors: list[BaseException] = []
    memory = Memory.connect(settings, start_if_needed=False)

    def run() -> None:
        try:
            memory.import_jsonl(path, batch_size=IMPORT_BATCH)
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    target = max(IMPORT_BATCH, IMPORT_RECORDS * 3 // 10)

    def progressed() -> bool:
        assert worker.is_alive(), f"the import ended before the kill: {errors}"
        return int(query(settings, count_q, t=tenant)[0]["n"]) >= target

    wait_until(progressed, 1800, f"{target} imported records")
    crash_server.kill()
    worker.join(JOIN_S)
    assert not worker.is_alive(), "import_jsonl hung after the server died"
    memory.close()
    assert len(errors) == 1 and isinstance(errors[0], DatabaseUnavailableError), errors

    crash_server.restart()
    settings = crash_server.settings
    present = {row["id"] for row in query(
        settings, "MATCH (r:Record {tenant: $t}) RETURN r.id AS id", t=tenant)}
    assert target <= len(present) < IMPORT_RECORDS
    # Each batch is one transaction, committed in file order: what survived is exactly the
    # first whole batches (so a multiple of the batch size).
    assert len(present) % IMPORT_BATCH == 0
    assert present == set(ids[:len(present)])
    orphans = query(settings, "MATCH (r:Record {tenant: $t}) WHERE NOT (r)-[:IN_SCOPE]->() "
                              "RETURN count(r) AS n", t=tenant)
    assert orphans[0]["n"] == 0

    with Memory.connect(settings, start_if_needed=False) as again:
        created = again.import_jsonl(path, batch_size=IMPORT_BATCH)
    assert sorted(created) == ids[len(present):]
    totals = query(settings, "MATCH (r:Record {tenant: $t}) "
                             "RETURN count(r) AS n, count(DISTINCT r.id) AS d", t=tenant)
    assert totals == [{"n": IMPORT_RECORDS, "d": IMPORT_RECORDS}]


# ------------------------------------------------------------------------------------ (b)


def test_deletion_killed_midway_resumes_and_disposes_each_node_once(
    crash_server: CrashableServer,
) -> None:
    tenant = "crash-delete"
    subject = {"tenant": tenant, "user": "u-erase"}
    settings = crash_server.settings
    with Memory.connect(settings, start_if_needed=False) as memory:
        chunk = 2000
        for start in range(0, DELETE_RECORDS, chunk):
            memory.put_many([record(f"del-{i:06d}", tenant, f"private note {i}", user="u-erase")
                             for i in range(start, min(start + chunk, DELETE_RECORDS))])
        memory.put(record("keep-1", tenant, "someone else's note", user="u-keep"))
        plan = memory.plan_deletion(subject=subject, requested_by="dpo", reason="erasure")
    assert len(plan.entries) >= DELETE_RECORDS

    killed_at: list[int] = []
    batch = 500
    with Memory.connect(settings, start_if_needed=False) as memory:

        def progress(done: int, total: int) -> None:
            if not killed_at and done >= total * 2 // 5:
                killed_at.append(done)
                crash_server.kill()

        started = time.monotonic()
        with pytest.raises(DatabaseUnavailableError):
            memory.apply_deletion(plan, batch_size=batch, progress=progress)
        assert time.monotonic() - started < JOIN_S
    assert killed_at and killed_at[0] < len(plan.entries)

    crash_server.restart()
    settings = crash_server.settings
    with Memory.connect(settings, start_if_needed=False) as memory:
        state = query(settings, "MATCH (q:DeletionRequest {id: $id}) RETURN q.state AS s",
                      id=plan.request_id)
        assert state == [{"s": "applying"}]
        report = memory.apply_deletion(plan, batch_size=batch)
        assert report.verification.passed, report.verification.problems
        assert report.request.state == "applied"
        verified = memory.verify_deletion(plan.request_id)
        assert verified.verification.passed
        assert memory.get("keep-1").content == "someone else's note"
    audit = query(settings, "MATCH (:DeletionRequest {id: $id})-[d:DISPOSED]->(n) "
                            "RETURN n.id AS id, count(d) AS times", id=plan.request_id)
    assert len(audit) == len(plan.entries)
    assert {row["id"] for row in audit} == {e.id for e in plan.entries}
    assert all(row["times"] == 1 for row in audit)
    leftover = query(settings, "MATCH (r:Record {tenant: $t}) WHERE r.id STARTS WITH 'del-' "
                               "AND (r.erased IS NULL OR NOT r.erased OR r.content IS NOT NULL) "
                               "RETURN count(r) AS n", t=tenant)
    assert leftover == [{"n": 0}]


# ------------------------------------------------------------------------------------ (c)


def test_write_burst_killed_loses_no_acknowledged_write_and_half_writes_nothing(
    crash_server: CrashableServer,
) -> None:
    tenant = "crash-burst"
    settings = crash_server.settings
    threads = 8
    acked: dict[str, str] = {}  # id -> disposition
    attempted: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    stop = threading.Event()
    memory = Memory.connect(settings, start_if_needed=False)

    def writer(n: int) -> None:
        i = 0
        while not stop.is_set():
            rid = f"burst-{n}-{i:05d}"
            with lock:
                attempted.append(rid)
            try:
                decision = memory.write(record(rid, tenant, f"thread {n} observation {i}",
                                               thread=f"t{n}"), by=f"agent-{n}", now=NOW)
            except GraphmemError as exc:
                with lock:
                    failures.append(exc)
                return
            with lock:
                acked[rid] = decision.disposition.value
            i += 1

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    wait_until(lambda: len(acked) >= 200, 600, "200 acknowledged writes")
    crash_server.kill()
    stop.set()
    for w in workers:
        w.join(JOIN_S)
    assert not any(w.is_alive() for w in workers), "a write hung after the server died"
    memory.close()
    assert failures, "no writer noticed the crash"
    assert all(isinstance(f, DatabaseUnavailableError) for f in failures), failures

    crash_server.restart()
    settings = crash_server.settings
    rows = query(settings, """
        UNWIND $ids AS id
        OPTIONAL MATCH (r:Record {id: id})
        OPTIONAL MATCH (r)-[:IN_SCOPE]->(s:Scope)
        OPTIONAL MATCH (w:WriteDecision {record_id: id})
        RETURN id, r IS NOT NULL AS record, count(DISTINCT s) AS scopes,
               count(DISTINCT w) AS decisions, collect(DISTINCT w.disposition) AS disp
        """, ids=attempted)
    by_id = {row["id"]: row for row in rows}
    for rid, disposition in acked.items():  # durability of what was acknowledged
        row = by_id[rid]
        assert row["decisions"] == 1 and row["disp"] == [disposition], row
        assert row["record"] == (disposition != "DISCARD"), row
        if row["record"]:
            assert row["scopes"] == 1, row
    for rid in set(attempted) - set(acked):  # all or nothing for the rest
        row = by_id[rid]
        whole = row["record"] and row["scopes"] == 1 and row["decisions"] == 1
        nothing = not row["record"] and row["decisions"] == 0
        assert whole or nothing, row


# ------------------------------------------------------------------------------------ (d)


def test_live_client_survives_a_restart_or_fails_typed_within_bounds(
    crash_server: CrashableServer,
) -> None:
    tenant = "crash-live"
    principal = Principal(tenants=frozenset({tenant}))
    memory = Memory.connect(crash_server.settings, start_if_needed=False)
    try:
        memory.put(record("live-1", tenant, "the deploy window is friday"))
        crash_server.kill()
        bound = RETRY_S + 5.0 + 30.0  # retry time + acquisition timeout + a loaded CPU's slack
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailableError):
            memory.get("live-1")
        assert time.monotonic() - started < bound
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailableError):
            memory.write(record("live-2", tenant, "never stored"), now=NOW)
        assert time.monotonic() - started < bound

        crash_server.restart()  # same port: the same client object reconnects
        assert memory.get("live-1").content == "the deploy window is friday"
        decision = memory.write(record("live-3", tenant, "stored after the restart"), now=NOW)
        assert decision.record_id == "live-3"
        got = memory.retrieve({"memory_scope": {"tenant": tenant}, "goal": "deploy window",
                               "needs_prior_context": True}, principal=principal, now=NOW)
        assert "live-1" in got.ids
        with pytest.raises(RecordNotFoundError):
            memory.get("live-2")
    finally:
        memory.close()
