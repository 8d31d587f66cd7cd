"""What a client's connect sets up in a store: the schema and the data migrations.

A new store (nothing in it but the migrations' versions and its index key) records every
migration's version without running one, and gets its index key; a store holding data runs
each migration it has not reached, once. The schema's statements run in one transaction, and
one statement at a time when Neo4j refuses it (graphmem.db.base.StoreBase.ensure_schema).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from neo4j.exceptions import ClientError, ServiceUnavailable, TransientError

from graphmem.client import Memory, store_of
from graphmem.db import catalogue, migrations
from graphmem.db.base import StoreBase
from graphmem.db.migrations import MIGRATIONS, migrate
from graphmem.errors import DatabaseUnavailableError
from tests.support.writers import rec

Run = Callable[[StoreBase], int]


def _versions(memory: Memory) -> dict[str, int]:
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (m:GraphmemMigration) RETURN m.name AS name, m.version AS version",
        database_=store_of(memory).database)
    return {row["name"]: row["version"] for row in rows}


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each migration's run replaced by one that notes its name (and changes one record)."""
    ran: list[str] = []

    def noting(name: str) -> Run:
        def run(store: StoreBase) -> int:
            ran.append(name)
            return 1
        return run

    monkeypatch.setattr(migrations, "MIGRATIONS",
                        tuple((name, version, noting(name)) for name, version, _ in MIGRATIONS))
    return ran


def _count(memory: Memory, label: str) -> int:
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n) WHERE $label IN labels(n) RETURN count(n) AS n", {"label": label},
        database_=store_of(memory).database)
    return int(rows[0]["n"])


def _with_data(memory: Memory) -> None:
    """The fixture's empty store given its versions (by a migrate), then a record."""
    migrate(store_of(memory))
    memory.put_many([rec("kept")])


def _forget_versions(memory: Memory, *names: str) -> None:
    store_of(memory).driver.execute_query(
        "MATCH (m:GraphmemMigration) WHERE m.name IN $names DELETE m", {"names": list(names)},
        database_=store_of(memory).database)


def test_an_empty_store_records_every_version_and_runs_no_migration(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture's wipe left nothing, not even the versions or the index key."""
    assert _count(memory, "GraphmemMigration") == _count(memory, "GraphmemKey") == 0
    ran = _spied(monkeypatch)
    assert migrate(store_of(memory)) == 0
    assert ran == []
    assert _versions(memory) == {name: version for name, version, _ in MIGRATIONS}
    assert _count(memory, "GraphmemKey") == 1
    assert migrate(store_of(memory)) == 0 and ran == []


def test_a_store_with_data_runs_each_migration_it_has_not_reached_once(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_data(memory)
    names = [name for name, _, _ in MIGRATIONS]
    _forget_versions(memory, names[0], names[-1])
    ran = _spied(monkeypatch)
    assert migrate(store_of(memory)) == 2
    assert ran == [names[0], names[-1]]  # in the order MIGRATIONS gives
    assert migrate(store_of(memory)) == 0 and ran == [names[0], names[-1]]  # recorded
    _forget_versions(memory, *names)
    assert migrate(store_of(memory)) == len(names) and ran[2:] == names
    assert _versions(memory) == {name: version for name, version, _ in MIGRATIONS}


def test_an_older_version_runs_again(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_data(memory)
    name, version, _ = MIGRATIONS[1]
    store_of(memory).driver.execute_query(
        "MATCH (m:GraphmemMigration {name: $name}) SET m.version = $version",
        {"name": name, "version": version - 1}, database_=store_of(memory).database)
    ran = _spied(monkeypatch)
    assert migrate(store_of(memory)) == 1 and ran == [name]
    assert _versions(memory)[name] == version


def test_a_store_written_to_after_the_read_runs_its_migrations(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read said empty (a replica behind, or a write in between), but the write checks
    again: it records nothing, and the migrations run."""
    memory.put_many([rec("kept")])
    original = StoreBase.read

    def stale(self: StoreBase, name: str, **params: Any) -> Any:
        rows = original(self, name, **params)
        return [{**rows[0], "empty": True}] if name == "migration/versions" else rows

    monkeypatch.setattr(StoreBase, "read", stale)
    ran = _spied(monkeypatch)
    assert migrate(store_of(memory)) == len(MIGRATIONS)
    assert ran == [name for name, _, _ in MIGRATIONS]


def _indexes(memory: Memory) -> dict[str, str]:
    rows, _, _ = store_of(memory).driver.execute_query(
        "SHOW INDEXES YIELD name, state RETURN name, state",
        database_=store_of(memory).database)
    return {row["name"]: row["state"] for row in rows}


@pytest.mark.parametrize("failure", [
    None,
    ClientError("injected: an equivalent rule another client created"),
    TransientError("injected: still deadlocked after the driver's retries"),
    ServiceUnavailable("injected: the connection dropped"),
])
def test_a_dropped_index_and_constraint_come_back(
        memory: Memory, monkeypatch: pytest.MonkeyPatch, failure: Exception | None) -> None:
    """In one transaction; one statement at a time when Neo4j refuses it; a typed error when
    the server is unreachable or busy past the retries."""
    store, before = store_of(memory), _indexes(memory)
    alone: list[Any] = []
    original = StoreBase._auto_commit

    def auto_commit(self: StoreBase, statement: Any) -> None:
        alone.append(statement)
        original(self, statement)

    monkeypatch.setattr(StoreBase, "_auto_commit", auto_commit)
    if failure is not None:
        def fail(self: StoreBase, statements: Any) -> None:
            raise failure
        monkeypatch.setattr(StoreBase, "_in_one_transaction", fail)
    for statement in ("DROP INDEX record_dedup", "DROP CONSTRAINT write_slot_key"):
        store.driver.execute_query(statement, database_=store.database)
    assert "record_dedup" not in _indexes(memory)
    try:
        if isinstance(failure, ClientError | None):
            store.ensure_schema()
            assert _indexes(memory) == before
            schema = list(catalogue.statements("schema"))
            await_ = catalogue.query("schema_await").text
            assert [getattr(x, "text", x) for x in alone] == (schema if failure else []) + [await_]
        else:
            with pytest.raises(DatabaseUnavailableError):
                store.ensure_schema()
            assert "record_dedup" not in _indexes(memory)
    finally:
        monkeypatch.undo()
        store.ensure_schema()  # the session's store keeps its schema
    assert _indexes(memory) == before
    assert set(before.values()) == {"ONLINE"}
