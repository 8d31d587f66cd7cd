"""Profiles of the catalogue's statements: their database hits and the scans in their
plans (tests/integration/db/test_write_plans.py, the LangGraph search cost)."""

from __future__ import annotations

from typing import Any

from graphmem.client import Memory, store_of
from graphmem.db import catalogue

#: Operators that read every entry of an index, every node of a label, or every node.
SCANS = ("NodeIndexScan", "NodeByLabelScan", "AllNodesScan", "NodeIndexContainsScan",
         "NodeIndexEndsWithScan", "DirectedRelationshipTypeScan",
         "UndirectedRelationshipTypeScan")


def profile(memory: Memory, name: str, params: dict[str, Any],
            *, keep_plan: bool = False) -> tuple[int, list[str]]:
    """Database hits of statement ``name`` with ``params``, and the scans in its plan; what it
    writes is rolled back. ``keep_plan``: run the plan the server cached for it (made by an
    earlier profile, on the statistics of then), however much they have changed since."""
    statement = catalogue.statement(name)
    if keep_plan and not statement.startswith("CYPHER replan=skip"):
        statement = "CYPHER replan=skip " + statement
    with store_of(memory).driver.session(database=store_of(memory).database) as session:
        tx = session.begin_transaction()
        try:
            result = tx.run("PROFILE " + statement, catalogue.arguments(name, params))
            list(result)  # the server has profiler stats once every row is read
            summary = result.consume()
        finally:
            tx.rollback()
    return walked(summary.profile)


def walked(plan: dict[str, Any] | None) -> tuple[int, list[str]]:
    """The database hits of a profiled ``plan`` (0 for a plan not run), and its scans."""
    hits, scans, stack = 0, [], [plan]
    while stack:
        op = stack.pop()
        if op is None:
            continue
        stack.extend(op.get("children", []))
        hits += op.get("dbHits", 0)
        if op["operatorType"].split("@")[0] in SCANS:
            scans.append(op["args"].get("Details", op["operatorType"]))
    return hits, scans
