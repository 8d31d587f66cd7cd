"""The lineage dispositions of a deletion plan against a plain reading of the rule, on random
DAGs (with erased nodes, roots below roots, erased and surviving parents outside the walk, and
cycles)."""

from __future__ import annotations

import random
from collections import deque

import pytest

from graphmem.deletion.lineage import lineage_dispositions
from graphmem.deletion.plan import WalkRow


def _lineage_dispositions(roots: set[str], walk: dict[str, WalkRow], erased_parents: set[str],
                          shuffle: random.Random | None = None) -> tuple[set[str], set[str]]:
    """:func:`lineage_dispositions` of the walk's descendants in the walk's order (or
    shuffled: an order where a parent may come after its child is decided by Kahn order)."""
    ids = [d for d in walk if d not in roots]
    if shuffle is not None:
        shuffle.shuffle(ids)
    return lineage_dispositions(ids, [tuple(walk[d]["parents"]) for d in ids],
                                [walk[d]["erased"] for d in ids], roots | erased_parents)


def _by_the_rule(roots: set[str], walk: dict[str, WalkRow], erased_parents: set[str]
                 ) -> tuple[set[str], set[str]]:
    """Deleted = roots, erased parents and erased nodes, then every node (in an order where
    its walked parents come first) all of whose parents are deleted; cyclic = the nodes no
    such order reaches."""
    todo = {d: row for d, row in walk.items() if d not in roots}
    deleted = set(roots) | erased_parents | {d for d, row in todo.items() if row["erased"]}
    placed: set[str] = set()
    order: list[str] = []
    changed = True
    while changed:
        changed = False
        for d, row in todo.items():
            if d not in placed and all(p in placed or p not in todo for p in row["parents"]):
                placed.add(d)
                order.append(d)
                changed = True
    for d in order:
        if all(p in deleted for p in todo[d]["parents"]):
            deleted.add(d)
    return deleted, set(todo) - placed


def _random_walk(rng: random.Random) -> tuple[set[str], dict[str, WalkRow], set[str]]:
    n = rng.randint(1, 60)
    roots = {f"root{i}" for i in range(rng.randint(1, 3))}
    outside = [f"out{i}" for i in range(rng.randint(0, 4))]
    erased_outside = {o for o in outside if rng.random() < 0.5}
    names = [f"d{i}" for i in range(n)]
    walk: dict[str, WalkRow] = {}
    for i, d in enumerate(names):
        pool = [*roots, *names[:i], *outside]
        parents = sorted(set(rng.sample(pool, k=min(len(pool), rng.randint(1, 3)))))
        if not any(p in roots or p in names for p in parents):
            parents = sorted({*parents, rng.choice(sorted(roots))})
        walk[d] = WalkRow(id=d, kind="semantic", erased=rng.random() < 0.1, depth=1,
                          parents=parents, terms=())
    if n > 3 and rng.random() < 0.3:  # a cycle among descendants
        a, b = rng.sample(names, 2)
        walk[a]["parents"] = sorted({*walk[a]["parents"], b})
        walk[b]["parents"] = sorted({*walk[b]["parents"], a})
    if rng.random() < 0.3:  # a root that descends from another root
        root = sorted(roots)[0]
        walk[root] = WalkRow(id=root, kind="semantic", erased=False, depth=1,
                             parents=[rng.choice(names)], terms=())
    return roots, walk, erased_outside


@pytest.mark.parametrize("seed", range(300))
def test_dispositions_match_the_rule_on_random_dags(seed: int) -> None:
    rng = random.Random(seed)
    roots, walk, erased_parents = _random_walk(rng)
    expected = _by_the_rule(roots, walk, erased_parents)
    assert _lineage_dispositions(roots, walk, erased_parents) == expected
    assert _lineage_dispositions(roots, walk, erased_parents, random.Random(seed)) == expected


def test_a_chain_of_diamonds_is_deleted_and_a_surviving_parent_keeps_its_line() -> None:
    walk: dict[str, WalkRow] = {}
    above = "r"
    for i in range(200):
        for side in ("a", "b"):
            walk[f"{side}{i}"] = WalkRow(id=f"{side}{i}", kind="semantic", erased=False,
                                         depth=1, parents=[above], terms=())
        walk[f"t{i}"] = WalkRow(id=f"t{i}", kind="semantic", erased=False, depth=1,
                                parents=[f"a{i}", f"b{i}"], terms=())
        above = f"t{i}"
    walk["b100"]["parents"] = ["keeper", "t99"]
    deleted, cyclic = _lineage_dispositions({"r"}, walk, set())
    assert not cyclic
    assert "t99" in deleted and "a100" in deleted and "b100" not in deleted
    assert not any(f"t{i}" in deleted for i in range(100, 200))
    assert deleted == _by_the_rule({"r"}, walk, set())[0]


def test_deque_order_is_not_what_decides() -> None:
    """A node listed before its parent is decided after it."""
    walk = {"c": WalkRow(id="c", kind="semantic", erased=False, depth=2, parents=["b"],
                         terms=()),
            "b": WalkRow(id="b", kind="semantic", erased=False, depth=1, parents=["r"],
                         terms=())}
    assert _lineage_dispositions({"r"}, walk, set()) == ({"r", "b", "c"}, set())
    assert deque(walk) == deque(["c", "b"])
