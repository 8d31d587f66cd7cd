"""The initial load's CSV files (graphmem.db.bulk_load): the online import's rows, cell by cell,
and what the online path derives from them."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.db.bulk_load import ARRAY_DELIMITER, _cell, tool_memory
from graphmem.db.bulk_parts import write_load_files
from graphmem.db.codec import TIME_PROPS, coerce_record, record_fingerprint, record_row
from graphmem.db.launch_settings import heap_flags
from graphmem.db.migrations import MIGRATIONS
from graphmem.errors import StoreError
from graphmem.models import MemoryRecord
from tests.support.initial_load import HOSTILE, mixed_rows, read_table

AT = datetime(2026, 1, 2, tzinfo=UTC)


def _records() -> list[MemoryRecord]:
    return [coerce_record(r) for r in mixed_rows(40)]


def test_record_columns_are_the_online_rows(tmp_path: Path) -> None:
    records = _records()
    files = write_load_files(records, tmp_path, at=AT)
    header = (tmp_path / "nodes-0.header.csv").read_text(encoding="utf-8").strip().split(",")
    row = record_row(records[0], False, record_fingerprint(records[0]))
    expected = {k for k in row["props"] if k not in TIME_PROPS} | set(TIME_PROPS)
    assert {h.split(":")[0] for h in header} == expected | {"stamp", "sepoch"}
    assert "id:ID(Record)" in header and "created_at:datetime" in header
    assert "derived_from:string[]" in header and "position:long" in header
    parsed = {r["id"]: r for r in read_table(tmp_path, "nodes")}
    assert files.records == len(parsed) == len(records)
    for record in records:
        props = record_row(record, False, record_fingerprint(record))["props"]
        cells = parsed[record.id]
        assert cells["content"] == record.content  # quotes, commas, line breaks, U+001F
        assert cells["fingerprint"] == props["fingerprint"]
        assert cells["derived_from"].split(ARRAY_DELIMITER) == (list(record.derived_from)
                                                                  or [""])
        assert cells["asserts"] == (record.asserts or "")
    assert {r.content.split(" #")[0] for r in records} >= set(HOSTILE)
    with (tmp_path / "nodes-0.body.csv").open(encoding="utf-8", newline="") as fh:
        single = list(csv.reader(fh))
    with (tmp_path / "nodes-0.multi.csv").open(encoding="utf-8", newline="") as fh:
        multi = list(csv.reader(fh))
    # the tool parses only the second file as multi-line: every line break is in it
    assert single and multi and len(single) + len(multi) == len(records)
    assert not any("\n" in c or "\r" in c for row in single for c in row)
    assert all(any("\n" in c or "\r" in c for c in row) for row in multi)


def test_cells_tell_none_from_empty_text() -> None:
    """The tool reads an empty cell as no property and a quoted empty one as empty text."""
    assert _cell(None) == "" and _cell("") == '""'
    assert _cell('say "hi", ok') == '"say ""hi"", ok"'
    assert _cell([]) == ""  # no empty list in CSV: no property, which readers take for one
    assert _cell(["a", 'b"']) == f'"a{ARRAY_DELIMITER}b"""'
    assert (_cell(True), _cell(False), _cell(7)) == ("true", "false", "7")
    with pytest.raises(StoreError):
        _cell(["a" + ARRAY_DELIMITER])


def test_scopes_versions_stamps_and_threads_as_the_online_path(tmp_path: Path) -> None:
    records = _records()
    files = write_load_files(records, tmp_path, at=AT)
    parsed = {r["id"]: r for r in read_table(tmp_path, "nodes")}
    versions = {v["key"]: v for v in read_table(tmp_path, "versions")}
    scopes = {s["key"]: s for s in read_table(tmp_path, "scopes")}
    assert files.scopes == len(versions) == len(scopes) == 4
    by_scope: dict[str, list[int]] = {}
    for record in records:
        cells = parsed[record.id]
        key = record_row(record, False, "")["scope_key"]
        assert cells["sepoch"] == versions[key]["epoch"] != scopes[key]["epoch"]
        by_scope.setdefault(key, []).append(int(cells["stamp"]))
    for key, stamps in by_scope.items():  # file order, one rev each, as records/create stamps
        assert stamps == list(range(1, len(stamps) + 1))
        assert int(versions[key]["rev"]) == len(stamps)
    threaded = {r.id: r for r in records if r.thread is not None}
    with (tmp_path / "next.body.csv").open(encoding="utf-8", newline="") as fh:
        edges = list(csv.reader(fh))
    # each thread's chain in position order (the file has them backwards)
    assert len(edges) == len(threaded) - len({(r.tenant, r.thread) for r in threaded.values()})
    for a, b in edges:
        assert (threaded[a].tenant, threaded[a].thread) == (threaded[b].tenant, threaded[b].thread)
        assert (threaded[a].position or 0) < (threaded[b].position or 0)
    names = {m["name"] for m in read_table(tmp_path, "migrations")}
    assert names == {name for name, _, _ in MIGRATIONS}


def test_the_import_tool_gets_an_eighth_of_the_machine_between_1_and_4_gib() -> None:
    gib = 1 << 30
    assert tool_memory(23 * gib) == f"{23 * 1024 // 8}m"
    assert tool_memory(2 * gib) == "1024m" and tool_memory(0) == "1024m"
    assert tool_memory(256 * gib) == "4096m"
    assert heap_flags(tool_memory())[-1].startswith("-Xmx")  # a size the JVM takes
