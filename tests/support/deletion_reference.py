"""The entries a version 4 plan listed, made as the code before plans held columns made them
(one :class:`PlanEntry` per node, Kahn order over the walked rows, one sort of them all): the
reference the columnar planner's entries are compared with (tests/integration/deletion/
test_plan_columns.py, tests/unit/deletion/test_lineage_columns.py).

:func:`reference_lineage` is that planner's lineage part over walk rows; :func:`reference_entries`
the whole of it against a store, given the plan to compare (its roots, subject and terms).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.db.codec import scope_pairs
from graphmem.db.ops.deletion import DeletionOps
from graphmem.db.store import Neo4jStore
from graphmem.deletion.matcher import TermMatcher
from graphmem.deletion.models import DeletionPlan, Disposition, NodeType, PlanEntry
from graphmem.deletion.plan import _TEXT_KEYS, WalkRow, _held, id_list
from graphmem.deletion.redaction import INTENTION_TEXT_KEYS, narrowing
from graphmem.models import MemoryKind

ORDER = {"root": 0, "lineage": 1, "citation": 2, "mention": 3}


def reference_dispositions(roots: set[str], walk: Mapping[str, WalkRow],
                           erased_parents: set[str]) -> tuple[set[str], set[str]]:
    """(deleted ids, ids left in a lineage cycle) by Kahn order over the walked rows."""
    ids = [d for d in walk if d not in roots]
    index = {d: i for i, d in enumerate(ids)}
    gone_outside = set(roots) | erased_parents
    n = len(ids)
    pending, alive = [0] * n, [0] * n
    children: list[list[int]] = [[] for _ in range(n)]
    flags = [False] * n
    for i, d in enumerate(ids):
        row = walk[d]
        inside = outside_alive = 0
        for p in row["parents"]:
            j = index.get(p)
            if j is None:
                outside_alive += p not in gone_outside
            else:
                children[j].append(i)
                inside += 1
        pending[i], alive[i], flags[i] = inside, inside + outside_alive, bool(row["erased"])
    queue = deque(i for i in range(n) if pending[i] == 0)
    done = 0
    while queue:
        i = queue.popleft()
        done += 1
        if alive[i] == 0:
            flags[i] = True
        for c in children[i]:
            alive[c] -= flags[i]
            pending[c] -= 1
            if pending[c] == 0:
                queue.append(c)
    deleted = gone_outside | {d for d, flag in zip(ids, flags, strict=True) if flag}
    cyclic = {d for d, left in zip(ids, pending, strict=True) if left > 0} if done < n else set()
    return deleted, cyclic


def reference_entry(row: WalkRow, deleted: set[str], affected: set[str], cyclic: set[str],
                    erased_parents: set[str]) -> PlanEntry:
    """One lineage entry, as the version 4 planner made it."""
    rid, parents = row["id"], tuple(row["parents"])
    erased = tuple(p for p in parents if p in erased_parents)
    common: dict[str, Any] = {"id": rid, "kind": row["kind"], "via": "lineage",
                              "depth": row["depth"], "parents": parents,
                              "erased_parents": erased}
    if row["erased"]:
        return PlanEntry(**common, disposition=Disposition.DELETE, already_erased=True,
                         reason="already erased by an earlier request; stays a tombstone")
    if rid in deleted:
        already = " or already erased" if erased else ""
        return PlanEntry(**common, disposition=Disposition.DELETE,
                         reason=f"every parent is being deleted{already} ({id_list(parents)})")
    found = tuple(row["terms"])
    gone = [p for p in parents if p in deleted]
    kept = [p for p in parents if p not in affected and p not in deleted]
    if rid in cyclic:
        base = "its lineage forms a cycle; recompute it by hand"
    elif gone:
        base = f"derived from deleted {id_list(gone)}"
        base += (f"; {id_list(kept)} {'survives' if len(kept) == 1 else 'survive'}" if kept
                 else "; its other parents are recomputed")
    else:
        touched = [p for p in parents if p in affected]
        base = f"derived from records the deletion recomputes or redacts ({id_list(touched)})"
    if row["kind"] == MemoryKind.PROCEDURAL.value:
        return PlanEntry(**common, disposition=Disposition.QUARANTINE, terms=found,
                         reason=f"a procedure touched by deleted content: {base}")
    if found:
        return PlanEntry(**common, disposition=Disposition.REDACT, terms=found,
                         reason=f"holds a redaction term, redacted instead of recomputed: {base}")
    return PlanEntry(**common, disposition=Disposition.RECOMPUTE, reason=base)


def reference_lineage(roots: set[str], rows: Sequence[WalkRow], erased_parents: set[str]
                      ) -> tuple[list[PlanEntry], set[str]]:
    """The lineage entries below record ``roots`` (by depth, then id), and the deleted ids."""
    walk = {row["id"]: row for row in rows}
    deleted, cyclic = reference_dispositions(roots, walk, erased_parents)
    affected = roots | set(walk)
    entries = [reference_entry(row, deleted, affected, cyclic, erased_parents)
               for rid, row in walk.items() if rid not in roots]
    return sorted(entries, key=lambda e: (e.depth, e.id)), deleted


def _walk_rows(ops: DeletionOps, roots: Sequence[str], matcher: TermMatcher,
               pattern: str | None) -> tuple[list[WalkRow], Any, set[str]]:
    row = ops.walk(roots, pattern)
    found = {rid: held for rid, texts in zip(row.term_ids, row.term_texts, strict=True)
             if (held := _held(matcher, texts))}
    walked = set(row.ids)
    outside = {p for parents in row.parents for p in parents if p not in walked}
    stored, gone = ops.outside_parents(sorted(outside)) if outside else (set(), set())
    lost = outside - stored
    rows = [WalkRow(id=rid, kind=kind, erased=erased, depth=depth,
                    parents=sorted(p for p in parents if p not in lost), terms=found.get(rid, []))
            for rid, kind, erased, depth, parents in zip(
                row.ids, row.kinds, row.erased, row.depths, row.parents, strict=True)]
    return rows, row, gone.difference(roots)


def reference_entries(store: Neo4jStore, plan: DeletionPlan) -> tuple[PlanEntry, ...]:
    """The entries the version 4 planner made for ``plan``'s request (its roots or subject
    and its clear terms), against ``store`` as it is now, by the operator."""
    ops = DeletionOps(store)
    terms = plan.clear_terms
    matcher = TermMatcher.from_terms(terms)
    pattern = narrowing(matcher) if terms else None
    if plan.subject is not None:
        root_rows = ops.subject_roots(plan.subject["tenant"], scope_pairs(plan.subject))
        root_reason = "in the subject's scope"
    else:
        root_rows = [r for r in ops.roots_by_id(list(plan.roots)) if r.node is not None]
        root_reason = "named as a root of the request"
    entries: dict[str, PlanEntry] = {}
    for root in root_rows:
        node = NodeType(str(root.node))
        why = root_reason + ("; cancelled and erased" if node is NodeType.INTENTION else "")
        entries[root.id] = PlanEntry(id=root.id, node=node, kind=root.kind,
                                     disposition=Disposition.DELETE, reason=why, via="root")
    record_roots = {r.id for r in root_rows if r.node == NodeType.RECORD}
    rows, raw, erased_parents = _walk_rows(ops, sorted(record_roots), matcher, pattern)
    lineage, deleted = reference_lineage(record_roots, rows, erased_parents)
    entries.update((e.id, e) for e in lineage)
    cites: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, str] = {}
    for cited, citer, edge, kind, erased in zip(raw.cited, raw.citer, raw.edge, raw.citer_kind,
                                                raw.citer_erased, strict=True):
        if edge != "SELECTED":
            kinds[citer] = kind
            if cited in deleted and citer not in deleted and not erased:
                cites[citer].add(cited)
    for citer, cited_ids in sorted(cites.items()):
        if citer not in entries and kinds[citer] == MemoryKind.PROCEDURAL.value:
            entries[citer] = PlanEntry(
                id=citer, kind=kinds[citer], disposition=Disposition.QUARANTINE,
                reason=f"a procedure citing deleted evidence ({id_list(sorted(cited_ids))})",
                via="citation")
    if terms and plan.tenants:
        for scanned in ops.term_scan(list(plan.tenants), pattern, None):
            found = _held(matcher, scanned.texts, _TEXT_KEYS if scanned.node == "record"
                          else INTENTION_TEXT_KEYS)
            prior = entries.get(scanned.id)
            if not found:
                continue
            if prior is None:
                entries[scanned.id] = PlanEntry(
                    id=scanned.id, node=NodeType(scanned.node), kind=scanned.kind,
                    disposition=Disposition.REDACT, reason="holds a redaction term",
                    via="mention", terms=found)
            elif prior.disposition is not Disposition.DELETE and not prior.terms:
                entries[scanned.id] = prior.model_copy(update={"terms": found})
    return tuple(sorted(entries.values(), key=lambda e: (ORDER[e.via], e.depth, e.id)))
