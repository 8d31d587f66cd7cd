"""An initial load read in parts, each in a process of its own
(graphmem.write.initial.prepare_initial): the CSVs of any number of parts hold what one part's
hold, line numbers and stretches are exact, and a bad file is refused as one read refuses it."""

from __future__ import annotations

import json
import multiprocessing
from itertools import pairwise
from multiprocessing.context import SpawnProcess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.bulk_parts import write_load_files
from graphmem.errors import GraphmemError, StoreError
from graphmem.fields import utc_now
from graphmem.write.initial import _spans, discard, prepare_initial, read_initial
from tests.support.initial_load import mixed_rows, read_table, write_jsonl

EDGES = ("in_scope", "supersedes", "derived_from", "evidenced_by", "asserts", "next")


def _tables(folder: Path) -> dict[str, Any]:
    """What a load's tables hold, each scope version's random epoch replaced by its key."""
    versions = read_table(folder, "versions")
    key_of = {v["epoch"]: v["key"] for v in versions}
    out: dict[str, Any] = {
        "records": sorted(json.dumps({**r, "sepoch": key_of[r["sepoch"]]}, sort_keys=True)
                          for r in read_table(folder, "nodes")),
        "versions": sorted((v["key"], v["tenant"], v["rev"]) for v in versions),
        "scopes": sorted((s["key"], s["tenant"], s["pairs"]) for s in read_table(folder, "scopes")),
        "assertions": sorted(tuple(a.values()) for a in read_table(folder, "assertions")),
        "migrations": sorted(m["name"] for m in read_table(folder, "migrations")),
    }
    for name in EDGES:
        out[name] = sorted(tuple(r.values()) for r in read_table(folder, name))
    return out


def test_any_number_of_parts_writes_what_one_does(tmp_path: Path) -> None:
    rows = mixed_rows(90)
    path = write_jsonl(tmp_path / "records.jsonl", rows)
    one = write_load_files(read_initial(path), tmp_path / "one", at=utc_now())
    expected = _tables(one.folder)
    assert len(expected["records"]) == 90 and expected["next"] and expected["derived_from"]
    for parts in (1, 3):
        files = prepare_initial(path, tmp_path / f"home{parts}", parts=parts)
        try:
            assert len({t.name.split("-")[-1] for t in files.tables
                        if t.label == "Record" and t.kind == "nodes"}) == parts
            assert _tables(files.folder) == expected
            assert (files.records, files.scopes, files.relationships) == (
                one.records, one.scopes, one.relationships)
        finally:
            discard(files)
        assert not files.folder.exists()


def test_a_file_starting_with_a_byte_order_mark_loads_as_without_it(tmp_path: Path) -> None:
    """``--initial`` of a file a Windows tool wrote (a UTF-8 BOM first): its first line was
    "not JSON"; in one part and in three it loads what the file without the mark loads."""
    rows = mixed_rows(30)
    plain = write_jsonl(tmp_path / "plain.jsonl", rows)
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert read_initial(marked) == read_initial(plain)
    expected = _tables(write_load_files(read_initial(plain), tmp_path / "one",
                                        at=utc_now()).folder)
    for parts in (1, 3):
        files = prepare_initial(marked, tmp_path / f"home{parts}", parts=parts)
        try:
            assert _tables(files.folder) == expected
        finally:
            discard(files)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
                      max_size=30),
       ending=st.booleans(), parts=st.integers(1, 6))
def test_stretches_cover_the_file_from_line_starts(tmp_path_factory: pytest.TempPathFactory,
                                                   lines: list[bytes], ending: bool,
                                                   parts: int) -> None:
    data = b"\n".join(lines) + (b"\n" if ending and lines else b"")
    path = tmp_path_factory.mktemp("spans") / "f.jsonl"
    path.write_bytes(data)
    spans = _spans(path, parts)
    assert 1 <= len(spans) <= parts
    assert spans[0].start == 0 and spans[-1].end == len(data)
    for before, after in pairwise(spans):
        assert before.end == after.start and before.start < before.end
        assert data[after.start - 1:after.start] == b"\n"
    for span in spans:
        assert span.first_line == data[:span.start].count(b"\n") + 1


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    rows = mixed_rows(60)
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    cases = {
        "json_late": [*lines[:50], '{"id": "x", "content": "unterminated', *lines[50:]],
        "two_bad": [*lines[:5], "[1]", *lines[5:50], "{nope", *lines[50:]],
        "twice_across": [*lines, lines[2]],
        "dangling_late": [*lines, json.dumps({**rows[1], "id": "late",
                                              "derived_from": ["nowhere"]})],
        "naive_middle": [*lines[:30], json.dumps({**rows[1], "id": "naive",
                                                  "created_at": "2026-01-01T00:00:00"}),
                         *lines[30:]],
        "blank_lines": ["", *lines[:20], "   ", *lines[20:40], "{}", *lines[40:]],
    }
    out = {}
    for name, body in cases.items():
        out[name] = tmp_path / f"{name}.jsonl"
        out[name].write_text("\n".join(body) + "\n", encoding="utf-8")
    return out


def test_a_bad_file_is_refused_as_one_read_refuses_it(tmp_path: Path) -> None:
    """The error (its type, message, line number and ids) of the first bad line in file order,
    whichever part holds it; nothing is left in the home."""
    for name, path in _bad_files(tmp_path).items():
        with pytest.raises(GraphmemError) as whole:
            read_initial(path)
        home = tmp_path / f"home-{name}"
        with pytest.raises(GraphmemError) as parted:
            prepare_initial(path, home, parts=3)
        assert type(parted.value) is type(whole.value), name
        assert str(parted.value) == str(whole.value), name
        assert parted.value.record_ids == whole.value.record_ids, name
        assert list(home.iterdir()) == [], name


@pytest.mark.parametrize("failure", [OSError(24, "Too many open files"), KeyboardInterrupt()])
def test_a_part_that_cannot_start_stops_those_started(tmp_path: Path, failure: BaseException,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """No file descriptor left (a typed error) or Ctrl-C while the parts start: the parts
    started already stop, nothing is left in the home."""
    path = write_jsonl(tmp_path / "records.jsonl", mixed_rows(300))
    started: list[SpawnProcess] = []
    start = SpawnProcess.start

    def third_fails(self: SpawnProcess) -> None:
        if len(started) == 2:
            raise failure
        start(self)
        started.append(self)

    monkeypatch.setattr(SpawnProcess, "start", third_fails)
    home = tmp_path / "home"
    with pytest.raises(StoreError if isinstance(failure, OSError) else KeyboardInterrupt):
        prepare_initial(path, home, parts=4)
    assert len(started) == 2 and not any(p.is_alive() for p in started)
    assert multiprocessing.active_children() == []
    assert list(home.iterdir()) == []
