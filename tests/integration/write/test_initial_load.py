"""The offline initial load (graphmem.write.initial) makes the graph the online import makes of
the same file, and answers reads alike; it refuses a store that holds data."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.db.bulk_load import census
from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.migrations import migrate
from graphmem.errors import GraphmemError, StoreNotEmptyError
from graphmem.models import Principal, Sensitivity
from graphmem.write.initial import (
    check_empty,
    discard,
    finish_initial,
    import_prepared,
    load_initial,
    prepare_initial,
    read_initial,
)
from tests.support.initial_load import canonical_dump, mixed_rows, write_jsonl
from tests.support.record_sets import T0

AT = T0 + timedelta(days=2)
READERS = (Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.RESTRICTED),
           Principal(tenants=frozenset({"zeta"})),
           Principal(tenants=frozenset({"acme"}), scope={"user": "u1"}))


def _answers(memory: Memory, ids: list[str], *, history: bool = True) -> list[Any]:
    """What reads say of the store: retrieve, explain and (``history``) history, for several
    principals."""
    out: list[Any] = []
    for reader in READERS:
        tenant = sorted(reader.tenants)[0]
        scope = {"tenant": tenant, **reader.scope}
        found = memory.retrieve({"memory_scope": scope, "goal": "refund policy limit Köln",
                                 "needs_prior_context": True}, principal=reader, now=AT)
        out.append((found.ids, found.rendered, list(found.conflicts)))
        out += [memory.explain(rid, principal=reader, scope=scope, now=AT) for rid in ids]
    out += [memory.history(rid) for rid in ids] if history else []
    return out


def _changed(memory: Memory, rows: list[dict[str, Any]]) -> list[Any]:
    """The same changes to a store holding ``rows``: a retraction, a supersession by a derived
    record, a lineage deletion and the recompute of what it left pending; what each answered
    and every record after (times and request ids aside)."""
    memory.retract("r-002", by="test", reason="wrong", at=AT)
    old = rows[8]
    decision = memory.supersede([old["id"]], {
        "id": "later", "kind": "semantic", "content": "the newer policy", "scope": old["scope"],
        "created_at": AT.isoformat(), "derived_from": ["r-010"],
        "authority": "human_instruction"}, by="test", reason="newer")
    plan = memory.plan_deletion(roots=["r-001"], requested_by="test", reason="asked")
    report = memory.apply_deletion(plan)
    pending = [e.id for e in plan.entries if e.disposition.value == "RECOMPUTE"]
    for rid in pending:
        memory.recompute(rid, f"recomputed {rid}", by="test", reason="lineage",
                         derived_from=[], evidence_ids=[])
    out: list[Any] = [(decision.disposition, decision.reason),
                      [(e.id, e.disposition, e.reason) for e in plan.entries],
                      report.verification.passed, pending]
    for rid in [r["id"] for r in rows] + ["later"]:
        try:
            out.append(memory.get(rid))
        except GraphmemError as exc:
            out.append(type(exc).__name__)
    return out


@pytest.mark.parametrize("parts", [0, 3])
def test_offline_load_is_the_online_import(memory: Memory, tmp_path: Path,
                                           shared_lib_dir: Path, parts: int) -> None:
    """One file, imported online into a new store and loaded offline into another: the same
    graph (every node and relationship, what a new store records when opened included) and
    the same reads. ``memory``: the file's refusals are the online import's. ``parts``: the
    file read in that many processes (:func:`prepare_initial`), or (0) read whole first."""
    rows = mixed_rows(60)
    path = write_jsonl(tmp_path / "records.jsonl", rows)
    home = tmp_path / "home"
    if parts:
        files = prepare_initial(path, home, parts=parts)
        try:
            load = import_prepared(files, home, lib_dir=shared_lib_dir)
        finally:
            discard(files)
    else:
        load = load_initial(read_initial(path), home, lib_dir=shared_lib_dir)
    assert (load.records, load.scopes) == (60, 4)
    ids = [r["id"] for r in rows[::7]]
    with EphemeralServer(home=home, lib_dir=shared_lib_dir, pagecache_mb=64) as offline, \
            EphemeralServer(lib_dir=shared_lib_dir, pagecache_mb=64) as online:
        loaded = Memory.connect(offline.settings, start_if_needed=False)
        imported = Memory.connect(online.settings, start_if_needed=False)
        try:
            finish_initial(store_of(loaded), load)
            imported.import_jsonl(path)
            assert canonical_dump(loaded) == canonical_dump(imported)
            assert [loaded.get(r["id"]) for r in rows] == [imported.get(r["id"]) for r in rows]
            assert _answers(loaded, ids) == _answers(imported, ids)
            # later writes meet a loaded record's lists (none stored when empty) as the online
            # path's (stored empty): the same outcomes and reads
            changed = _changed(loaded, rows)
            assert changed == _changed(imported, rows)
            assert changed[0][0].value == "PERSIST" and changed[2] and changed[3]  # it did all
            assert _answers(loaded, ids, history=False) == _answers(imported, ids, history=False)
            with pytest.raises(StoreNotEmptyError):
                check_empty(store_of(loaded))
        finally:
            loaded.close()
            imported.close()
    with pytest.raises(StoreNotEmptyError):  # the home holds a database now
        load_initial(read_initial(path), home, lib_dir=shared_lib_dir)


@pytest.mark.parametrize("bad", ["duplicate", "json", "dangling", "naive"])
def test_a_bad_file_is_refused_as_online(memory: Memory, tmp_path: Path, bad: str) -> None:
    rows = mixed_rows(12)
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    if bad == "duplicate":
        lines.append(lines[3])
    elif bad == "json":
        lines.insert(5, '{"id": "x", "content": "unterminated')
    elif bad == "dangling":
        lines.append(json.dumps({**rows[1], "id": "late", "supersedes": ["nowhere"]}))
    else:
        lines.append(json.dumps({**rows[1], "id": "late", "created_at": "2026-01-01T00:00:00"}))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(GraphmemError) as online:
        memory.import_jsonl(path)
    with pytest.raises(GraphmemError) as offline:
        read_initial(path)
    assert type(offline.value) is type(online.value)
    assert str(offline.value) == str(online.value)
    check_empty(store_of(memory))  # nothing written online either


def test_an_opened_empty_store_is_empty(memory: Memory) -> None:
    """What a new store's first connect writes (the migrations' versions, the index key)
    does not count."""
    migrate(store_of(memory))
    assert census(store_of(memory)) == 0
    check_empty(store_of(memory))
    memory.put_many(mixed_rows(12)[:1])
    with pytest.raises(StoreNotEmptyError):
        check_empty(store_of(memory))


def test_the_command_refuses_a_server_graphmem_does_not_run(cli: Memory, tmp_path: Path) -> None:
    """``graphmem import --initial`` with NEO4J_URI set (the ``cli`` fixture's store): exit 2,
    the reason on stderr, nothing written."""
    path = write_jsonl(tmp_path / "records.jsonl", mixed_rows(12))
    result = CliRunner().invoke(app, ["import", str(path), "--initial"])
    assert result.exit_code == 2
    assert "NEO4J_URI" in result.output
    check_empty(store_of(cli))


def test_the_command_refuses_a_local_server_another_process_uses(
        data_dir_with_jars: Path, tmp_path: Path) -> None:
    """``graphmem import --initial`` while a client holds a lease on the local server: exit 2
    naming it, the server still running for that client, nothing written; released, the load
    goes on."""
    from graphmem.db import server

    info = server.start()
    settings, release = server.lease(start_if_needed=False)
    path = write_jsonl(tmp_path / "records.jsonl", mixed_rows(12))
    try:
        result = CliRunner().invoke(app, ["import", str(path), "--initial"])
        assert result.exit_code == 2, result.output
        assert "1 other process use" in result.output
        running = server.status()
        assert running is not None and running.pid == info.pid
        with Memory.connect(settings, start_if_needed=False) as memory:
            check_empty(store_of(memory))
    finally:
        release()
    result = CliRunner().invoke(app, ["import", str(path), "--initial", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["records"] == 12
    running = server.status()
    assert running is not None and running.kept  # `db start`'s server runs on


def test_the_command_leaves_no_server_running_it_did_not_find(data_dir_with_jars: Path,
                                                              tmp_path: Path) -> None:
    """A first load with no server running starts one for the schema and stops it; the next
    client finds the records."""
    from graphmem.db import server

    rows = mixed_rows(12)
    path = write_jsonl(tmp_path / "records.jsonl", rows)
    result = CliRunner().invoke(app, ["import", str(path), "--initial", "--json"])
    assert result.exit_code == 0, result.output
    assert server.status() is None
    with Memory.connect() as memory:
        assert [memory.get(row["id"]).id for row in rows] == [row["id"] for row in rows]
