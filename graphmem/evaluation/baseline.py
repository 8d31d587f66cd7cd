"""The naive baseline: a "vector dump" that stores everything and ranks by similarity alone.

This is the design the chapter warns about (sections 5 and 15), kept in plain Python so
the comparison isolates what graphmem's exact control adds. It uses the same query
builder and the same BM25 ranker as graphmem, so any difference in the evaluation comes
from what the baseline lacks:

- no write policy: every proposal is stored, duplicates and untrusted content included;
- no eligibility: no tenant, scope, clearance, quarantine or status filter;
- no lifecycle: an update is another record (the old one stays current), expiry and
  supersession are ignored; deletion removes the named ids only, never derived records;
- no conflicts: whatever ranks highest is shown, with nothing flagged;
- intentions fire on the most similar cue (``difflib`` ratio >= ``cue_threshold``)
  every time an event arrives: no exact match, no status, no lock.

It is generous in one respect: ``delete`` exists, so a retraction can remove a record.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.models import DeferredIntention, MemoryRecord
from graphmem.read.rankers import BM25Ranker, Ranker, order_by_score
from graphmem.read.steps import DecisionState, build_query

__all__ = ["NaiveVectorDump"]


@dataclass
class NaiveVectorDump:
    """Store everything; return the top ``k`` records by BM25 similarity.

    Attributes:
        k: how many records a retrieval returns (those with a score > 0).
        cue_threshold: the similarity (0..1) above which an event fires an intention.
        ranker: the similarity (default BM25, the same as graphmem's default).
    """

    k: int = 5
    cue_threshold: float = 0.8
    ranker: Ranker = field(default_factory=BM25Ranker)
    records: dict[str, MemoryRecord] = field(default_factory=dict)
    intentions: dict[str, DeferredIntention] = field(default_factory=dict)

    name = "naive"

    def write(self, record: MemoryRecord) -> None:
        """Store the record (a re-used id overwrites, as an upsert would)."""
        self.records[record.id] = record

    def write_many(self, records: Iterable[MemoryRecord]) -> None:
        """Store every record."""
        for r in records:
            self.write(r)

    def delete(self, ids: Iterable[str]) -> None:
        """Remove the named records (and nothing derived from them)."""
        for rid in ids:
            self.records.pop(rid, None)

    def retrieve(self, state: DecisionState) -> list[MemoryRecord]:
        """The top ``k`` stored records for the state's query, by similarity alone."""
        pool = list(self.records.values())
        scores = self.ranker.score(build_query(state), pool)
        return [r for r, s in order_by_score(pool, scores) if s > 0][: self.k]

    def intend(self, intention: DeferredIntention) -> None:
        """Store an intention."""
        self.intentions[intention.id] = intention

    def process_event(self, event: Mapping[str, str]) -> list[DeferredIntention]:
        """Fire the intention whose cue is most similar to one of the event's, if similar
        enough. Nothing records that it fired, so the same event fires it again."""
        fired: list[DeferredIntention] = []
        for kind, value in sorted(event.items()):
            best = _most_similar(f"{kind}={value}", self.intentions.values())
            if best is not None and best[1] >= self.cue_threshold and best[0] not in fired:
                fired.append(best[0])
        return fired


def _most_similar(cue: str, intentions: Iterable[DeferredIntention]
                  ) -> tuple[DeferredIntention, float] | None:
    scored: Sequence[tuple[DeferredIntention, float]] = [
        (i, difflib.SequenceMatcher(None, cue, f"{i.trigger_kind}={i.trigger_value}").ratio())
        for i in sorted(intentions, key=lambda i: i.id)
    ]
    return max(scored, key=lambda p: p[1]) if scored else None
