"""Group commit decisions that need no server (graphmem.db.group_commit): the parts of a
batched statement read the write from its row, writes that link records are never
batched, and an auto-commit write gives up within the settings' retry time."""

from __future__ import annotations

import re
import socket
import time
from typing import Any, cast

import pytest

from graphmem.db import catalogue
from graphmem.db.base import StoreBase
from graphmem.db.group_commit import (
    MAX_IN_FLIGHT,
    GroupCommit,
    Write,
    _send_batch,
    batchable,
)
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.db.store import Neo4jStore
from graphmem.errors import (
    DatabaseUnavailableError,
)


def test_the_write_parts_read_the_write_from_its_row() -> None:
    """The parts of a policy write read the write from the map ``w`` the statement binds (one
    write's ``$write``, or a row of a batch), never from a parameter, and pass ``w`` into each
    of their subqueries: so one text serves both, as the file says."""
    for name in ("write_probe", "write_fresh", "record_store"):
        text = catalogue.part(name)
        assert "$" not in text and "w." in text, name
        for subquery in re.findall(r"CALL \(([^)]*)\) \{", text):
            assert "w" in [v.strip() for v in subquery.split(",")], (name, subquery)
    batch = catalogue.text("write/new_batch")
    assert set(re.findall(r"\$(\w+)", batch)) == {"writes", "slots"}
    for name in ("write/new", "write/check", "records/write"):
        assert set(re.findall(r"\$(\w+)", catalogue.text(name))) == {"write"}, name


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


class _Recording:
    """A store whose ``write_once`` records its statement and stores the writes whose
    ``keep`` is set, answering with their positions in the statement's order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def write_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        return [{"pos": i} for i, w in enumerate(params["writes"]) if w["keep"]]


def test_a_batch_is_sent_in_slot_order_by_its_first_writes_store_and_answered_in_order(
) -> None:
    """Writes lock their slots in one sorted order (two batches in one scope never wait on
    each other crosswise); each write's outcome comes back to its own caller, whatever its
    place in that order."""
    leader, other = _Recording(), _Recording()
    writes: list[Write] = [
        (cast("StoreBase", leader), {"scope_key": "b", "slots": ["b/1"], "keep": True}),
        (cast("StoreBase", other), {"scope_key": "a", "slots": ["a/2"], "keep": False}),
        (cast("StoreBase", other), {"scope_key": "a", "slots": ["a/1"], "keep": True}),
        (cast("StoreBase", other), {"scope_key": "b", "slots": ["b/1"], "keep": False}),
    ]
    assert _send_batch(writes) == [True, False, True, False]
    assert other.calls == []
    [(name, params)] = leader.calls
    assert name == "write/new_batch"
    assert [(w["scope_key"], w["slots"]) for w in params["writes"]] == [
        ("a", ["a/1"]), ("a", ["a/2"]), ("b", ["b/1"]), ("b", ["b/1"])]
    assert params["slots"] == ["a/1", "a/2", "b/1"]


def test_group_commit_waits_for_its_own_number_of_batches_in_flight() -> None:
    assert GroupCommit().max_in_flight == MAX_IN_FLIGHT == 2
