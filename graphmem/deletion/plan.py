"""Deletion walks (SPEC section 7): plan a deletion, review it, apply it, prove it.

A privacy request names roots (record or intention ids) or a subject scope (every record and
intention whose scope holds all of the subject's key/values). Planning walks ``DERIVED_FROM``
from the roots in one Cypher query that Neo4j runs as a pruning breadth-first expansion
(``cypher/deletion_walk.cypher``), so its cost follows the number of descendants, not the
number of paths, and gives every node a :class:`Disposition`:

==========  ===================================================================
DELETE      a root, or a descendant all of whose parents are being deleted
RECOMPUTE   a descendant with a surviving parent, or derived from a RECOMPUTE one
REDACT      would be RECOMPUTE (or is untouched by lineage) and holds a term the
            request names: the term is replaced in place and the record stays live
QUARANTINE  a procedure touched by deleted content (derived from it or citing it)
==========  ===================================================================

The plan is a pydantic model with a digest, saved and loaded as JSON for review. Applying it
erases DELETE records to content-free tombstones, redacts, marks the rest, and keeps the
request in the graph::

    (:DeletionRequest {id, state, digest, requested_by, reason, ...})
        -[:DISPOSED {disposition, at, changed, root}]->(:Record | :Intention)

A plan that fits one batch is applied in one transaction. A larger one is applied in batches,
each its own transaction; every change is guarded by the absence of its ``DISPOSED`` edge, so
an apply that crashed between batches resumes when the same plan is applied again, and an
applied plan applied again changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graphmem.db.store import (
    Neo4jStore,
    coerce_record,
    paused_gc,
    record_from_props,
    record_props,
    require_aware,
    scope_pairs,
)
from graphmem.deletion.models import (
    Citation,
    DeletionPlan,
    DeletionReport,
    DeletionRequestInfo,
    Disposition,
    NodeType,
    PlanEntry,
    ReportEntry,
    RetrievalHit,
    Verification,
    counts_of,
)
from graphmem.errors import (
    DanglingReferenceError,
    DeletionError,
    LineageCycleError,
    PolicyError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import MemoryKind, MemoryRecord

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "REDACTION",
    "Citation",
    "DeletionPlan",
    "DeletionReport",
    "DeletionRequestInfo",
    "Disposition",
    "NodeType",
    "PlanEntry",
    "ProgressCallback",
    "ReportEntry",
    "RetrievalHit",
    "Verification",
    "apply_deletion",
    "plan_deletion",
    "recompute",
    "verify_deletion",
]

DEFAULT_BATCH_SIZE = 5000
REDACTION = "[REDACTED]"

ProgressCallback = Callable[[int, int], None]
"""Called after each committed batch with (entries applied so far, entries in the plan)."""


# ------------------------------------------------------------------------------ planning


def _clean_terms(terms: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for term in terms:
        if not isinstance(term, str) or not term.strip():
            raise ValidationError("redaction terms must be non-empty strings")
        low = term.strip().lower()
        if low not in out:
            out.append(low)
    return tuple(out)


def _check_subject(subject: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(subject, Mapping) or not subject.get("tenant"):
        raise ValidationError("a deletion subject must be a scope that contains 'tenant'")
    for key, val in subject.items():
        if not isinstance(key, str) or not key or not isinstance(val, str) or not val:
            raise ValidationError("subject keys and values must be non-empty strings")
    return dict(sorted(subject.items()))


def _names(ids: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


@dataclass(frozen=True)
class Walk:
    """What the one deletion walk (``cypher/deletion_walk.cypher``) returns.

    Attributes:
        rows: one dict per descendant: ``id``, ``kind``, ``depth`` (shortest
            distance below a root), ``erased``, ``parents`` (DERIVED_FROM parent ids,
            sorted) and ``terms`` (the redaction terms it holds).
        citations: (cited id, citing id, citing kind, citing record erased) for every
            EVIDENCED_BY edge into a root or a descendant.
        selections: (record id, retrieval id) for every SELECTED edge into one of them.
    """

    rows: list[dict[str, Any]]
    citations: list[tuple[str, str, str, bool]]
    selections: list[tuple[str, str]]


def walk(store: Neo4jStore, roots: Sequence[str], terms: Sequence[str] = ()) -> Walk:
    """Every DERIVED_FROM descendant of ``roots`` from one pruning-BFS Cypher walk, with the
    citations and retrieval selections of the walked records.

    Args:
        store: the store. roots: record ids (unknown ids are ignored).
        terms: lower-cased redaction terms to look for.
    """
    with paused_gc():
        row = store.read_values("deletion_walk", roots=list(roots), terms=list(terms))[0]
        found = dict(zip(row["term_ids"], row["term_found"], strict=True))
        rows = [
            {"id": rid, "kind": kind, "erased": erased, "depth": depth,
             "parents": sorted(parents), "terms": found.get(rid, [])}
            for rid, kind, erased, depth, parents in zip(
                row["ids"], row["kinds"], row["erased"], row["depths"], row["parents"], strict=True)
        ]
        citations: list[tuple[str, str, str, bool]] = []
        selections: list[tuple[str, str]] = []
        for cited, citer, edge, kind, erased in zip(row["cited"], row["citer"], row["edge"],
                                                    row["citer_kind"], row["citer_erased"],
                                                    strict=True):
            if edge == "SELECTED":
                selections.append((cited, citer))
            else:
                citations.append((cited, citer, kind, erased))
        return Walk(rows=rows, citations=citations, selections=selections)


def walk_descendants(store: Neo4jStore, roots: Sequence[str], terms: Sequence[str] = ()
                     ) -> list[dict[str, Any]]:
    """The descendant rows of :func:`walk` (see :class:`Walk`)."""
    return walk(store, roots, terms).rows


def _erased_parents(store: Neo4jStore, roots: set[str], walk: Mapping[str, dict[str, Any]]
                    ) -> set[str]:
    """Parents outside the walk that an earlier request erased (nothing of them survives)."""
    outside = {p for row in walk.values() for p in row["parents"]} - roots - set(walk)
    if not outside:
        return set()
    return set(store.read("deletion_erased_among", ids=sorted(outside))[0]["erased"])


def _lineage_dispositions(
    roots: set[str], walk: Mapping[str, dict[str, Any]], erased_parents: set[str]
) -> tuple[set[str], set[str]]:
    """(deleted ids, ids left in a lineage cycle) by Kahn order over the walked descendants.

    A parent or descendant an earlier request erased counts as deleted: nothing of it
    survives.
    """
    todo = {d: row for d, row in walk.items() if d not in roots}
    pending = {d: sum(1 for p in row["parents"] if p in todo) for d, row in todo.items()}
    children: dict[str, list[str]] = defaultdict(list)
    for d, row in todo.items():
        for p in row["parents"]:
            if p in todo:
                children[p].append(d)
    deleted = set(roots) | erased_parents | {d for d, row in todo.items() if row["erased"]}
    queue = deque(d for d, n in pending.items() if n == 0)
    done = 0
    while queue:
        d = queue.popleft()
        done += 1
        if all(p in deleted for p in todo[d]["parents"]):
            deleted.add(d)
        for c in children.get(d, ()):
            pending[c] -= 1
            if pending[c] == 0:
                queue.append(c)
    cyclic = {d for d, n in pending.items() if n > 0} if done < len(todo) else set()
    return deleted, cyclic


def plan_deletion(
    store: Neo4jStore,
    *,
    roots: Sequence[str] | None = None,
    subject: Mapping[str, str] | None = None,
    redact_terms: Iterable[str] = (),
    requested_by: str,
    reason: str,
    request_id: str | None = None,
) -> DeletionPlan:
    """Plan a deletion (SPEC section 7). Reads only; nothing changes until it is applied.

    Args:
        store: the store.
        roots: record or intention ids to erase; or
        subject: a scope with ``tenant`` (e.g. ``{"tenant": "acme", "user": "u-17"}``): every
            record and intention whose scope holds all of its key/values is a root.
            Exactly one of ``roots`` and ``subject`` must be given.
        redact_terms: strings to redact wherever they survive (case-insensitive), in the
            descendants and in any other record, intention or retrieval query of the tenants.
        requested_by, reason: who asks and why (kept on the request for audit).
        request_id: the request's id (default: a fresh ``del-<uuid>``).

    Returns:
        The plan, with a digest; roots first, then descendants by depth, then the rest.

    Raises:
        ValidationError: both or neither of roots/subject, a subject without tenant, empty
            terms, empty requested_by/reason.
        DeletionError: a named root does not exist.
    """
    if (roots is None) == (subject is None):
        raise ValidationError("plan a deletion from exactly one of roots= or subject=")
    if not requested_by or not reason:
        raise ValidationError("a deletion request needs non-empty requested_by and reason")
    terms = _clean_terms(redact_terms)
    subject_scope: dict[str, str] | None = None
    if subject is not None:
        subject_scope = _check_subject(subject)
        root_rows = store.read("deletion_subject_roots", tenant=subject_scope["tenant"],
                               subject_pairs=scope_pairs(subject_scope))
        root_reason = "in the subject's scope"
    else:
        assert roots is not None
        wanted = list(dict.fromkeys(roots))
        if not wanted or not all(isinstance(r, str) and r for r in wanted):
            raise ValidationError("roots must be a non-empty list of ids")
        root_rows = store.read("deletion_roots_by_id", ids=wanted)
        unknown = [row["id"] for row in root_rows if row["node"] is None]
        if unknown:
            raise DeletionError("these deletion roots name no record or intention",
                                record_ids=unknown)
        root_reason = "named as a root of the request"

    entries: dict[str, PlanEntry] = {}
    for row in root_rows:
        node = NodeType(row["node"])
        why = root_reason + ("; cancelled and erased" if node is NodeType.INTENTION else "")
        entries[row["id"]] = PlanEntry(id=row["id"], node=node, kind=row["kind"],
                                       disposition=Disposition.DELETE, reason=why, via="root")
    record_roots = {row["id"] for row in root_rows if row["node"] == NodeType.RECORD}
    tenants = sorted({row["tenant"] for row in root_rows if row["tenant"]}
                     | ({subject_scope["tenant"]} if subject_scope else set()))

    walked = walk(store, sorted(record_roots), terms)
    descendants = {row["id"]: row for row in walked.rows}
    erased_parents = _erased_parents(store, record_roots, descendants)
    deleted, cyclic = _lineage_dispositions(record_roots, descendants, erased_parents)
    affected = record_roots | set(descendants)
    for rid, row in descendants.items():
        if rid not in record_roots:
            entries[rid] = _lineage_entry(row, deleted, affected, cyclic, erased_parents)

    citations = _citations(walked, deleted)
    citer_kinds = {citer: kind for _, citer, kind, _ in walked.citations}
    for c in citations:
        kind = citer_kinds[c.record_id]
        if c.record_id not in entries and kind == MemoryKind.PROCEDURAL.value:
            entries[c.record_id] = PlanEntry(
                id=c.record_id, kind=kind, disposition=Disposition.QUARANTINE,
                reason=f"a procedure citing deleted evidence ({_names(list(c.cites))})",
                via="citation")

    if terms and tenants:
        for row in store.read("deletion_term_scan", tenants=tenants, terms=list(terms)):
            found = tuple(row["terms"])
            prior = entries.get(row["id"])
            if prior is None:
                entries[row["id"]] = PlanEntry(
                    id=row["id"], node=NodeType(row["node"]), kind=row["kind"],
                    disposition=Disposition.REDACT, reason="holds a redaction term",
                    via="mention", terms=found)
            elif prior.disposition is not Disposition.DELETE and not prior.terms:
                entries[row["id"]] = prior.model_copy(update={"terms": found})

    selected: dict[str, set[str]] = defaultdict(set)
    for record_id, retrieval_id in walked.selections:
        if record_id in deleted:
            selected[retrieval_id].add(record_id)
    holding: set[str] = set()
    if terms and tenants:
        holding = set(store.read_values("deletion_retrievals", terms=list(terms),
                                        tenants=tenants)[0]["ids"])
    hits = [RetrievalHit(retrieval_id=q, selected_ids=tuple(sorted(selected.get(q, ()))),
                         query_holds_terms=q in holding)
            for q in sorted(set(selected) | holding)]
    order = {"root": 0, "lineage": 1, "citation": 2, "mention": 3}
    ordered = sorted(entries.values(), key=lambda e: (order[e.via], e.depth, e.id))
    plan = DeletionPlan(
        request_id=request_id or f"del-{uuid.uuid4().hex}",
        requested_by=requested_by, reason=reason, subject=subject_scope,
        roots=tuple(e.id for e in ordered if e.via == "root"), redact_terms=terms,
        tenants=tuple(tenants), planned_at=store.clock(), entries=tuple(ordered),
        dangling_citations=tuple(citations), retrievals=tuple(hits),
    )
    return plan.model_copy(update={"digest": plan.compute_digest()})


def _citations(walked: Walk, deleted: set[str]) -> list[Citation]:
    """Records that survive (not deleted, not erased) but cite deleted ones as evidence."""
    cites: dict[str, set[str]] = defaultdict(set)
    for cited, citer, _, citer_erased in walked.citations:
        if cited in deleted and citer not in deleted and not citer_erased:
            cites[citer].add(cited)
    return [Citation(record_id=c, cites=tuple(sorted(ids))) for c, ids in sorted(cites.items())]


def _lineage_entry(row: dict[str, Any], deleted: set[str], affected: set[str],
                   cyclic: set[str], erased_parents: set[str]) -> PlanEntry:
    rid, parents = row["id"], list(row["parents"])
    found = tuple(row["terms"])
    common = {"id": rid, "kind": row["kind"], "via": "lineage", "depth": row["depth"],
              "parents": tuple(parents),
              "erased_parents": tuple(p for p in parents if p in erased_parents)}
    if row["erased"]:
        return PlanEntry(**common, disposition=Disposition.DELETE, already_erased=True,
                         reason="already erased by an earlier request; stays a tombstone")
    if rid in deleted:
        already = " or already erased" if common["erased_parents"] else ""
        return PlanEntry(**common, disposition=Disposition.DELETE,
                         reason=f"every parent is being deleted{already} ({_names(parents)})")
    gone = [p for p in parents if p in deleted]
    kept = [p for p in parents if p not in affected and p not in deleted]
    if rid in cyclic:
        base = "its lineage forms a cycle; recompute it by hand"
    elif gone:
        base = f"derived from deleted {_names(gone)}"
        if kept:
            base += f"; {_names(kept)} {'survives' if len(kept) == 1 else 'survive'}"
        else:
            base += "; its other parents are recomputed"
    else:
        touched = [p for p in parents if p in affected]
        base = f"derived from records the deletion recomputes or redacts ({_names(touched)})"
    if row["kind"] == MemoryKind.PROCEDURAL.value:
        return PlanEntry(**common, disposition=Disposition.QUARANTINE, terms=found,
                         reason=f"a procedure touched by deleted content: {base}")
    if found:
        return PlanEntry(**common, disposition=Disposition.REDACT, terms=found,
                         reason=f"holds a redaction term, redacted instead of recomputed: {base}")
    return PlanEntry(**common, disposition=Disposition.RECOMPUTE, reason=base)


# ------------------------------------------------------------------------------ applying


def _pattern(terms: Sequence[str]) -> re.Pattern[str]:
    alternatives = sorted(terms, key=len, reverse=True)
    return re.compile("|".join(re.escape(t) for t in alternatives), re.IGNORECASE)


def _redact_json(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(REDACTION, value)
    if isinstance(value, list):
        return [_redact_json(v, pattern) for v in value]
    if isinstance(value, dict):
        return {k: _redact_json(v, pattern) for k, v in value.items()}
    return value


def redact_record(record: MemoryRecord, terms: Sequence[str]) -> MemoryRecord:
    """``record`` with every term (case-insensitive) replaced by ``[REDACTED]`` in its content,
    asserted value, provenance values and metadata strings."""
    pattern = _pattern(terms)
    data = record.model_dump()
    data["content"] = pattern.sub(REDACTION, record.content)
    if record.asserted_value is not None:
        data["asserted_value"] = pattern.sub(REDACTION, record.asserted_value)
    data["provenance"] = {k: pattern.sub(REDACTION, v) for k, v in record.provenance.items()}
    data["metadata"] = _redact_json(record.metadata, pattern)
    return coerce_record(data)


_REDACTED_FIELDS = ("content", "asserted_value", "provenance_json", "source", "metadata_json",
                    "fingerprint", "dedup_key")


def _request_props(plan: DeletionPlan, at: datetime) -> dict[str, Any]:
    return {
        "state": "applying",
        "version": plan.version,
        "digest": plan.digest,
        "requested_by": plan.requested_by,
        "reason": plan.reason,
        "subject_json": json.dumps(plan.subject, sort_keys=True) if plan.subject else None,
        "tenants": list(plan.tenants),
        "redact_term_count": len(plan.redact_terms),
        "redact_term_digests": [hashlib.sha256(t.encode()).hexdigest()
                                for t in plan.redact_terms],
        "planned_at": plan.planned_at,
        "started_at": at,
        "planned_count": len(plan.entries),
        "counts_json": json.dumps(plan.counts(), sort_keys=True),
        "dangling_json": json.dumps([c.model_dump() for c in plan.dangling_citations]),
        "retrievals_json": json.dumps([h.model_dump() for h in plan.retrievals]),
    }


def _check_stale(store: Neo4jStore, plan: DeletionPlan) -> None:
    """Raise DeletionError when the graph no longer matches the plan's structure.

    Tombstones keep their scope and lineage edges, so a plan that was partly applied still
    matches; new records in the subject's scope, new descendants, new citing procedures or
    vanished nodes do not.
    """
    planned = {e.id: e for e in plan.entries}
    if plan.subject is not None:
        rows = store.read("deletion_subject_roots", tenant=plan.subject["tenant"],
                          subject_pairs=scope_pairs(plan.subject))
        now_roots = {row["id"] for row in rows}
    else:
        rows = store.read("deletion_roots_by_id", ids=list(plan.roots))
        now_roots = {row["id"] for row in rows if row["node"] is not None}
    if now_roots != set(plan.roots):
        changed = sorted(now_roots ^ set(plan.roots))
        raise DeletionError("stale plan: the roots changed since planning; plan again",
                            record_ids=changed[:50])
    record_roots = [e.id for e in plan.entries if e.via == "root" and e.node is NodeType.RECORD]
    walked = walk(store, record_roots)
    now_lineage = {row["id"] for row in walked.rows} - set(plan.roots)
    lineage = {e.id for e in plan.entries if e.via == "lineage"}
    if now_lineage != lineage:
        changed = sorted(now_lineage ^ lineage)
        raise DeletionError("stale plan: the descendants changed since planning; plan again",
                            record_ids=changed[:50])
    deleted = set(plan.ids(Disposition.DELETE))
    for cited, citer, kind, citer_erased in walked.citations:
        if (cited in deleted and citer not in planned and not citer_erased
                and kind == MemoryKind.PROCEDURAL.value):
            raise DeletionError("stale plan: a procedure now cites deleted evidence; plan again",
                                record_ids=[citer])


def _apply_batch(store: Neo4jStore, tx: ManagedTransaction, plan: DeletionPlan,
                 batch: Sequence[PlanEntry], at: datetime) -> None:
    rid = plan.request_id
    lock = store.run(tx, "deletion_request_lock", id=rid)
    if not lock or lock[0]["digest"] != plan.digest:
        raise DeletionError("the deletion request vanished or changed during the apply",
                            record_ids=[rid])
    params = {"request_id": rid, "at": at, "reason": plan.reason}
    erase = [{"id": e.id, "root": e.via == "root"} for e in batch
             if e.disposition is Disposition.DELETE and e.node is NodeType.RECORD]
    if erase:
        store.run(tx, "deletion_erase_records", rows=erase, **params)
    erase_intents = [{"id": e.id, "root": e.via == "root"} for e in batch
                     if e.disposition is Disposition.DELETE and e.node is NodeType.INTENTION]
    if erase_intents:
        store.run(tx, "deletion_erase_intentions", rows=erase_intents, **params)

    live = [e for e in batch if e.disposition is not Disposition.DELETE]
    terms = plan.redact_terms
    redact_records = [e.id for e in live if e.terms and e.node is NodeType.RECORD]
    if redact_records and terms:
        rows = []
        for row in store.run(tx, "records_get", ids=redact_records):
            props = row["record"]
            if props.get("erased"):
                continue
            new = record_props(redact_record(record_from_props(props), terms))
            rows.append({"id": props["id"], **{k: new[k] for k in _REDACTED_FIELDS}})
        if rows:
            store.run(tx, "deletion_redact_records", rows=rows, request_id=rid, at=at)
    redact_intents = [e.id for e in live if e.terms and e.node is NodeType.INTENTION]
    if redact_intents and terms:
        pattern = _pattern(terms)
        rows = [{"id": row["id"], "action": pattern.sub(REDACTION, row["action"] or "")}
                for row in store.run(tx, "deletion_intentions_get", ids=redact_intents)]
        if rows:
            store.run(tx, "deletion_redact_intentions", rows=rows, request_id=rid, at=at)
    if live:
        store.run(tx, "deletion_mark", rows=[{"id": e.id, "disposition": e.disposition.value}
                                             for e in live], request_id=rid, at=at)


def _finish(store: Neo4jStore, tx: ManagedTransaction, plan: DeletionPlan, at: datetime
            ) -> None:
    targets = [h.retrieval_id for h in plan.retrievals if h.query_holds_terms]
    if targets and plan.redact_terms:
        pattern = _pattern(plan.redact_terms)
        rows = [{"id": row["id"], "query": pattern.sub(REDACTION, row["query"] or "")}
                for row in store.run(tx, "deletion_retrieval_queries", ids=targets)]
        store.run(tx, "deletion_redact_retrievals", rows=rows, request_id=plan.request_id,
                  at=at)
    store.run(tx, "deletion_request_finish", id=plan.request_id, at=at)


def apply_deletion(
    store: Neo4jStore,
    plan: DeletionPlan,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: ProgressCallback | None = None,
    check_stale: bool = True,
) -> DeletionReport:
    """Apply a deletion plan (SPEC section 7) and return the verified audit report.

    DELETE records become content-free tombstones (``explain`` says ERASED; ``get`` raises
    RecordNotFoundError); DELETE intentions are cancelled and erased; REDACT replaces the
    plan's terms in place; RECOMPUTE sets ``pending_recompute`` (ineligible until
    :func:`recompute`); QUARANTINE sets ``quarantined``. Non-DELETE entries that hold terms
    are redacted too, and so are retrieval queries that hold them.

    A plan with at most ``batch_size`` entries is applied in one transaction. A larger one
    runs as a begin transaction, one transaction per ``batch_size`` entries, and a finish
    transaction; if the process dies in between, applying the same plan again resumes where
    it stopped. Applying an applied plan again changes nothing and returns its report.

    Args:
        store: the store. plan: a plan from :func:`plan_deletion` or
            :meth:`DeletionPlan.from_json`.
        batch_size: entries per transaction (>= 1).
        progress: called after each committed batch with (entries applied, total entries).
        check_stale: first re-check the plan against the graph (roots, descendants,
            citing procedures); costs one more walk.

    Raises:
        DeletionError: the plan's digest does not match its content; the request id is
            already used by a different plan; the plan is stale (the graph changed since
            planning: plan again).
        ValidationError: ``batch_size`` < 1.
    """
    if batch_size < 1:
        raise ValidationError("batch_size must be >= 1")
    if plan.digest != plan.compute_digest():
        raise DeletionError("the plan's digest does not match its content; plan again",
                            record_ids=[plan.request_id])
    rid = plan.request_id
    existing = store.read("deletion_request_get", id=rid)
    if existing:
        stored = existing[0]["request"]
        if stored.get("digest") != plan.digest:
            raise DeletionError("this request id belongs to a different plan", record_ids=[rid])
        if stored.get("state") == "applied":
            return report(store, rid, redact_terms=plan.redact_terms)
    if check_stale:
        _check_stale(store, plan)
    at = store.clock()
    total = len(plan.entries)

    def begin(tx: ManagedTransaction) -> None:
        rows = store.run(tx, "deletion_request_begin", id=rid, props=_request_props(plan, at))
        if rows[0]["digest"] != plan.digest:
            raise DeletionError("this request id belongs to a different plan",
                                record_ids=[rid])

    if total <= batch_size:
        def atomic(tx: ManagedTransaction) -> None:
            begin(tx)
            _apply_batch(store, tx, plan, plan.entries, at)
            _finish(store, tx, plan, at)

        store.transaction("deletion_apply", atomic)
        if progress is not None:
            progress(total, total)
    else:
        store.transaction("deletion_begin", begin)
        for start in range(0, total, batch_size):
            batch = plan.entries[start:start + batch_size]

            def one(tx: ManagedTransaction, batch: Sequence[PlanEntry] = batch) -> None:
                _apply_batch(store, tx, plan, batch, at)

            store.transaction("deletion_batch", one)
            if progress is not None:
                progress(min(start + batch_size, total), total)
        store.transaction("deletion_finish", lambda tx: _finish(store, tx, plan, at))
    return report(store, rid, redact_terms=plan.redact_terms)


# ------------------------------------------------------------------------------ verifying


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _iso(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def verify(store: Neo4jStore, request_id: str, *, redact_terms: Iterable[str] = ()
           ) -> tuple[dict[str, Any], Verification]:
    """Run the verification queries for a request; returns (stored request props, result).

    Raises:
        DeletionError: no deletion request with this id.
    """
    rows = store.read("deletion_verify", id=request_id)
    if not rows:
        raise DeletionError(f"no deletion request {request_id!r}", record_ids=[request_id])
    row = rows[0]
    req = {k: _native(v) for k, v in row["request"].items()}
    terms = _clean_terms(redact_terms)
    found: dict[str, list[str]] = {}
    if terms:
        for trow in store.read("deletion_verify_terms", tenants=list(req.get("tenants") or []),
                               terms=list(terms)):
            found[trow["place"]] = sorted(trow["ids"])
    planned = int(req.get("planned_count") or 0)
    result = {
        "deleted_with_content": tuple(sorted(row["deleted_with_content"])),
        "intentions_not_cancelled": tuple(sorted(row["intentions_not_cancelled"])),
        "recompute_not_pending": tuple(sorted(row["recompute_not_pending"])),
        "retrievable_with_terms": tuple(found.get("retrievable", ())),
        "intentions_with_terms": tuple(found.get("intention", ())),
        "retrievals_with_terms": tuple(found.get("retrieval", ())),
    }
    problems = [f"{len(ids)} {name.replace('_', ' ')}: {_names(list(ids))}"
                for name, ids in result.items() if ids]
    if req.get("state") != "applied":
        problems.insert(0, f"request state is {req.get('state')!r}, not 'applied'")
    if row["disposed"] != planned:
        problems.insert(0, f"{row['disposed']} of {planned} planned nodes disposed of")
    return req, Verification(
        passed=not problems, checked_at=store.clock(), state=str(req.get("state")),
        planned=planned, disposed=row["disposed"],
        quarantine_released=tuple(sorted(row["quarantine_released"])),
        terms_checked=len(terms), stored_with_terms=tuple(found.get("stored", ())),
        problems=tuple(problems), **result,
    )


def report(store: Neo4jStore, request_id: str, *, redact_terms: Iterable[str] = ()
           ) -> DeletionReport:
    """The audit report of a request, rebuilt from the graph, with a fresh verification.

    Args:
        store: the store. request_id: the request. redact_terms: the request's terms, when
            known, so the verification also proves they are gone (the graph keeps only their
            count and digests).

    Raises:
        DeletionError: no deletion request with this id.
    """
    req, verification = verify(store, request_id, redact_terms=redact_terms)
    row = store.read_values("deletion_request_entries", id=request_id)[0]
    entries = tuple(
        ReportEntry(id=rid, node=NodeType(node), kind=kind or None,
                    disposition=Disposition(disposition), at=_iso(at), changed=changed,
                    root=root)
        for rid, node, kind, disposition, at, changed, root in zip(
            row["ids"], row["nodes"], row["kinds"], row["dispositions"], row["ats"],
            row["changed"], row["roots"], strict=True)
    )
    subject = json.loads(req["subject_json"]) if req.get("subject_json") else None
    info = DeletionRequestInfo(
        id=request_id, state=str(req.get("state")), requested_by=req.get("requested_by", ""),
        reason=req.get("reason", ""), subject=subject, tenants=tuple(req.get("tenants") or ()),
        redact_term_count=int(req.get("redact_term_count") or 0),
        planned_at=req.get("planned_at"), started_at=req.get("started_at"),
        finished_at=req.get("finished_at"), digest=req.get("digest", ""),
    )
    return DeletionReport(
        request=info, entries=entries, counts=counts_of(e.disposition for e in entries),
        changed=sum(1 for e in entries if e.changed),
        dangling_citations=tuple(Citation.model_validate(c)
                                 for c in json.loads(req.get("dangling_json") or "[]")),
        retrievals=tuple(RetrievalHit.model_validate(h)
                         for h in json.loads(req.get("retrievals_json") or "[]")),
        verification=verification, generated_at=store.clock(),
    )


verify_deletion = report


# ------------------------------------------------------------------------------ recomputing


def recompute(
    store: Neo4jStore,
    record_id: str,
    content: str,
    *,
    by: str,
    reason: str,
    derived_from: Sequence[str] | None = None,
    evidence_ids: Sequence[str] | None = None,
    asserted_value: str | None = None,
    provenance: Mapping[str, str] | None = None,
    at: datetime | None = None,
) -> MemoryRecord:
    """Return a RECOMPUTE record to service with new content and fresh lineage (SPEC 7).

    Args:
        store: the store. record_id: a record a deletion marked RECOMPUTE.
        content: the recomputed content (from what survives).
        by, reason: who recomputed it and why (logged as a ``recompute`` transition).
        derived_from, evidence_ids: the new lineage; default: the current parents and
            evidence minus erased ones. Each id must exist, not be erased, and (for
            derived_from) not descend from the record.
        asserted_value: the new asserted value (default: keep the current one).
        provenance: new provenance (default: keep the current one).
        at: aware UTC time of the recompute (default: the store clock).

    Returns:
        The record as stored now (eligible again unless otherwise blocked).

    Raises:
        RecordNotFoundError: no such record, or it was erased.
        PolicyError: the record is not pending recompute.
        DanglingReferenceError: a new parent or evidence id is missing or erased.
        LineageCycleError: a new parent descends from the record.
        ValidationError and subclasses: empty by/reason, invalid content, naive ``at``.
    """
    if not by or not reason:
        raise ValidationError("recompute needs non-empty 'by' and 'reason'",
                              record_ids=[record_id])
    when = require_aware(at, "at") if at is not None else store.clock()

    def work(tx: ManagedTransaction) -> MemoryRecord:
        probe = list(dict.fromkeys([*(derived_from or ()), *(evidence_ids or ())]))
        rows = store.run(tx, "record_recompute_check", id=record_id, parents=probe)
        if not rows or rows[0]["record"].get("erased"):
            raise RecordNotFoundError(f"no record {record_id!r} (or it was erased)",
                                      record_ids=[record_id])
        props = rows[0]["record"]
        if not props.get("pending_recompute"):
            raise PolicyError("only a record pending recompute can be recomputed",
                              record_ids=[record_id])
        current = record_from_props(props)
        if rows[0]["missing"] or rows[0]["erased"]:
            raise DanglingReferenceError("new lineage names missing or erased records",
                                         record_ids=[*rows[0]["missing"], *rows[0]["erased"]])
        cyclic = [d for d in rows[0]["descendants"] if d in (derived_from or ())]
        if cyclic:
            raise LineageCycleError("derived_from would form a cycle", record_ids=cyclic)
        old = store.run(tx, "record_recompute_check", id=record_id,
                        parents=[*current.derived_from, *current.evidence_ids])[0]
        gone = set(old["erased"]) | set(old["missing"])
        data = current.model_dump()
        data.update(
            content=content,
            derived_from=tuple(derived_from if derived_from is not None
                               else [p for p in current.derived_from if p not in gone]),
            evidence_ids=tuple(evidence_ids if evidence_ids is not None
                               else [p for p in current.evidence_ids if p not in gone]),
        )
        if asserted_value is not None:
            data["asserted_value"] = asserted_value
        if provenance is not None:
            data["provenance"] = dict(provenance)
        new = coerce_record(data)
        store.check_record(new)
        fresh = record_props(new)
        store.run(tx, "record_recompute", id=record_id, by=by, at=when,
                  **{k: fresh[k] for k in ("content", "asserted_value", "provenance_json",
                                           "source", "fingerprint", "dedup_key",
                                           "derived_from", "evidence_ids")})
        store.run(tx, "conflicts_link", ids=[record_id])
        store.log_transition(tx, record_id, "recompute", by, reason, when)
        return new

    result: MemoryRecord = store.transaction("recompute", work)
    return result
