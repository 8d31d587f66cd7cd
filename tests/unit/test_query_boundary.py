"""Named queries run only inside graphmem/db/: every other package reaches the database
through the typed operations of graphmem/db/ops/ (docs/architecture.md). No database needed:
the package's source is scanned."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "graphmem"

#: The store's ways to run a query (graphmem/db/base.py).
RUNNERS = {"read", "read_records", "read_values", "read_once", "write", "write_once",
           "_statement", "transaction", "begin", "run"}
#: Runner methods no other object of graphmem has: any call of one is the store's.
STORE_ONLY = RUNNERS - {"read", "write", "run"}
#: A receiver that is the store: ``store``, ``self.store``, ``self._store``, ``store_of(m)``.
STORE_RECEIVER = re.compile(r"(^|\.|_)store$|^store_of\(")



def query_names() -> set[str]:
    """Every query's name: its file under cypher/, without the suffix."""
    return {p.relative_to(ROOT / "cypher").with_suffix("").as_posix()
            for p in (ROOT / "cypher").rglob("*.cypher")}


def crossings(source: str, names: set[str]) -> list[str]:
    """Where ``source`` runs a named query or imports the catalogue: one line per place."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            imported = {f"{node.module}.{a.name}" for a in node.names} | {node.module}
            if "graphmem.db.catalogue" in imported:
                found.append(f"{node.lineno}: imports graphmem.db.catalogue")
        elif isinstance(node, ast.Import):
            if any(a.name == "graphmem.db.catalogue" for a in node.names):
                found.append(f"{node.lineno}: imports graphmem.db.catalogue")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in RUNNERS):
            receiver = ast.unparse(node.func.value)
            named = [a.value for a in node.args
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     and a.value in names]
            if (node.func.attr in STORE_ONLY or named
                    or STORE_RECEIVER.search(receiver)):
                found.append(f"{node.lineno}: {receiver}.{node.func.attr}"
                             f"({', '.join(map(repr, named))}...)")
    return found


def offenders() -> dict[str, list[str]]:
    """Modules outside graphmem/db/ that cross the boundary, with where."""
    names = query_names()
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("graphmem/db/"):
            continue
        where = crossings(path.read_text(encoding="utf-8"), names)
        if where:
            out[rel] = where
    return out


def test_named_queries_run_only_inside_the_db_package() -> None:
    found = offenders()
    outside = found
    assert not outside, (
        "named queries run, or the catalogue imported, outside graphmem/db/ (add a typed "
        f"operation under graphmem/db/ops/ instead): {outside}")


def test_the_scan_sees_every_way_across() -> None:
    """The scan itself: each form a crossing takes is caught, and look-alikes are not."""
    names = {"intentions/get", "wipe_batch"}
    caught = [
        "store.read('intentions/get', id=i)",
        "self.store.run(tx, 'wipe_batch')",
        "tx.run('intentions/get')",
        "store_of(memory).write(name, limit=1)",
        "self._store.read(name)",
        "ops.store.transaction('kind', work)",
        "whatever.begin('retrieval_log')",
        "x.read_values('anything')",
        "from graphmem.db import catalogue",
        "from graphmem.db.catalogue import query",
        "import graphmem.db.catalogue",
    ]
    for source in caught:
        assert crossings(source, names), source
    for source in ["memory.write(record, by='a')", "sys.stdout.write('intentions')",
                   "server.run('streamable-http')", "fh.read(10)",
                   "from graphmem.db import access"]:
        assert not crossings(source, names), source
