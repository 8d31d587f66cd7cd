"""The deletion operations' typed rows, from what the driver returns (a stand-in store)."""

from __future__ import annotations

from typing import Any, cast

from graphmem.db.ops.deletion import DeletionOps, TextRow, text_row
from graphmem.db.store import Neo4jStore


class _Store:
    """Answers each named query with fixed rows, remembering the names and parameters."""

    def __init__(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        self.rows = rows
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        self.asked.append((name, params))
        return self.rows[name]

    read_values = read


def _ops(rows: dict[str, list[dict[str, Any]]]) -> tuple[DeletionOps, _Store]:
    store = _Store(rows)
    return DeletionOps(cast(Neo4jStore, store)), store


def test_a_walk_without_term_columns_has_empty_ones() -> None:
    names = ("ids", "kinds", "erased", "depths", "parents", "cited", "citer", "edge",
             "citer_kind", "citer_erased")
    columns: dict[str, list[Any]] = {k: [] for k in names}
    ops, store = _ops({"deletion/walk": [{**columns, "term_ids": None, "term_texts": None}]})
    walked = ops.walk(("r1",), None)
    assert walked.term_ids == [] and walked.term_texts == []
    assert store.asked == [("deletion/walk", {"roots": ["r1"], "pattern": None})]


def test_roots_a_request_and_a_missing_request() -> None:
    root = {"id": "r1", "node": None, "kind": None, "tenant": None, "erased": False}
    ops, _ = _ops({"deletion/roots_by_id": [root], "deletion/request/get": [],
                   "deletion/verify": []})
    assert ops.roots_by_id(["r1"])[0].node is None
    assert ops.request("del-1") is None
    assert ops.verify("del-1") is None


def test_a_text_row_keeps_every_column() -> None:
    row: dict[str, Any] = {"eid": "4:x:1", "rel": True, "labels": ["SELECTED"], "key": "note",
                           "value": ["a"], "owner": 3, "live_record": False, "held": True}
    assert text_row(row) == TextRow(**row)
