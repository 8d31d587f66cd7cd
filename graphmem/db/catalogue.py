"""The catalogue of Cypher queries: one ``.cypher`` file per query in ``cypher/``, by name.

Every query graphmem runs lives in a file; Python never builds Cypher text. Values
travel as ``$parameters``. Queries are tagged with their file name in transaction
metadata, so ``SHOW TRANSACTIONS`` and the query log say which file is running.

The folder is found in a checkout (``<repo>/cypher``) and in an installed wheel
(``graphmem/_cypher``, force-included by the build).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import LiteralString, cast

from neo4j import Query

__all__ = ["cypher_dir", "names", "query", "statements", "text"]


def cypher_dir() -> Path:
    """The folder holding the ``.cypher`` files (wheel copy first, then the checkout)."""
    package = Path(__file__).resolve().parents[1]  # graphmem/
    for candidate in (package / "_cypher", package.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("graphmem's cypher/ folder is missing from this installation")


@cache
def names() -> frozenset[str]:
    """Every query name in the catalogue (file stems)."""
    return frozenset(p.stem for p in cypher_dir().glob("*.cypher"))


@cache
def text(name: str) -> LiteralString:
    """The text of query ``name``, comments stripped.

    Raises:
        KeyError: no file ``cypher/<name>.cypher``.
    """
    if name not in names():
        raise KeyError(f"no Cypher query named {name!r}")
    raw = (cypher_dir() / f"{name}.cypher").read_text(encoding="utf-8")
    lines = [line for line in raw.splitlines() if not line.lstrip().startswith("//")]
    return _literal("\n".join(lines).strip())


def statements(name: str) -> list[LiteralString]:
    """A multi-statement file (schema only) split on ``;`` at line ends."""
    parts = [part.strip() for part in text(name).split(";\n")]
    return [_literal(part.rstrip(";").strip()) for part in parts if part.strip()]


def _literal(query_text: str) -> LiteralString:
    """The one place where file text becomes query text: the files ship with the package."""
    return cast(LiteralString, query_text)  # type: ignore[redundant-cast, unused-ignore]


def query(name: str, *, timeout_s: float | None = None) -> Query:
    """A driver ``Query`` for file ``name``, tagged with the file name."""
    return Query(text(name), metadata={"graphmem_query": name}, timeout=timeout_s)
