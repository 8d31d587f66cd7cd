"""A deletion plan's lineage entries (docs/spec/deletion.md#dispositions), made as columns.

The walk's descendants are ordered by depth then id, each gets its disposition (DELETE when
every parent goes, by Kahn order, or in one pass in depth order when that order is already
topological, as in any walk without a cycle through same-depth or shallower parents), and its
fields are laid out as :class:`~graphmem.deletion.columns.PlanColumns` columns, with no
object per descendant (docs/performance.md#store-size-reads-stay-flat-from-104-to-106-records).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain, compress, islice
from operator import le, not_

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
            request erased. id_set: ``ids`` as a set, when the walk made one (see
            :meth:`inside`).
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
    id_set: AbstractSet[str] | None = field(default=None, repr=False, compare=False)

    def inside(self) -> AbstractSet[str]:
        """The walked ids as a set (a root below another root included): the one the walk
        made to find the parents outside it, so 10^6 ids are hashed once, or one made now."""
        return set(self.ids) if self.id_set is None else self.id_set


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


def _depth_order(ids: Sequence[str], depths: Sequence[int], skip: set[str]
                 ) -> tuple[list[int], list[int]]:
    """(positions of ``ids`` ordered by depth, then id; how many there are of each depth, in
    that order), those in ``skip`` left out: one sort by depth, then one small sort by id
    per depth, every comparison in C. A walk gives them by depth already (its breadth-first
    order): that is checked (in C) and the first sort left out then."""
    if all(map(le, depths, islice(depths, 1, None))):
        order = list(range(len(ids)))
    else:
        order = sorted(range(len(ids)), key=depths.__getitem__)
    if skip.intersection(ids):
        order = [i for i in order if ids[i] not in skip]
    sizes = Counter(map(depths.__getitem__, order))
    levels = [sizes[depth] for depth in sorted(sizes)]
    start = 0
    for size in levels:
        order[start:start + size] = sorted(order[start:start + size], key=ids.__getitem__)
        start += size
    return order, levels


def _in_order(ids: Sequence[str], parents: Sequence[tuple[str, ...]], erased: Sequence[bool],
              gone_outside: set[str], levels: Sequence[int]) -> set[str] | None:
    """The deleted ids when every one of ``ids`` (in this order, ``levels``: how many of
    each depth) comes after all of its parents inside the walk; None when one does not (a
    cycle, or a parent at its depth or deeper): Kahn order decides then.

    A depth's descendants whose parents all went before are decided at once (in C); the
    others one by one, each only once its parents inside the walk are decided, so the
    order decided in is a topological one and the result is Kahn order's.
    """
    inside: set[str] | None = None  # made only when a descendant is not decided at once
    deleted = set(gone_outside)
    kept: set[str] = set()
    start = 0
    for size in levels:
        stop = start + size
        if deleted.issuperset(chain.from_iterable(parents[start:stop])):
            deleted.update(ids[start:stop])  # the whole depth goes: one set test (in C)
            start = stop
            continue
        gone = list(map(deleted.issuperset, parents[start:stop]))
        deleted.update(compress(ids[start:stop], gone))
        if gone.count(False):
            for i in compress(range(start, stop), map(not_, gone)):
                if deleted.issuperset(parents[i]):
                    deleted.add(ids[i])
                    continue
                if inside is None:
                    inside = set(ids)
                for p in parents[i]:
                    if p in inside and p not in deleted and p not in kept:
                        return None
                (deleted if erased[i] else kept).add(ids[i])
        start = stop
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
                         erased: Sequence[bool], gone_outside: set[str],
                         levels: Sequence[int] = ()) -> tuple[set[str], set[str]]:
    """(deleted ids, ids left in a lineage cycle or below one) of the walked descendants
    ``ids`` (roots left out) with their ``parents`` and ``erased`` flags.

    A descendant is deleted when an earlier request erased it, or every parent is deleted:
    a parent outside the walk is when it is in ``gone_outside`` (the roots and the erased
    parents). Descendants in a cycle, or below one, are never decided by their parents.
    Given in depth order, as a plan orders them (``levels``: how many of each depth; none:
    one level), they are decided in one pass unless a parent comes later (then by Kahn order,
    with the same result).
    """
    deleted = _in_order(ids, parents, erased, gone_outside, levels or [len(ids)])
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
    order, levels = _depth_order(walked.ids, walked.depths, record_roots)
    ids = list(map(walked.ids.__getitem__, order))
    kinds = list(map(walked.kinds.__getitem__, order))
    erased = list(map(walked.erased.__getitem__, order))
    parents = list(map(walked.parents.__getitem__, order))
    erased_parents = set(walked.erased_parents)
    deleted, cyclic = lineage_dispositions(ids, parents, erased,
                                           record_roots | erased_parents, levels)
    n = len(ids)
    out = LineageColumns(
        ids=ids, kinds=kinds, dispositions=["D"] * n,
        depths=list(map(walked.depths.__getitem__, order)), parents=parents,
        erased_parents=[()] * n, terms=[()] * n, already_erased=["0"] * n,
        reasons=[None] * n, deleted=deleted)
    if not erased_parents and not any(erased) and deleted.issuperset(ids):
        return out  # every descendant goes, each for the reason its parents give
    affected = record_roots.union(walked.inside())
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
