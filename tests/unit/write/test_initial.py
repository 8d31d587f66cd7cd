"""The initial load's refusals that need no database (graphmem.write.initial, the CLI's
``--initial``): a bad file, a home that holds a database, a server graphmem does not run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.errors import (
    ContentTooLargeError,
    DanglingReferenceError,
    StoreNotEmptyError,
    ValidationError,
)
from graphmem.write.commands import initial_load
from graphmem.write.initial import load_initial, read_initial
from tests.support.initial_load import mixed_rows, write_jsonl


def test_a_bad_file_is_refused_with_its_line(tmp_path: Path) -> None:
    rows = mixed_rows(12)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"bad\.jsonl:2"):
        read_initial(path)
    with pytest.raises(ValidationError, match="same id twice"):
        read_initial(write_jsonl(tmp_path / "twice.jsonl", [rows[0], rows[1], rows[0]]))
    with pytest.raises(DanglingReferenceError) as dangling:
        read_initial(write_jsonl(tmp_path / "dangling.jsonl",
                                 [rows[0], {**rows[1], "derived_from": ["elsewhere"]}]))
    assert list(dangling.value.record_ids) == ["elsewhere"]
    with pytest.raises(ContentTooLargeError):
        read_initial(write_jsonl(tmp_path / "big.jsonl", rows[:2]), max_content_bytes=8)


def test_a_home_holding_a_database_is_refused_untouched(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "data" / "databases" / "neo4j").mkdir(parents=True)
    before = sorted(home.rglob("*"))
    records = read_initial(write_jsonl(tmp_path / "ok.jsonl", mixed_rows(12)))
    with pytest.raises(StoreNotEmptyError):
        load_initial(records, home)
    assert sorted(home.rglob("*")) == before


def test_a_server_graphmem_does_not_run_is_refused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    with pytest.raises(StoreNotEmptyError, match="NEO4J_URI"):
        initial_load(write_jsonl(tmp_path / "ok.jsonl", mixed_rows(12)))
