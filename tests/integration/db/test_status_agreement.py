"""Every way of asking a record's status gives the same answer, on every combination of the
status flags and time conditions (docs/status.md): ``explain``, ``graphmem stats``, lineage
graphs and the candidate query, each against the precedence graphmem.models.Status declares.

The flags and times are set by Cypher on records stored through the client, as a hand edit
or an older version's data could leave them: the store's own calls never quarantine or mark
a tombstone, so an erased record that is also quarantined exists only that way.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.client import Memory, store_of
from graphmem.db.stats import RECORD_STATUSES, store_stats
from graphmem.lineage.graph import build_lineage
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity, Status

pytestmark = pytest.mark.neo4j

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)
DAY = timedelta(days=1)
#: The statuses a record property of the same name (lower case) decides.
FLAGGED = (Status.ERASED, Status.QUARANTINED, Status.PENDING_RECOMPUTE, Status.RETRACTED)
FLAGS = tuple(status.value.lower() for status in FLAGGED)
TIMES = ("created_later", "valid_later", "expired", "superseded")
COMBOS = [dict(zip(FLAGS + TIMES, bits, strict=True))
          for bits in itertools.product((False, True), repeat=len(FLAGS) + len(TIMES))]


def expected(combo: dict[str, bool]) -> Status:
    """The first status of the Python precedence whose condition holds."""
    holds = {status: combo[status.value.lower()] for status in FLAGGED}
    holds |= {Status.NOT_YET_VALID: combo["created_later"] or combo["valid_later"],
              Status.EXPIRED: combo["expired"], Status.SUPERSEDED: combo["superseded"],
              Status.ACTIVE: True}
    return next(Status(status) for status in RECORD_STATUSES if holds[Status(status)])


def _record(rid: str, tenant: str, kind: MemoryKind, supersedes: tuple[str, ...] = ()
            ) -> MemoryRecord:
    return MemoryRecord(id=rid, kind=kind, content=f"note {rid}", created_at=NOW - 10 * DAY,
                        scope={"tenant": tenant}, authority=Authority.HUMAN_INSTRUCTION,
                        supersedes=supersedes)


def test_explain_stats_lineage_and_candidates_agree_on_every_combination(
        memory: Memory) -> None:
    """One record per combination, each in a tenant of its own (stats count by tenant, so
    each stats row is one record's status), semantic; a superseded one has an episodic
    successor in its tenant, admitted and effective."""
    tenants = {f"c{i:03d}": combo for i, combo in enumerate(COMBOS)}
    memory.put_many([_record(t, t, MemoryKind.SEMANTIC) for t in tenants])
    memory.put_many([_record(f"{t}-next", t, MemoryKind.EPISODIC, supersedes=(t,))
                     for t, combo in tenants.items() if combo["superseded"]])
    rows = [{"id": t, **{flag: combo[flag] for flag in FLAGS},
             "created_at": NOW + DAY if combo["created_later"] else NOW - 10 * DAY,
             "valid_from": NOW + 2 * DAY if combo["valid_later"] else NOW - 5 * DAY,
             "expires_at": NOW - DAY if combo["expired"] else NOW + 30 * DAY}
            for t, combo in tenants.items()]
    store_of(memory).driver.execute_query(
        "UNWIND $rows AS row MATCH (r:Record {id: row.id}) "
        "SET r.erased = row.erased, r.quarantined = row.quarantined, "
        "r.pending_recompute = row.pending_recompute, r.retracted = row.retracted, "
        "r.created_at = row.created_at, r.valid_from = row.valid_from, "
        "r.expires_at = row.expires_at",
        {"rows": rows}, database_=store_of(memory).database)

    want = {t: expected(combo) for t, combo in tenants.items()}
    assert {s.value for s in want.values()} == set(RECORD_STATUSES)  # every status is reached
    reader = Principal(tenants=frozenset(tenants), clearance=Sensitivity.RESTRICTED)

    explained = {t: memory.explain(t, principal=reader, scope={"tenant": t}, now=NOW).status
                 for t in tenants}
    assert explained == want

    counted = {row["tenant"]: Status(row["status"])
               for row in store_stats(store_of(memory), now=NOW)["records"]["rows"]
               if row["kind"] == MemoryKind.SEMANTIC.value}
    assert counted == want

    drawn = {t: Status(build_lineage(store_of(memory), t, depth=0, now=NOW).nodes[t]["status"])
             for t in tenants}
    assert drawn == want

    retrieved = {t for t in tenants
                 if t in {r.id for r in memory.candidates(principal=reader,
                                                          scope={"tenant": t}, now=NOW)}}
    assert retrieved == {t for t, status in want.items() if status is Status.ACTIVE}
