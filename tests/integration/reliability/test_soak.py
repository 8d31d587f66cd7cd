"""The soak's short profile: ``bench.soak.run_soak`` for a few seconds on
a small store, with every invariant it checks holding. The full run is ``python -m
bench.soak`` (5 minutes, 10^4 records); its figures are in docs/reliability.md.
"""

from __future__ import annotations

import os

import pytest

from bench.soak import run_soak
from graphmem.client import Memory
from tests.support.database import Neo4jUnderTest, wipe

pytestmark = pytest.mark.neo4j

SECONDS = float(os.environ.get("GRAPHMEM_SOAK_SECONDS", "20"))


def test_short_soak_holds_every_invariant(neo4j_db: Neo4jUnderTest) -> None:
    with Memory.connect(neo4j_db.settings, start_if_needed=False) as memory:
        wipe(memory)
        try:
            results = run_soak(neo4j_db.settings, seconds=SECONDS, workers=16, records=1000,
                               intentions=90, delete_every_s=2.0)
        finally:
            wipe(memory)
    assert results["violations"] == []
    assert results["deletions_applied"] >= 1 and results["nodes_erased"] > 0
    for op in ("write", "retrieve", "process_event"):
        assert results["latency"][op]["n"] > 0, op
    assert results["acknowledged_writes"] > 0
    assert results["intentions_fired"] > 0
