"""The attribution log (SPEC section 5, step 9; section 9): each retrieval with its query,
candidate set, selection, scores and reasons, and the exposure and use of its memories, so
that exposure, use and help can be reconstructed later.

A candidate set is stored once, as a ``CandidateSet`` keyed by a digest; its ids are sent
again only when the server lacks them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graphmem.db.store import Neo4jStore
from graphmem.errors import RecordNotFoundError, ValidationError
from graphmem.models import Principal
from graphmem.read.steps import DecisionState, MemoryConflict, RetrievalTrace, RetrievedMemory

__all__ = ["AttributionLog"]

MAX_KNOWN_SETS = 4096


class AttributionLog:
    """Writes and reads the attribution log of one store.

    Remembers the digests of candidate sets it has logged (at most ``MAX_KNOWN_SETS``), so
    their ids need not be resent.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store
        self._candidate_sets: set[str] = set()

    def log_retrieval(self, trace: RetrievalTrace, memories: Sequence[RetrievedMemory],
                      conflicts: Sequence[MemoryConflict], principal: Principal,
                      state: DecisionState) -> None:
        """Log one retrieval (triggered or not) in one transaction."""
        t = trace
        tenant = state.memory_scope["tenant"]
        digest = hashlib.sha256(json.dumps([tenant, *t.candidate_ids]).encode()).hexdigest()
        stored = digest in self._candidate_sets
        params = dict(
            id=t.retrieval_id, at=t.at, triggered=t.triggered,
            triggers=list(t.triggers), query=t.query, ranker=t.ranker, tenant=tenant,
            scope_json=json.dumps(state.memory_scope, sort_keys=True),
            tenants=sorted(principal.tenants), clearance=principal.clearance.value,
            candidate_digest=digest, candidate_count=len(t.candidate_ids),
            candidate_ids=None if stored else list(t.candidate_ids),
            selected_ids=[m.record.id for m in memories],
            conflict_keys=[c.key for c in conflicts], budget_chars=t.budget_chars,
            selected=[{"id": m.record.id, "score": m.score, "reason": m.reason, "rank": i}
                      for i, m in enumerate(memories)],
        )

        def work(tx: ManagedTransaction) -> None:
            if self.store.run(tx, "retrieval_log", **params)[0]["incomplete"]:
                self.store.run(tx, "candidate_set_fill", digest=digest,
                               ids=list(t.candidate_ids))

        self.store.transaction("retrieval_log", work)
        if len(self._candidate_sets) >= MAX_KNOWN_SETS:
            self._candidate_sets.clear()
        self._candidate_sets.add(digest)

    def log_attribution(self, name: str, retrieval_id: str, action_id: str,
                        memory_ids: Sequence[str], at: datetime, **extra: Any) -> None:
        """Log exposure (``name="exposure_log"``) or use (``"use_log"``) of selected memories.

        Raises:
            RecordNotFoundError: unknown retrieval. ValidationError: an empty action id, or
                an id the retrieval did not select.
        """
        if not action_id:
            raise ValidationError("action_id must be non-empty")
        rows = self.store.read("retrieval_get", id=retrieval_id)
        if not rows:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        selected = set(rows[0]["retrieval"].get("selected_ids") or [])
        stray = sorted(set(memory_ids) - selected)
        if stray:
            raise ValidationError("these memories were not selected by that retrieval",
                                  record_ids=stray)
        self.store.write(name, retrieval_id=retrieval_id, action_id=action_id,
                         at=at, memory_ids=list(memory_ids), **extra)

    def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """A logged retrieval: its properties and selected records with scores and reasons.

        Raises:
            RecordNotFoundError: unknown retrieval.
        """
        rows = self.store.read("retrieval_get", id=retrieval_id)
        if not rows:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        return {"retrieval": rows[0]["retrieval"], "selected": rows[0]["selected"]}
