"""A triggered read logs itself on a "graphmem-log" thread while it ranks, in one transaction
committed with what it selected: held to the synchronous log's result and attacked
(failed statements, a raising ranker, an unknown commit outcome, threads, close). A retrieval
is logged once or not at all, and no retrieval_log transaction stays open."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import neo4j
import pytest
from neo4j.exceptions import IncompleteCommit, TransientError

from graphmem.client import Memory, store_of
from graphmem.db.base import OpenTransaction
from graphmem.errors import ClientClosedError, DatabaseUnavailableError, GraphmemError
from graphmem.models import MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.read.pipeline import Retrieval, coerce_state
from tests.support.database import Neo4jUnderTest
from tests.support.record_sets import T0

AT = T0 + timedelta(days=1)
LEAK_S = 30
READER = Principal(tenants=frozenset({"a"}), clearance=Sensitivity.RESTRICTED)
SCOPE = {"tenant": "a", "project": "p"}
STATE: dict[str, Any] = {"memory_scope": SCOPE, "goal": "refund policy limit",
                         "needs_prior_context": True}


def note(rid: str) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, content=f"refund policy note {rid}",
                        created_at=T0, scope=SCOPE)


def claim(rid: str, value: str) -> MemoryRecord:
    """A record asserting refund.limit: two of them with different values conflict."""
    return MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, scope=SCOPE, created_at=T0,
                        content=f"the refund policy limit is {value} EUR",
                        asserts="refund.limit", asserted_value=value)


def seed(memory: Memory, n: int = 12) -> None:
    memory.put_many([*(note(f"m{i:03d}") for i in range(n)),
                     claim("lim-500", "500"), claim("lim-750", "750")])


def query(memory: Memory, cypher: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = store_of(memory).driver.execute_query(
        cypher, params, database_=store_of(memory).database)
    return [r.data() for r in records]


def log_transactions(memory: Memory) -> list[dict[str, Any]]:
    """Open transactions tagged retrieval_log (id, status, seconds running)."""
    return query(memory, "SHOW TRANSACTIONS YIELD transactionId AS id, metaData, status, "
                         "elapsedTime WHERE metaData.graphmem_tx = 'retrieval_log' "
                         "RETURN id, status, elapsedTime.seconds AS s")


def logged(memory: Memory) -> dict[str, int]:
    """Retrieval nodes per id (the key) with their number of SELECTED edges."""
    rows = query(memory, "MATCH (q:Retrieval) "
                         "RETURN q.id AS id, count{ (q)-[:SELECTED]->() } AS edges")
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "a retrieval was logged twice"
    return {r["id"]: r["edges"] for r in rows}


def by_rank(selected: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(selected, key=lambda s: int(s["rank"]))


def assert_logged_as_returned(memory: Memory, result: Retrieval) -> dict[str, Any]:
    """The log of ``result`` reads back its candidates, selection, conflicts and edges."""
    got = memory.get_retrieval(result.trace.retrieval_id)
    retrieval = got["retrieval"]
    assert retrieval["candidate_ids"] == list(result.trace.candidate_ids)
    assert retrieval["selected_ids"] == result.ids
    assert retrieval["conflict_keys"] == [c.key for c in result.conflicts]
    assert by_rank(got["selected"]) == [
        {"id": m.record.id, "score": m.score, "reason": m.reason, "rank": i}
        for i, m in enumerate(result.memories)]
    assert logged(memory)[result.trace.retrieval_id] == len(result.memories)
    return got


def end_log_transactions(memory: Memory, older_than_s: float) -> list[str]:
    """Terminate retrieval_log transactions running for ``older_than_s`` seconds (a leaked
    one holds its locks: a read waiting for them would hang); their ids."""
    ids = [r["id"] for r in log_transactions(memory)
           if r["s"] >= older_than_s and r["status"] == "Running"]
    if ids:
        query(memory, "TERMINATE TRANSACTIONS $ids", ids=ids)
    return ids


@pytest.fixture(autouse=True)
def no_leaked_log_transaction(memory: Memory) -> Iterator[None]:
    """Fail, not hang, a test that leaves a retrieval_log transaction open: one open for
    LEAK_S seconds is ended, and so is any left at the end."""
    ended: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(1):
            ended.extend(end_log_transactions(memory, LEAK_S))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    yield
    stop.set()
    watcher.join()
    ended.extend(end_log_transactions(memory, 0))
    if ended:
        pytest.fail(f"retrieval_log transactions left open and terminated: {ended}")


def fail_once(monkeypatch: pytest.MonkeyPatch, step: str, exc: BaseException) -> list[str]:
    """Make the first ``step`` of an OpenTransaction raise ``exc``: a statement (it runs,
    then raises: the server's transaction stays open) or "commit" (refused, not written;
    an IncompleteCommit after committing)."""
    real_run, real_commit = OpenTransaction.run, OpenTransaction.commit
    failed: list[str] = []

    def run(self: OpenTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
        rows = real_run(self, name, **params)
        if name == step and not failed:
            failed.append(name)
            raise exc
        return rows

    def commit(self: OpenTransaction) -> None:
        if step == "commit" and not failed:
            failed.append(step)
            if isinstance(exc, IncompleteCommit):
                real_commit(self)
            raise exc
        real_commit(self)

    monkeypatch.setattr(OpenTransaction, "run", run)
    monkeypatch.setattr(OpenTransaction, "commit", commit)
    return failed


def test_the_overlapped_log_reads_back_like_the_synchronous_log(memory: Memory) -> None:
    """Protects: a retrieval logged while ranking (open_retrieval/finish) stores what
    log_retrieval stores for the same trace: Retrieval properties, candidate ids, selected
    ids, conflict keys and SELECTED edges (score, reason, rank), as a whole set and as a
    delta after a write."""
    seed(memory)
    state = coerce_state(STATE)
    for step in range(2):
        if step:
            memory.put(note("m100"))  # a new set, logged as a delta of the first
        result = memory.retrieve(STATE, principal=READER, now=AT)
        assert [c.key for c in result.conflicts] == ["refund.limit"] and result.memories
        again = replace(result.trace, retrieval_id=f"{result.trace.retrieval_id}-sync")
        memory._log.log_retrieval(again, result.memories, result.conflicts, READER, state)
        overlapped = assert_logged_as_returned(memory, result)
        synchronous = memory.get_retrieval(again.retrieval_id)
        # the id and the server's write time differ; everything else is the same
        same = {"id": None, "written_at": None}
        assert {**overlapped["retrieval"], **same} == {**synchronous["retrieval"], **same}
        assert overlapped["retrieval"]["written_at"] <= synchronous["retrieval"]["written_at"]
        assert by_rank(overlapped["selected"]) == by_rank(synchronous["selected"])
    assert len(logged(memory)) == 4
    assert query(memory, "MATCH (cs:CandidateSet) RETURN cs.base_digests IS NULL AS whole "
                         "ORDER BY whole") == [{"whole": False}, {"whole": True}]


@pytest.mark.parametrize("exc", [
    TransientError("injected"), UnicodeEncodeError("utf-8", "\ud800", 0, 1, "injected")],
    ids=["transient", "unicode"])
def test_a_failed_first_statement_is_logged_once_by_the_fallback(
        memory: Memory, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """Protects: when retrieval/log fails on the log's thread (a driver error, or a string
    the driver cannot send), its transaction is rolled back and the retrieval is logged
    again, exactly once, and no retrieval_log transaction is left open."""
    seed(memory)
    failed = fail_once(monkeypatch, "retrieval/log", exc)
    result = memory.retrieve(STATE, principal=READER, now=AT)
    assert failed == ["retrieval/log"]
    assert_logged_as_returned(memory, result)
    assert list(logged(memory)) == [result.trace.retrieval_id]
    assert log_transactions(memory) == []


@pytest.mark.parametrize("step", ["retrieval/selected", "commit"])
def test_a_failed_selection_or_commit_is_logged_once_by_the_fallback(
        memory: Memory, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """Protects: when retrieval/selected (after creating its edges) or the commit fails with
    a driver error other than IncompleteCommit, the open transaction is rolled back and the
    fallback logs the retrieval once: one node, each SELECTED edge once, nothing left open;
    the next read logs normally."""
    seed(memory)
    failed = fail_once(monkeypatch, step, neo4j.exceptions.ServiceUnavailable("injected"))
    result = memory.retrieve(STATE, principal=READER, now=AT)
    assert failed == [step]
    assert_logged_as_returned(memory, result)
    assert log_transactions(memory) == []
    memory.put(note("m100"))
    after = memory.retrieve(STATE, principal=READER, now=AT)
    assert_logged_as_returned(memory, after)
    assert set(logged(memory)) == {result.trace.retrieval_id, after.trace.retrieval_id}


class RankerBroke(ValueError):
    pass


class BrokenRanker:
    """Raises once the retrieval's log transaction is open (so there is one to roll back)."""

    name = "broken"

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.saw_open_log = False
        self.error = RankerBroke("the ranker broke")

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        deadline = time.monotonic() + 10
        while not self.saw_open_log and time.monotonic() < deadline:
            self.saw_open_log = bool(log_transactions(self.memory))
            time.sleep(0.02)
        raise self.error


