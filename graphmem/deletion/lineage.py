"""A deletion plan's lineage entries (docs/spec/deletion.md#dispositions), made as columns.

The walk's descendants are ordered by depth then id, each gets its disposition (DELETE when
every parent goes, by Kahn order, or in one pass in depth order when that order is already
topological, as in any walk without a cycle through same-depth or shallower parents), and its
fields are laid out as :class:`~graphmem.deletion.columns.PlanColumns` columns, with no
object per descendant (docs/performance.md#store-size-reads-stay-flat-from-104-to-106-records).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.deletion.columns import id_list
from graphmem.models import MemoryKind

__all__ = ["LineageColumns", "WalkedColumns", "lineage_columns", "lineage_dispositions"]


@dataclass(frozen=True)
class WalkedColumns:
    """The descendants of one deletion walk as parallel lists.

    Attributes:
        ids, kinds, erased, depths: per descendant. parents: its DERIVED_FROM parents, sorted
            (parents that name no stored record left out). terms: the numbers of the
            redaction terms a descendant holds, by id (those that hold none are absent).
        citations: (cited id, citing id, citing kind, citing record erased) per EVIDENCED_BY
            edge into a root or descendant. selections: (record id, retrieval id) per
            SELECTED edge into one. erased_parents: parents outside the walk an earlier
            request erased.
    """

    ids: list[str]
    kinds: list[str]
    erased: list[bool]
    depths: list[int]
    parents: list[tuple[str, ...]]
    terms: Mapping[str, tuple[int, ...]]
    citations: list[tuple[str, str, str, bool]] = field(default_factory=list)
    selections: list[tuple[str, str]] = field(default_factory=list)
    erased_parents: frozenset[str] = frozenset()


@dataclass
class LineageColumns:
    """The lineage entries of a plan, ordered by depth then id, as columns (the fields of
    :class:`~graphmem.deletion.columns.PlanColumns` a lineage entry has; ``dispositions``
    and ``already_erased`` are one letter per entry). ``deleted``: every id the plan
    deletes or that is gone already (roots, erased parents, DELETE descendants)."""

    ids: list[str]
    kinds: list[str]
    dispositions: list[str]
    depths: list[int]
    parents: list[tuple[str, ...]]
    erased_parents: list[tuple[str, ...]]
    terms: list[tuple[int, ...]]
    already_erased: list[str]
    reasons: list[str | None]
    deleted: set[str]


def _depth_order(ids: Sequence[str], depths: Sequence[int], skip: set[str]) -> list[int]:
    """Positions of ``ids`` (those in ``skip`` left out) ordered by depth, then id: one
    small sort per depth."""
    by_depth: dict[int, list[str]] = defaultdict(list)
    for rid, depth in zip(ids, depths, strict=True):
        by_depth[depth].append(rid)
    ordered: list[str] = []
    for depth in sorted(by_depth):
        ordered.extend(sorted(by_depth[depth]))
    if skip.intersection(ids):
        ordered = [rid for rid in ordered if rid not in skip]
    index = dict(zip(ids, range(len(ids)), strict=True))
    return list(map(index.__getitem__, ordered))


def _in_order(ids: Sequence[str], parents: Sequence[tuple[str, ...]], erased: Sequence[bool],
              gone_outside: set[str]) -> set[str] | None:
    """The deleted ids when ``ids`` (in this order) come after all of their parents inside
    the walk, in one pass; None when one does not (a cycle, or a parent at its depth or
    deeper): Kahn order decides then."""
    inside = set(ids)
    deleted = set(gone_outside)
    kept: set[str] = set()
    for rid, ps, was_erased in zip(ids, parents, erased, strict=True):
        if deleted.issuperset(ps):  # every parent was decided before it, and goes
            deleted.add(rid)
            continue
        for p in ps:
            if p in inside and p not in deleted and p not in kept:
                return None
        (deleted if was_erased else kept).add(rid)
    return deleted


def _kahn(ids: Sequence[str], parents: Sequence[tuple[str, ...]], erased: Sequence[bool],
          gone_outside: set[str]) -> tuple[set[str], set[str]]:
    """(deleted ids, ids left in a lineage cycle or below one) by Kahn order."""
    index = {d: i for i, d in enumerate(ids)}
    n = len(ids)
    pending = [0] * n
    # alive[i]: parents of i not (yet) known deleted; i is deleted when it reaches 0
    alive = [0] * n
    children: list[list[int]] = [[] for _ in range(n)]
    deleted_flags = list(erased)
    for i, ps in enumerate(parents):
        inside = 0
        outside_alive = 0
        for p in ps:
            j = index.get(p)
            if j is None:
                if p not in gone_outside:
                    outside_alive += 1
            else:
                children[j].append(i)
                inside += 1
        pending[i] = inside
        alive[i] = inside + outside_alive
    queue = deque(i for i in range(n) if pending[i] == 0)
    done = 0
    while queue:
        i = queue.popleft()
        done += 1
        if alive[i] == 0:
            deleted_flags[i] = True
        is_deleted = deleted_flags[i]
        for c in children[i]:
            if is_deleted:
                alive[c] -= 1
            pending[c] -= 1
            if pending[c] == 0:
                queue.append(c)
    deleted = gone_outside | {d for d, flag in zip(ids, deleted_flags, strict=True) if flag}
    cyclic = ({d for d, left in zip(ids, pending, strict=True) if left > 0}
              if done < n else set())
    return deleted, cyclic


def lineage_dispositions(ids: Sequence[str], parents: Sequence[tuple[str, ...]],
                         erased: Sequence[bool], gone_outside: set[str]
                         ) -> tuple[set[str], set[str]]:
    """(deleted ids, ids left in a lineage cycle or below one) of the walked descendants
    ``ids`` (roots left out) with their ``parents`` and ``erased`` flags.

    A descendant is deleted when an earlier request erased it, or every parent is deleted:
    a parent outside the walk is when it is in ``gone_outside`` (the roots and the erased
    parents). Descendants in a cycle, or below one, are never decided by their parents.
    Given in depth order, as a plan orders them, they are decided in one pass unless a
    parent comes later (then by Kahn order, with the same result).
    """
    deleted = _in_order(ids, parents, erased, gone_outside)
    if deleted is not None:
        return deleted, set()
    return _kahn(ids, parents, erased, gone_outside)


def _other_entry(rid: str, kind: str, parents: tuple[str, ...], found: tuple[int, ...],
                 deleted: set[str], affected: set[str], cyclic: set[str]
                 ) -> tuple[str, str, tuple[int, ...]]:
    """(disposition letter, reason, terms) of a descendant that survives."""
    gone = [p for p in parents if p in deleted]
    kept = [p for p in parents if p not in affected and p not in deleted]
    if rid in cyclic:
        base = "its lineage forms a cycle; recompute it by hand"
    elif gone:
        base = f"derived from deleted {id_list(gone)}"
        if kept:
            base += f"; {id_list(kept)} {'survives' if len(kept) == 1 else 'survive'}"
        else:
            base += "; its other parents are recomputed"
    else:
        touched = [p for p in parents if p in affected]
        base = f"derived from records the deletion recomputes or redacts ({id_list(touched)})"
    if kind == MemoryKind.PROCEDURAL.value:
        return "Q", f"a procedure touched by deleted content: {base}", found
    if found:
        return "R", f"holds a redaction term, redacted instead of recomputed: {base}", found
    return "C", base, ()


def lineage_columns(walked: WalkedColumns, record_roots: set[str]) -> LineageColumns:
    """The lineage entries of the walked descendants below ``record_roots``
    (docs/spec/deletion.md#dispositions), ordered by depth then id.

    A descendant an earlier request erased stays a tombstone (DELETE); one whose parents
    all go is DELETE (its reason derived: ``None``); the others are QUARANTINE (a
    procedure), REDACT (holds a term) or RECOMPUTE, with a reason naming the parents.
    """
    order = _depth_order(walked.ids, walked.depths, record_roots)
    ids = list(map(walked.ids.__getitem__, order))
    kinds = list(map(walked.kinds.__getitem__, order))
    erased = list(map(walked.erased.__getitem__, order))
    parents = list(map(walked.parents.__getitem__, order))
    erased_parents = set(walked.erased_parents)
    deleted, cyclic = lineage_dispositions(ids, parents, erased,
                                           record_roots | erased_parents)
    affected = record_roots.union(walked.ids)
    n = len(ids)
    out = LineageColumns(
        ids=ids, kinds=kinds, dispositions=["D"] * n,
        depths=list(map(walked.depths.__getitem__, order)), parents=parents,
        erased_parents=[()] * n, terms=[()] * n, already_erased=["0"] * n,
        reasons=[None] * n, deleted=deleted)
    for i, (rid, ps, was_erased) in enumerate(zip(ids, parents, erased, strict=True)):
        # most walks meet no parent an earlier request erased: skip the per-parent test then
        if erased_parents:
            out.erased_parents[i] = tuple(p for p in ps if p in erased_parents)
        if was_erased:
            out.already_erased[i] = "1"
            out.reasons[i] = "already erased by an earlier request; stays a tombstone"
        elif rid not in deleted:
            letter, reason, found = _other_entry(rid, kinds[i], ps,
                                                 walked.terms.get(rid, ()), deleted,
                                                 affected, cyclic)
            out.dispositions[i], out.reasons[i], out.terms[i] = letter, reason, found
    return out
