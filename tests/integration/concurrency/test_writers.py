"""Writers into one scope: no deadlocks, and nodes the write path only MATCHes
may vanish (a wipe, an evaluation's cleanup) without losing a write or a version bump."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db.codec import scope_key
from graphmem.db.store import Neo4jStore
from graphmem.errors import DanglingReferenceError, RecordConflictError, ValidationError
from graphmem.fields import MAX_NAME_BYTES, MAX_SCOPE_BYTES
from graphmem.models import MemoryRecord
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest, race
from tests.support.writers import ACME, SCOPE, T0, rec


def visible(memory: Memory) -> set[str]:
    return {r.id for r in memory.candidates(principal=ACME, scope=SCOPE, now=T0)}


def test_eight_writers_into_one_new_scope_never_deadlock(
        memory: Memory, neo4j_db: Neo4jUnderTest) -> None:
    """Before: MERGE of the existing ScopeVersion took a shared lock that the rev bump then
    upgraded; two writers holding it deadlocked (the driver retried, ~20 per 80 writes)."""
    workers, each = 8, 6
    clients = [Memory.connect(neo4j_db.settings, start_if_needed=False, ensure_schema=False)
               for _ in range(workers)]
    barrier = threading.Barrier(workers)
    results: list[str] = []
    lock = threading.Lock()

    def write(w: int) -> None:
        barrier.wait()
        for i in range(each):
            decision = clients[w].write(rec(f"w{w}-{i}"), by=f"worker-{w}", now=T0)
            with lock:
                results.append(decision.disposition.value)

    assert race(write, clients) == 0
    assert results == ["PERSIST"] * (workers * each)
    assert visible(memory) == {f"w{w}-{i}" for w in range(workers) for i in range(each)}
    assert store_of(memory).counts()["Scope"] == 1


def test_writes_after_the_scope_nodes_vanished(memory: Memory) -> None:
    """The store object remembers which Scope, ScopeVersion, WriteSlot and Assertion nodes
    exist; after a wipe it must create them again inside the write, and still bump the
    version that cached answers depend on."""
    assert memory.write(rec("a", asserts="owner", asserted_value="x"), now=T0
                        ).disposition is WriteDisposition.PERSIST
    memory.put_many([rec("b")])
    assert visible(memory) == {"a", "b"}
    while store_of(memory).write("wipe_batch", limit=10_000)[0]["deleted"]:
        pass
    assert visible(memory) == set()
    assert memory.write(rec("c", asserts="owner", asserted_value="y"), now=T0
                        ).disposition is WriteDisposition.PERSIST
    assert visible(memory) == {"c"}  # the cached empty answer was invalidated
    memory.put_many([rec("d")])
    assert visible(memory) == {"c", "d"}
    rows = store_of(memory).driver.execute_query(
        "MATCH (r:Record {id: 'c'})-[:ASSERTS]->(a:Assertion) RETURN a.key AS key",
        database_=store_of(memory).database)[0]
    assert [row["key"] for row in rows] == ["owner"]
    # identical content in the same scope is still a duplicate (the slot lock and check)
    dup = memory.write(rec("c2", content="observation c about the deploy"), now=T0)
    assert dup.disposition is WriteDisposition.DISCARD and dup.duplicate_of == "c"


def test_a_refused_write_into_a_new_scope_creates_nothing(memory: Memory) -> None:
    """The proposal is checked before its scope's nodes are created."""
    memory.put_many([rec("a", scope={"tenant": "acme"})])
    before = store_of(memory).counts()
    with pytest.raises(RecordConflictError):
        memory.write(rec("a", content="other content", scope={"tenant": "acme", "x": "1"}),
                     now=T0)
    assert store_of(memory).counts() == before
    nodes = store_of(memory).driver.execute_query(
        "MATCH (n:ScopeVersion|WriteSlot) RETURN count(n) AS n",
        database_=store_of(memory).database)[0][0]["n"]
    assert nodes == 1  # the ScopeVersion of {"tenant": "acme"}


class Spy:
    """Records the names of the statements and transactions a store runs (its own methods,
    wrapped: the store underneath is the real one)."""

    def __init__(self, memory: Memory) -> None:
        self.names: list[str] = []
        store = store_of(memory)
        write, write_once, transaction = store.write, store.write_once, store.transaction

        def spy_write(name: str, **params: Any) -> list[dict[str, Any]]:
            self.names.append(name)
            return write(name, **params)

        def spy_write_once(name: str, **params: Any) -> list[dict[str, Any]]:
            self.names.append(name)
            return write_once(name, **params)

        def spy_transaction(name: str, work: Any, **options: Any) -> Any:
            self.names.append("tx:" + name)
            return transaction(name, work, **options)

        store.write = spy_write  # type: ignore[method-assign]
        store.write_once = spy_write_once  # type: ignore[method-assign]
        store.transaction = spy_transaction  # type: ignore[method-assign]


