"""The columnar planner's lineage entries equal those the version 4 planner listed
(tests/support/deletion_reference.py), field for field and in order, on random walks with
erased descendants, erased and surviving parents outside the walk, roots below roots,
procedures, terms, cycles, and depths in any order or in the walk's (by depth)."""

from __future__ import annotations

import random

import pytest

from graphmem.deletion.lineage import WalkedColumns, lineage_columns
from graphmem.deletion.models import Disposition, PlanEntry
from graphmem.deletion.plan import WalkRow, _plan_columns
from tests.support.deletion_reference import reference_lineage


def _random_walk(rng: random.Random, by_depth: bool = False
                 ) -> tuple[set[str], WalkedColumns]:
    n = rng.randint(1, 50)
    roots = {f"root{i}" for i in range(rng.randint(1, 3))}
    outside = [f"out{i}" for i in range(rng.randint(0, 4))]
    names = [f"d{i:02d}" for i in range(n)]
    rows: list[WalkRow] = []
    for i, d in enumerate(names):
        pool = [*roots, *names[:i], *outside]
        parents = set(rng.sample(pool, k=min(len(pool), rng.randint(1, 5))))
        if not parents & (roots | set(names)):
            parents.add(rng.choice(sorted(roots)))
        rows.append(WalkRow(
            id=d, kind=rng.choice(["semantic", "episodic", "procedural"]),
            erased=rng.random() < 0.1, depth=rng.randint(1, 6), parents=sorted(parents),
            terms=tuple(sorted(rng.sample(range(3), rng.randint(1, 2))))
            if rng.random() < 0.2 else ()))
    if n > 3 and rng.random() < 0.3:  # a cycle among descendants
        a, b = rng.sample(range(n), 2)
        rows[a]["parents"] = sorted({*rows[a]["parents"], names[b]})
        rows[b]["parents"] = sorted({*rows[b]["parents"], names[a]})
    if rng.random() < 0.3:  # a root that descends from another root
        rows.append(WalkRow(id=sorted(roots)[0], kind="semantic", erased=False, depth=2,
                            parents=[rng.choice(names)], terms=()))
    if rng.random() < 0.5:  # depth the walk's shortest distance: parents come first
        for row in sorted(rows, key=lambda r: int(r["id"][1:]) if r["id"][0] == "d" else 0):
            inside = [r["depth"] for r in rows if r["id"] in row["parents"]]
            row["depth"] = min([d + 1 for d in inside] + [1])
    rng.shuffle(rows)
    if by_depth:  # as the walk gives them: by depth, in no order within one
        rows.sort(key=lambda r: r["depth"])
    erased_outside = frozenset(o for o in outside if rng.random() < 0.5)
    return roots, WalkedColumns(
        ids=[r["id"] for r in rows], kinds=[r["kind"] for r in rows],
        erased=[r["erased"] for r in rows], depths=[r["depth"] for r in rows],
        parents=[tuple(r["parents"]) for r in rows],
        terms={r["id"]: tuple(r["terms"]) for r in rows if r["terms"]},
        erased_parents=erased_outside)


@pytest.mark.parametrize("by_depth", [False, True])
@pytest.mark.parametrize("seed", range(400))
def test_lineage_entries_equal_the_version_4_planner(seed: int, by_depth: bool) -> None:
    roots, walked = _random_walk(random.Random(seed), by_depth)
    rows = [WalkRow(id=i, kind=k, erased=e, depth=d, parents=list(p),
                    terms=walked.terms.get(i, []))
            for i, k, e, d, p in zip(walked.ids, walked.kinds, walked.erased, walked.depths,
                                     walked.parents, strict=True)]
    expected, deleted = reference_lineage(roots, rows, set(walked.erased_parents))
    lineage = lineage_columns(walked, roots)
    assert lineage.deleted == deleted
    first = [PlanEntry(id=r, disposition=Disposition.DELETE, reason="root", via="root")
             for r in sorted(roots)]
    columns = _plan_columns(first, lineage, [])
    assert columns.entries() == (*first, *expected)
    columns.check(3, sorted(roots))  # the planner's columns keep the plan's rules
    # derived reasons only where the version 4 planner wrote that very text
    assert [r is None for r in columns.reasons[len(first):]] == [
        e.reason.startswith("every parent is being deleted") for e in expected]
