"""What the initial-load tests share: a JSON Lines file of every shape a record takes (tenants,
scopes, lineage, supersession, threads, assertion groups, text a CSV must quote), and a
canonical dump of a store's graph to compare two stores by."""

from __future__ import annotations

import csv
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from graphmem.client import Memory, store_of
from tests.support.record_sets import T0

#: Properties that are random per store (epochs, the index key) or per load (when a migration
#: was recorded), by label: the dump keeps whether a record's ``sepoch`` is its ScopeVersion's
#: epoch instead.
VOLATILE = {"Scope": {"epoch"}, "ScopeVersion": {"epoch"}, "Record": {"sepoch"},
            "GraphmemMigration": {"at"}, "GraphmemKey": {"key"}}

#: A record's list properties, which an initial load leaves out when empty (a CSV cell cannot
#: hold an empty list) and the online path stores as ``[]``: readers take both for empty.
EMPTY_AS_NONE = ("supersedes", "derived_from", "evidence_ids")

#: Text a CSV writer must get exactly right: its delimiter, quote, line breaks, the list
#: delimiter U+001F, other control characters, non-ASCII scripts and emoji.
HOSTILE = ('a "quoted", comma; semi\nsecond line\r\nthird\ttab \x1f unit \x01 ctrl',
           'Grüße aus Köln — 東京で会いましょう 🎉 ""', '"', ",", "line\r", "  spaced  ",
           'back\\slash \\" \\n not a break', "\u2028 line separator \x00 nul")


def mixed_rows(n: int = 60) -> list[dict[str, Any]]:
    """``n`` (>= 12) record dicts over two tenants and several scopes: derived records,
    supersession, evidence, threads, assertion groups (conflicting values), hostile text."""
    rows: list[dict[str, Any]] = []
    scopes = [{"tenant": "acme", "user": "u1"}, {"tenant": "acme", "project": 'p;"x,\n'},
              {"tenant": "zeta", "user": "ü-2", "team": "東京"}, {"tenant": "zeta"}]
    for i in range(n):
        scope = scopes[i % len(scopes)]
        text = HOSTILE[i // 3 % len(HOSTILE)] if i % 3 == 0 else f"note {i} about refund policy"
        row: dict[str, Any] = {
            "id": f"r-{i:03d}", "kind": ("episodic", "semantic", "procedural")[i % 3],
            "content": f"{text} #{i}", "scope": scope,
            "created_at": (T0 + timedelta(minutes=i)).isoformat(),
            "provenance": {"source": f"import-{i % 2}", "note": 'q"v'},
            "metadata": {"n": i, "tags": ["a", "b"]} if i % 4 == 0 else {},
        }
        if i % 5 == 1 and i > 5:
            row["derived_from"] = [f"r-{i - 5:03d}", f"r-{i - 1:03d}"]
        if i % 7 == 3 and i > 7:
            row["supersedes"] = [f"r-{i - 4:03d}"]
        if i % 6 == 2 and i > 6:
            row["evidence_ids"] = [f"r-{i - 6:03d}"]
        if i % 4 == 1:
            row["asserts"] = f"limit of {scope['tenant']}"
            row["asserted_value"] = str(100 + i % 3)
        if i % 4 == 2:
            row["thread"] = f"thread {i % 3}"
            row["position"] = (n - i) * 10  # in the file backwards: the chain sorts them
        if i % 9 == 4:
            row["valid_from"] = T0.isoformat()
            row["expires_at"] = (T0 + timedelta(days=400)).isoformat()
        if i % 8 == 5:
            row["sensitivity"] = "restricted"
        rows.append(row)
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def read_table(folder: Path, name: str) -> list[dict[str, str]]:
    """The rows of an initial load's CSV table, or of all its parts (``name-0``, ``name-1``,
    ...), keyed by the header's property names (type suffix dropped)."""
    rows: list[dict[str, str]] = []
    headers = [*folder.glob(f"{name}.header.csv"), *sorted(folder.glob(f"{name}-*.header.csv"))]
    assert headers, name
    for head in headers:
        table = head.name.removesuffix(".header.csv")
        names = [h.split(":")[0] or h
                 for h in head.read_text(encoding="utf-8").rstrip("\n").split(",")]
        for part in ("body", "multi"):
            path = folder / f"{table}.{part}.csv"
            if path.exists():
                with path.open(encoding="utf-8", newline="") as fh:
                    rows += [dict(zip(names, r, strict=True)) for r in csv.reader(fh)]
    return rows


def _plain(value: Any) -> Any:
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def canonical_dump(memory: Memory) -> list[str]:
    """Every node (labels, properties but :data:`VOLATILE`, whether its ``sepoch`` is its
    scope version's epoch) with its outgoing relationships, as sorted JSON lines."""
    rows = store_of(memory).read("graph_snapshot")
    epochs = {r["props"]["key"]: r["props"]["epoch"] for r in rows
              if "ScopeVersion" in r["labels"]}
    dump = []
    for row in rows:
        volatile = set().union(*(VOLATILE.get(label, set()) for label in row["labels"]))
        props = {k: _plain(v) for k, v in row["props"].items() if k not in volatile}
        if "Record" in row["labels"]:
            for key in EMPTY_AS_NONE:  # an initial load stores no empty list: readers alike
                props.setdefault(key, [])
        if "Record" in row["labels"] and "sepoch" in row["props"]:
            keys = [key for key, epoch in epochs.items() if epoch == row["props"]["sepoch"]]
            props["sepoch_is_scope_version"] = len(keys) == 1
        out = sorted(json.dumps([t, _plain(p), target], sort_keys=True, ensure_ascii=False)
                     for t, p, target in row["out"])
        dump.append(json.dumps([sorted(row["labels"]), props, out], sort_keys=True,
                               ensure_ascii=False))
    return sorted(dump)