def test_a_new_record_is_one_statement_and_everything_else_is_decided_in_full(
        memory: Memory) -> None:
    """The agent loop's write (a new record, no duplicate) is write/new.cypher
    alone; a duplicate, a stored id, a missing or erased reference and a threaded record
    write nothing there and are decided by the full transaction, with the same outcomes."""
    memory.write(rec("seed"), now=T0)  # the scope's nodes exist from here on
    spy = Spy(memory)

    def outcome(proposal: dict[str, Any]) -> tuple[list[str], str]:
        spy.names.clear()
        decision = memory.write(proposal, now=T0)
        return list(spy.names), decision.disposition.value

    assert outcome(rec("a")) == (["write/new"], "PERSIST")
    assert outcome(rec("q", authority="model_inferred")) == (["write/new"], "QUARANTINE")
    assert outcome(rec("b", supersedes=["a"], content="newer deploy note")) == (
        ["write/new"], "PERSIST")
    # a's content again: b superseded a, and only an active record is a duplicate
    assert outcome(rec("c", content="observation a about the deploy")) == (
        ["write/new"], "PERSIST")
    assert outcome(rec("d", content="newer deploy note")) == (
        ["write/new", "tx:write"], "DISCARD")  # b's content, b is active
    assert outcome(rec("a")) == (["write/new", "tx:write"], "DISCARD")  # identical, stored
    before = store_of(memory).counts()
    with pytest.raises(RecordConflictError):
        memory.write(rec("a", content="other content"), now=T0)
    with pytest.raises(DanglingReferenceError):
        memory.write(rec("e", supersedes=["nowhere"]), now=T0)
    plan = memory.plan_deletion(["q"], requested_by="test", reason="forget")
    memory.apply_deletion(plan)
    after_erase = store_of(memory).counts()
    with pytest.raises(DanglingReferenceError):
        memory.write(rec("f", derived_from=["q"]), now=T0)
    assert store_of(memory).counts() == after_erase and after_erase["Record"] == before["Record"]
    assert outcome(rec("t", thread="conv", position=0)) == (["tx:write"], "PERSIST")
    assert outcome(rec("proc", kind="procedural", authority="model_inferred",
                       evidence_ids=["a"])) == (["tx:write"], "QUARANTINE")
    assert visible(memory) == {"seed", "b", "c", "t"}


@pytest.mark.parametrize("bad", [
    {"thread": "conv\ud800", "position": 0},  # hashed for its write slot before any query
    {"thread": "conv", "position": 2**63},  # the driver packs 64-bit integers only
    {"thread": "conv", "position": 2**70},
])
def test_bad_thread_fields_are_validation_errors_and_write_nothing(
        memory: Memory, bad: dict[str, Any]) -> None:
    """Bad input through write, put and put_many raises graphmem's ValidationError, never
    the bare UnicodeEncodeError or OverflowError they raised before, and writes nothing (a
    new scope's nodes included)."""
    memory.write(rec("seed"), now=T0)
    before = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN count(n) AS n", database_=store_of(memory).database)[0][0]["n"]
    new_scope = {"tenant": "acme", "project": "fresh"}
    for proposal in (rec("t", **bad), rec("t", scope=new_scope, **bad)):
        with pytest.raises(ValidationError):
            memory.write(proposal, now=T0)
        with pytest.raises(ValidationError):
            memory.put(proposal)
        with pytest.raises(ValidationError):
            memory.put_many([proposal])
    after = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN count(n) AS n", database_=store_of(memory).database)[0][0]["n"]
    assert after == before


def node_counts(memory: Memory) -> dict[str, int]:
    rows = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n",
        database_=store_of(memory).database)[0]
    return {row["label"]: row["n"] for row in rows}


@pytest.mark.parametrize("mode", ["same content", "same id", "same id, other content"])
def test_eight_concurrent_identical_proposals(
        memory: Memory, neo4j_db: Neo4jUnderTest, mode: str) -> None:
    """The one-statement write: 8 clients propose at once, 3 rounds (new clients each round, so some
    create the scope's nodes and some find them). Identical content in one scope persists once,
    every other proposal is a logged DISCARD; one id with 8 contents persists once and raises
    RecordConflictError 7 times, logging nothing for them; nothing else is created."""
    workers = 8
    memory.write(rec("warm"), now=T0)
    for round_ in range(3):
        clients = [Memory.connect(neo4j_db.settings, start_if_needed=False,
                                  ensure_schema=False) for _ in range(workers)]
        barrier = threading.Barrier(workers)
        out: list[Any] = [None] * workers

        def write(w: int, round_: int = round_, clients: list[Memory] = clients,
                  barrier: threading.Barrier = barrier, out: list[Any] = out) -> None:
            if mode == "same content":
                proposal = rec(f"r{round_}-{w}", content=f"identical {round_}",
                               asserts="k", asserted_value="v")
            elif mode == "same id":
                proposal = rec(f"r{round_}", content=f"identical {round_}")
            else:
                proposal = rec(f"r{round_}", content=f"content {round_} by {w}")
            barrier.wait()
            try:
                out[w] = clients[w].write(proposal, now=T0).disposition.value
            except RecordConflictError:
                out[w] = "conflict"
            except BaseException as exc:
                out[w] = exc

        before = node_counts(memory)
        assert race(write, clients) == 0
        after = node_counts(memory)
        made = {label: n - before.get(label, 0) for label, n in after.items()
                if n != before.get(label, 0)}
        if mode == "same id, other content":
            assert sorted(out) == ["PERSIST"] + ["conflict"] * 7
            assert made == {"Record": 1, "WriteDecision": 1}
        else:
            assert sorted(out) == ["DISCARD"] * 7 + ["PERSIST"]
            group = {"Assertion": 1} if mode == "same content" and round_ == 0 else {}
            assert made == {"Record": 1, "WriteDecision": 8, **group}
        assert len(visible(memory)) == round_ + 2  # warm and one record per round