def test_a_ranker_that_raises_logs_nothing_and_leaves_nothing_open(memory: Memory) -> None:
    """Protects: PendingRetrievalLog.cancel: the ranker's exception propagates unchanged,
    the open transaction is rolled back (no Retrieval, no CandidateSet, nothing left open)
    and the next read is logged."""
    seed(memory)
    ranker = BrokenRanker(memory)
    with pytest.raises(RankerBroke) as info:
        memory.retrieve(STATE, principal=READER, now=AT, ranker=ranker)
    assert info.value is ranker.error
    assert ranker.saw_open_log
    assert log_transactions(memory) == []
    assert logged(memory) == {}
    assert query(memory, "MATCH (cs:CandidateSet) RETURN count(cs) AS n") == [{"n": 0}]
    result = memory.retrieve(STATE, principal=READER, now=AT)
    assert_logged_as_returned(memory, result)
    assert list(logged(memory)) == [result.trace.retrieval_id]


def test_an_incomplete_commit_raises_a_graphmem_error_and_logs_no_duplicate(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Protects: a commit whose outcome is unknown (IncompleteCommit; here it did commit)
    leaves as DatabaseUnavailableError chained to it, never a raw neo4j error, and is not
    logged again by the fallback (a second Retrieval would violate its unique id)."""
    seed(memory)
    failed = fail_once(monkeypatch, "commit", IncompleteCommit("injected: connection lost"))
    with pytest.raises(GraphmemError) as info:
        memory.retrieve(STATE, principal=READER, now=AT)
    assert failed == ["commit"] and type(info.value) is DatabaseUnavailableError
    assert isinstance(info.value.__cause__, IncompleteCommit)
    [(rid, edges)] = logged(memory).items()
    assert edges == len(memory.get_retrieval(rid)["retrieval"]["selected_ids"]) > 0
    assert log_transactions(memory) == []
    result = memory.retrieve(STATE, principal=READER, now=AT)
    assert_logged_as_returned(memory, result)
    assert set(logged(memory)) == {rid, result.trace.retrieval_id}


def test_threads_of_one_client_log_each_retrieval_once(memory: Memory) -> None:
    """Protects: many threads reading (and writing) through one client at once, with the
    log's worker pool shared between them: every retrieval is logged exactly once and reads
    back its own candidates and selection; no error, nothing left open."""
    seed(memory, 30)
    results: list[Retrieval] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def loop(worker: int) -> None:
        try:
            for i in range(10):
                if i % 2 == 0:
                    memory.put(note(f"w{worker}-{i}"))
                r = memory.retrieve(STATE, principal=READER, now=AT)
                with lock:
                    results.append(r)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=loop, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert len(results) == 80
    assert set(logged(memory)) == {r.trace.retrieval_id for r in results}
    for r in results:
        assert_logged_as_returned(memory, r)
    assert log_transactions(memory) == []


def log_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("graphmem-log")}


def test_close_stops_the_log_threads(memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Protects: Memory.close shuts the log's worker pool down: no graphmem-log thread of
    the closed client stays alive, and a read after close starts none."""
    seed(memory)
    before = log_threads()
    client = Memory.connect(neo4j_db.settings, start_if_needed=False)
    try:
        results = [client.retrieve(STATE, principal=READER, now=AT) for _ in range(3)]
        started = log_threads() - before
        assert started  # the overlapped log ran on threads of its own
    finally:
        client.close()
    assert not any(t.is_alive() for t in started)
    with pytest.raises(ClientClosedError):
        client.retrieve(STATE, principal=READER, now=AT)
    assert log_threads() - before == set()
    for r in results:
        assert_logged_as_returned(memory, r)



class WaitingRanker:
    """Scores every record 1 once ``go`` is set (a read held mid-ranking)."""

    name = "waiting"

    def __init__(self) -> None:
        self.ranking = threading.Event()
        self.go = threading.Event()

    def score(self, query: str, records: Sequence[MemoryRecord]) -> list[float]:
        self.ranking.set()
        assert self.go.wait(30)
        return [1.0] * len(records)


def test_a_read_ranking_while_its_client_closes_logs_nothing(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Protects: "a closed client sends nothing more" for the overlapped log. A read whose
    log transaction is open while another thread closes its client raises ClientClosedError
    and commits nothing, though a second client keeps the shared driver open, and no
    graphmem-log thread of it survives."""
    seed(memory)
    before = log_threads()
    client = Memory.connect(neo4j_db.settings, start_if_needed=False)
    ranker = WaitingRanker()
    outcome: list[BaseException | Retrieval] = []

    def read() -> None:
        try:
            outcome.append(client.retrieve(STATE, principal=READER, now=AT, ranker=ranker))
        except BaseException as exc:  # reported below
            outcome.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        assert ranker.ranking.wait(30)
        client.close()
    finally:
        ranker.go.set()
        reader.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], ClientClosedError), outcome
    assert logged(memory) == {} and not log_transactions(memory)
    assert log_threads() - before == set()
    assert_logged_as_returned(memory, memory.retrieve(STATE, principal=READER, now=AT))
