"""Group commit decisions that need no server (graphmem.db.group_commit): the row form of a
batched statement reads every parameter from its row, writes that link records are never
batched, and an auto-commit write gives up within the settings' retry time."""

from __future__ import annotations

import re
import socket
import time
from typing import Any

import pytest

from graphmem.db import catalogue
from graphmem.db.group_commit import (
    batchable,
)
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.db.store import Neo4jStore
from graphmem.errors import (
    DatabaseUnavailableError,
)


def test_row_form_reads_every_parameter_from_the_row() -> None:
    """The parts a batch puts in in row form hold no ``$`` but parameters, and none is left
    once they are in row form; every subquery imports the row and every WITH carries it."""
    for name in ("write_probe", "write_fresh", "record_store"):
        text = catalogue.part(name)
        assert "$" in text
        assert all(re.match(r"[A-Za-z_]", text[i + 1]) for i, c in enumerate(text) if c == "$")
        row = catalogue.row_form(text, "w")
        assert "$" not in row, name
        for subquery in re.findall(r"CALL \(([^)]*)\) \{", row):
            assert "w" in [v.strip() for v in subquery.split(",")], (name, subquery)
        for line in row.splitlines():
            if line.lstrip().startswith("WITH "):
                assert line.lstrip().startswith("WITH w, "), (name, line)
    assert catalogue.row_form("CALL () {\n  WITH a\n  MATCH (x {k: $key})", "w") == (
        "CALL (w) {\n  WITH w, a\n  MATCH (x {k: w.key})")
    batch = catalogue.text("write/new_batch")
    assert "$writes" in batch and "$slots" in batch
    assert set(re.findall(r"\$(\w+)", batch)) == {"writes", "slots"}


def test_writes_that_link_records_are_never_batched() -> None:
    base: dict[str, Any] = {"supersedes": [], "derived_from": [], "evidence_ids": []}
    assert batchable(base)
    for name in base:
        assert not batchable({**base, name: ["x"]})


def test_an_auto_commit_write_gives_up_within_the_settings_retry_time() -> None:
    """``ConnectionSettings.retry_time_s`` bounds how long a call against a dead server
    retries. write_once retries itself (with_retry), and kept with_retry's own bounds (ten
    attempts, about 9 s of backoff here) whatever the settings said."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = ConnectionSettings(uri=f"bolt://127.0.0.1:{port}", password="x",
                                  retry_time_s=0.5)
    driver = open_driver(settings)
    try:
        store = Neo4jStore(driver, retry_time_s=settings.retry_time_s)
        started = time.monotonic()
        with pytest.raises(DatabaseUnavailableError):
            store.write_once("write/new", write={})
        assert time.monotonic() - started < 4
    finally:
        driver.close()
