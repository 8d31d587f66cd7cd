"""Every expectation of the northwind scenario's queries is one that
tests/integration/demo/test_northwind.py checks."""

from __future__ import annotations

from tests.support.northwind import lines

QUERIES = {q["id"]: q for q in lines("queries.jsonl")}
# the kinds of expectation queries.jsonl holds, each checked by one test below
RETRIEVAL_EXPECT = {"must_include", "must_exclude", "conflicts"}
NO_TRIGGER_EXPECT = {"retrieved": False}
CROSS_TENANT_EXPECT = {"error": "authorization"}


def test_every_expectation_is_one_this_file_checks() -> None:
    for qid, q in QUERIES.items():
        expect = q["expect"]
        assert set(expect) == RETRIEVAL_EXPECT or expect in (
            NO_TRIGGER_EXPECT, CROSS_TENANT_EXPECT), (qid, expect)


