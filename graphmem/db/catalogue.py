"""The catalogue of Cypher queries: one ``.cypher`` file per query in ``cypher/``, by name.

A query's name is its path in ``cypher/`` without the suffix: ``cypher/candidates.cypher`` is
``"candidates"``, ``cypher/deletion/walk.cypher`` is ``"deletion/walk"`` (queries of one
concern share a folder; ``cypher/parts/`` holds parts, not queries).

Every query graphmem runs lives in a file; Python never builds Cypher text. Values
travel as ``$parameters``. Queries are tagged with their name in transaction
metadata, so ``SHOW TRANSACTIONS`` and the query log say which file is running.

The store runs a query as :func:`statement` gives it, with :func:`arguments`: each ``$name`` of the
file is read as ``$args.name`` from one map parameter. Neo4j 5 keys its plan cache on the type of
each parameter and, for a list or a string, on the power of ten its length falls in; a map parameter
has neither. So each query is planned once, not once for every mix of lengths among its lists and
strings (a query text one character longer than 99, a candidate set logged whole after ones logged
as deltas: 0.2-0.35 s of planning each, measured on the agent loop of bench/agent_loop.py).

Plans. A statement of the agent loop (a scope's writes, lifecycle calls and reads) starts
``CYPHER replan=skip``: the plan made the first time it runs is kept. Neo4j otherwise plans
a cached query again whenever the statistics it was planned on have moved past a threshold
(at most every 10 s per query, in a store that grows: each retrieval adds to the log), and
the call that meets it waits: 40-400 ms of planning for these statements, warm
(docs/performance.md, "The loop's statements keep their first plan"). Their plans do not
depend on the statistics: every lookup by an indexed key says ``USING INDEX SEEK``, and
``tests/integration/db/test_write_plans.py`` checks that each of them, planned while the
statistics are of an empty store, scans nothing, and that the loop's statements are exactly
the ones that keep their plans.

The folder is found in a checkout (``<repo>/cypher``) and in an installed wheel
(``graphmem/_cypher``, force-included by the build).

What runs is what the file says. The store changes a file's text in two mechanical steps only,
so that the file with its parts pasted in is the statement: (1) each ``{{name}}`` is replaced by
part ``cypher/parts/<name>.cypher`` as it is written (a part that is a condition goes in in
parentheses, so that it binds as one term wherever it stands; a part made of clauses, such as a
subquery, goes in as it is; a part may name other parts), and (2) each parameter ``$p`` is read
as ``$args.p`` from the one map parameter (above). Comment lines are dropped. ``graphmem cypher
show NAME`` prints the result. Nothing else is rewritten: a part reads its inputs from variables
the query binds and names in the file (``r``, ``q_tenant``, the instant ``now``; a policy
write's parts read the write's fields from its map ``w``), and a query carries them through its
``WITH`` clauses and into its subqueries itself. One text of the write parts then serves a
statement of one write (``w`` is the map ``write``) and a batch of them (``w`` is each row), and
one text of the status parts a read at one instant (``$now AS now``) and writes each at its own.
A shared condition (what makes a record live, when a successor supersedes: docs/spec/status.md)
is written once, in a part; parts are file text like the queries, never built from values.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, LiteralString, cast

from neo4j import Query

from graphmem.errors import StoreError, UnknownQueryError

__all__ = ["ARGS", "arguments", "cypher_dir", "names", "parameters", "part", "query", "sent",
           "statement", "statements", "text"]

#: The one map parameter a query's own parameters travel in (:func:`statement`).
ARGS = "args"

#: ``{{name}}``: part ``name`` goes in here, as it is written (:func:`text`).
_PART = re.compile(r"\{\{([a-z][a-z0-9_]*)\}\}")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def cypher_dir() -> Path:
    """The folder holding the ``.cypher`` files (wheel copy first, then the checkout)."""
    package = Path(__file__).resolve().parents[1]  # graphmem/
    for candidate in (package / "_cypher", package.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("graphmem's cypher/ folder is missing from this installation")


#: The folder of parts (:func:`part`), not queries.
_PARTS = "parts"


@cache
def names() -> frozenset[str]:
    """Every query name in the catalogue: each ``.cypher`` file's path in ``cypher/``, in any
    folder but ``parts/``, without the suffix (``"deletion/walk"``)."""
    root = cypher_dir()
    paths = (p.relative_to(root) for p in root.rglob("*.cypher"))
    return frozenset(p.with_suffix("").as_posix() for p in paths if p.parts[0] != _PARTS)


@cache
def text(name: str) -> LiteralString:
    """The text of query ``name`` with its parts put in (``{{name}}``: see the module's
    docstring), comment lines dropped.

    Raises:
        KeyError: no file ``cypher/<name>.cypher``.
    """
    if name not in names():
        raise KeyError(f"no Cypher query named {name!r}")
    body = _strip((cypher_dir() / f"{name}.cypher").read_text(encoding="utf-8"))
    return _literal(_included(body))


def _included(body: str) -> str:
    """``body`` with each ``{{name}}`` replaced by :func:`part` ``name``: in parentheses when the
    part is a condition."""
    return _PART.sub(lambda m: _inserted(part(m.group(1))), body)


def _inserted(part_text: str) -> str:
    return part_text if part_text.startswith(_CLAUSES) else f"({part_text})"


#: A part that starts with one of these is clauses, put in as it is; any other is a condition.
_CLAUSES = ("CALL", "MATCH", "MERGE", "OPTIONAL", "WITH", "UNWIND")


@cache
def part(name: str) -> str:
    """The text of ``cypher/parts/<name>.cypher`` (a condition shared by queries), comments
    stripped.

    Raises:
        KeyError: no such part.
    """
    path = cypher_dir() / _PARTS / f"{name}.cypher"
    if not path.is_file():
        raise KeyError(f"no Cypher part named {name!r}")
    # a part may name other parts (write_probe names successor_effective)
    return _included(_strip(path.read_text(encoding="utf-8")))


def _strip(raw: str) -> str:
    """File text without its comment lines."""
    lines = [line for line in raw.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def statements(name: str) -> list[LiteralString]:
    """A multi-statement file (schema only) split on ``;`` at line ends."""
    parts = [part.strip() for part in text(name).split(";\n")]
    return [_literal(part.rstrip(";").strip()) for part in parts if part.strip()]


def _literal(query_text: str) -> LiteralString:
    """The one place where file text becomes query text: the files ship with the package."""
    return cast(LiteralString, query_text)  # type: ignore[redundant-cast, unused-ignore]


@cache
def statement(name: str) -> LiteralString:
    """The text the store runs for query ``name``: :func:`text` with each parameter ``$p``
    read as ``$args.p`` from the one map parameter that :func:`arguments` makes (one plan
    per query: see the module's docstring). Every ``$`` of a query is a parameter (checked
    by ``tests/unit/db/test_catalogue.py``).

    Raises:
        KeyError: no such query.
    """
    return _literal(_PARAM.sub(lambda m: f"${ARGS}.{m.group(1)}", text(name)))


def sent(name: str) -> LiteralString:
    """:func:`statement` ``name``, the text the store sends, for a person to read
    (``graphmem cypher show``).

    Raises:
        UnknownQueryError: no query ``name``; it names the closest names of the catalogue.
    """
    if name in names():
        return statement(name)
    if (cypher_dir() / _PARTS / f"{name}.cypher").is_file():
        raise UnknownQueryError(name, part=True,
                                close=sorted(n for n in names() if part(name) in text(n)))
    raise UnknownQueryError(name, close=_close(name))


def _close(name: str) -> list[str]:
    """The query names closest to ``name``, best first: by the whole name, or by its last
    segment (``walk`` finds ``deletion/walk``)."""
    by_key: dict[str, str] = {}
    for full in sorted(names()):
        by_key.setdefault(full, full)
        by_key.setdefault(full.rpartition("/")[2], full)
    found = difflib.get_close_matches(name.strip().removesuffix(".cypher"), by_key, n=8,
                                      cutoff=0.6)
    return list(dict.fromkeys(by_key[key] for key in found))[:5]


@cache
def parameters(name: str) -> frozenset[str]:
    """The names of the parameters query ``name`` reads (``$p`` in its text and parts)."""
    return frozenset(_PARAM.findall(text(name)))


def arguments(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of :func:`statement` ``name``: ``params`` (parameter name to value)
    as the one map parameter ``args``.

    Raises:
        StoreError: a parameter the query reads is missing from ``params`` (as Neo4j refuses
            a missing parameter; in a map it would be read as null).
    """
    missing = parameters(name) - params.keys()
    if missing:
        raise StoreError(f"query {name} was run without parameters {sorted(missing)}")
    return {ARGS: params}


def query(name: str, *, timeout_s: float | None = None) -> Query:
    """A driver ``Query`` of :func:`statement` ``name`` (pass :func:`arguments`), tagged with
    ``name``."""
    return Query(statement(name), metadata={"graphmem_query": name}, timeout=timeout_s)