def test_one_statement_writes_after_groups_and_slots_vanished(memory: Memory) -> None:
    """write/new writes nothing when an Assertion group or some of the scope's WriteSlots
    were deleted since this client created them, and the full transaction stores the record
    (group linked again, slots created again); a reference erased since refuses the write
    and writes nothing."""
    writer = Memory(Neo4jStore(store_of(memory).driver, database=store_of(memory).database))
    assert writer.write(rec("a", asserts="owner", asserted_value="x"), now=T0
                        ).disposition is WriteDisposition.PERSIST
    visible(memory)
    store_of(memory).driver.execute_query("MATCH (n:Assertion) DETACH DELETE n",
                                      database_=store_of(memory).database)
    assert writer.write(rec("b", asserts="owner", asserted_value="y"), now=T0
                        ).disposition is WriteDisposition.PERSIST
    rows = store_of(memory).driver.execute_query(
        "MATCH (r:Record)-[:ASSERTS]->(a:Assertion) RETURN r.id AS id, a.key AS key",
        database_=store_of(memory).database)[0]
    assert [(row["id"], row["key"]) for row in rows] == [("b", "owner")]
    got = {c.record.id: c.conflict_ids for c in store_of(memory).candidates(ACME, SCOPE, T0)}
    assert got == {"a": ("b",), "b": ("a",)}
    writer.write(rec("e0"), now=T0)
    writer.apply_deletion(writer.plan_deletion(["e0"], requested_by="t", reason="r"))
    before = node_counts(memory)
    for field in ("supersedes", "derived_from", "evidence_ids"):
        with pytest.raises(DanglingReferenceError):
            writer.write(rec("f-" + field, **{field: ["e0"]}), now=T0)
    assert node_counts(memory) == before
    store_of(memory).driver.execute_query(
        "MATCH (l:WriteSlot) WHERE NOT l.key ENDS WITH '#3' DETACH DELETE l",
        database_=store_of(memory).database)
    for i in range(12):
        assert writer.write(rec(f"g{i}"), now=T0).disposition is WriteDisposition.PERSIST
        assert f"g{i}" in visible(memory)
    assert node_counts(memory)["WriteSlot"] == 32


@pytest.mark.parametrize("field", ["scope", "thread", "asserts"])
def test_indexed_names_at_their_limit_persist_and_one_byte_more_is_refused(
        memory: Memory, field: str) -> None:
    """Found by the breaker helper: a scope, thread or asserts key beyond Neo4j's index entry
    limit (~8 kB) failed in the store as a StoreError, after a new scope's nodes had been
    created. The limits are checked with the record now: ValidationError, nothing written."""

    def proposal(rid: str, size: int) -> dict[str, Any]:
        over: dict[str, Any] = {"scope": {"tenant": "acme", "v": "x"}}
        if field == "scope":  # the key is [["tenant","acme"],["v","x..."]] as JSON
            over["scope"] = {"tenant": "acme", "v": "é" * ((size - 28) // 2) + "x" * (size % 2)}
        elif field == "thread":
            over.update(thread="é" * (size // 2) + "x" * (size % 2), position=len(rid))
        else:
            over.update(asserts="é" * (size // 2) + "x" * (size % 2), asserted_value="1")
        return rec(rid, content=f"limit {rid}", **over)

    limit = MAX_SCOPE_BYTES if field == "scope" else MAX_NAME_BYTES
    at = MemoryRecord.model_validate(proposal("at", limit))
    if field == "scope":
        assert len(scope_key(at.scope).encode()) == limit
    assert memory.write(proposal("at", limit), now=T0).disposition is WriteDisposition.PERSIST
    memory.put_many([proposal("at-batch", limit)])
    before = store_of(memory).counts()
    nodes = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN count(n) AS n", database_=store_of(memory).database)[0][0]["n"]
    for write in (lambda p: memory.write(p, now=T0), lambda p: memory.put_many([p])):
        with pytest.raises(ValidationError, match="at most"):
            write(proposal("over", limit + 1))
    assert store_of(memory).counts() == before
    assert store_of(memory).driver.execute_query(
        "MATCH (n) RETURN count(n) AS n", database_=store_of(memory).database)[0][0]["n"] == nodes
