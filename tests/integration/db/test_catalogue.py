"""The Cypher catalogue against the real server: every query file parses (EXPLAIN), and a
query is planned once whatever the lengths of its list and string parameters."""

from __future__ import annotations

import re
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import catalogue as cypher

#: Statements whose form with one map of parameters plans Eager operators that the file's
#: text does not: Neo4j cannot tell that ``$args`` is a map, so it takes ``$args.p`` for a
#: property read that a SET of the statement may conflict with (found by a review helper,
#: 2026-12-02). Eager holds the rows before going on: one scope's nodes, one intention, a
#: deletion's batch of texts. No other statement may gain one.
EAGER_FROM_ARGS = frozenset({"write/nodes_ensure", "intentions/create",
                             "deletion/erase_intentions", "deletion/redact/text"})


def _eager(plan: dict[str, Any] | None) -> int:
    stack, found = [plan], 0
    while stack:
        op = stack.pop()
        if op is not None:
            found += op["operatorType"].startswith("Eager")
            stack.extend(op.get("children", []))
    return found


def test_every_file_parses(memory: Memory) -> None:
    """Each file parses, as its text and in the form the store runs (parameters in one map:
    ``$args.p``), and the second form plans no Eager operator the first does not, but in
    :data:`EAGER_FROM_ARGS`."""
    gained = set()
    with store_of(memory).driver.session(database=store_of(memory).database) as session:
        for name in sorted(cypher.names()):
            if name in ("schema", "migration/assertions/constraint"):  # schema commands run
                # (and so parse) in Memory.connect
                continue
            text, run = (session.run("EXPLAIN " + form).consume().plan
                         for form in (cypher.text(name), cypher.statement(name)))
            if _eager(run) > _eager(text):
                gained.add(name)
    assert gained == EAGER_FROM_ARGS


@pytest.mark.neo4j
def test_a_query_is_planned_once_whatever_the_lengths_of_its_lists_and_strings(
        memory: Memory) -> None:
    """Neo4j 5 keys its plan cache on each list or string parameter's length, in powers of
    ten: run as the file says, a query is planned again for each (0.2-0.35 s for the
    attribution log's). Run by the store, with its parameters in one map, it is
    planned once: the server's query cache holds one entry after runs with lengths 0 to 500
    (and several when the same runs pass their parameters one by one, as a check that the
    lengths here do fall in different powers of ten)."""
    def cached() -> int:
        rows, _, _ = store_of(memory).driver.execute_query(
            "CALL db.clearQueryCaches()", database_=store_of(memory).database)
        found = re.search(r"of (\d+) quer", rows[0][0])
        return int(found.group(1)) if found else 0

    lengths = (0, 1, 5, 50, 500)
    cached()
    for n in lengths:
        store_of(memory).read("records/existing", ids=[f"r{i}" for i in range(n)])
        store_of(memory).read("retrieval/get", id="x" * n)
    assert cached() == 2
    for n in lengths:
        for name, params in (("records/existing", {"ids": [f"r{i}" for i in range(n)]}),
                             ("retrieval/get", {"id": "x" * n})):
            store_of(memory).driver.execute_query(cypher.text(name), params,
                                              database_=store_of(memory).database)
    assert cached() == 2 * len(lengths)
