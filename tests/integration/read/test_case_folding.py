"""Retrieval matches across case in every script: the ranking index and the query fold alike
(docs/spec/read-path.md#rank); the folding itself is in tests/unit/test_fields_case_folding.py."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.client import Memory
from graphmem.models import MemoryKind, MemoryRecord, Principal
from graphmem.read.steps import DecisionState
from graphmem.read.tokens import tokenize
from tests.support.spellings import SPELLINGS

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 2, 1, tzinfo=UTC)


def test_retrieval_matches_across_case_in_every_script(memory: Memory) -> None:
    records = {f"r{i}": stored for i, (_, stored, _) in enumerate(SPELLINGS)}
    records["control"] = "MONTREAL office opening"
    memory.put_many([
        MemoryRecord(id=rid, kind=MemoryKind.SEMANTIC, content=text,
                     created_at=T0, scope={"tenant": "fold"}, provenance={"source": "t"})
        for rid, text in records.items()])
    queries = {f"r{i}": typed for i, (_, _, typed) in enumerate(SPELLINGS)}
    queries["control"] = "montreal"
    for rid, query in queries.items():
        result = memory.retrieve(
            DecisionState(memory_scope={"tenant": "fold"}, goal=query,
                          needs_prior_context=True),
            principal=Principal(tenants=frozenset({"fold"})), now=NOW, budget_chars=10_000)
        scored = {r for r, score in result.trace.ranked if score > 0}
        same_word = {r for r, text in records.items() if set(tokenize(text)) & set(tokenize(query))}
        assert rid in scored, (query, scored)
        assert scored == same_word, (query, scored)
