"""Applying a deletion plan (docs/spec/deletion.md): redaction, erasure to content-free tombstones,
marks for recompute and quarantine, in resumable idempotent batches; and recomputing a
record that was derived from erased content.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.db.access import OPERATOR, Access
from graphmem.db.codec import (
    coerce_record,
    paused_gc,
    record_from_props,
    record_props,
    require_aware,
    scope_pairs,
)
from graphmem.db.ops.deletion import DeletionOps
from graphmem.db.ops.erasure import ErasureTx
from graphmem.db.store import Neo4jStore
from graphmem.deletion import disk
from graphmem.deletion.columns import DISPOSITION_CODES, PlanColumns
from graphmem.deletion.matcher import TermMatcher, digest_terms
from graphmem.deletion.models import (
    DeletionPlan,
    DeletionReport,
    Disposition,
    NodeType,
)
from graphmem.deletion.plan import (
    DEFAULT_BATCH_SIZE,
    ProgressCallback,
    check_terms,
    walk_columns,
)
from graphmem.deletion.reach import reach_key
from graphmem.deletion.redaction import (
    item_facts,
    redact_intention,
    redact_record,
    redact_tenant_text,
)
from graphmem.deletion.verify import report
from graphmem.errors import (
    DanglingReferenceError,
    DeletionError,
    LineageCycleError,
    PolicyError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import MemoryKind, MemoryRecord

# ------------------------------------------------------------------------------ applying


_REDACTED_FIELDS = ("content", "asserted_value", "provenance_json", "source", "metadata_json",
                    "fingerprint", "dedup_key")


def _request_props(plan: DeletionPlan, at: datetime, terms: Sequence[str]) -> dict[str, Any]:
    """The request node's properties. The terms are kept as keyed digests under a fresh
    random key (``redact_key``, ``redact_terms_json``: :func:`~graphmem.deletion.matcher.
    digest_terms`, with the current scheme, whatever the plan's version), so the
    verification checks them without being given them again."""
    key = secrets.token_bytes(32) if terms else b""
    digests = digest_terms(terms, key) if terms else ()
    return {
        "state": "applying",
        "version": plan.version,
        "digest": plan.digest,
        "requested_by": plan.requested_by,
        "reason": plan.reason,
        "subject_json": json.dumps(plan.subject, sort_keys=True) if plan.subject else None,
        "tenants": list(plan.tenants),
        "redact_term_count": len(digests),  # a version 2 plan's "Zoë" and "Zoe" are one now
        "redact_key": key.hex() if terms else None,
        "redact_terms_json": json.dumps([d.as_dict() for d in digests]) if terms else None,
        "planned_at": plan.planned_at,
        "started_at": at,
        "planned_count": plan.entry_count,
        "counts_json": json.dumps(plan.counts(), sort_keys=True),
        "dangling_json": json.dumps([c.model_dump() for c in plan.dangling_citations]),
        "retrievals_json": json.dumps([h.model_dump() for h in plan.retrievals]),
        "reach_json": reach_key(plan.reach) if plan.reach else None,
    }


def _check_stale(store: Neo4jStore, plan: DeletionPlan, access: Access) -> None:
    """Raise DeletionError when the graph no longer matches the plan's structure.

    Tombstones keep their scope and lineage edges, so a plan that was partly applied still
    matches; new records in the subject's scope, new descendants, new citing procedures or
    vanished nodes do not. The error names only ids ``access`` reaches.
    """

    def stale(what: str, ids: list[str]) -> DeletionError:
        shown = sorted(access.visible(store, ids))[:50]
        return DeletionError(f"stale plan: {what} since planning; plan again",
                             record_ids=shown)

    planned = set(plan.columns.ids)
    ops = DeletionOps(store)
    if plan.subject is not None:
        now_roots = {root.id for root in ops.subject_roots(plan.subject["tenant"],
                                                           scope_pairs(plan.subject))}
    else:
        now_roots = {root.id for root in ops.roots_by_id(plan.roots) if root.node is not None}
    if now_roots != set(plan.roots):
        raise stale("the roots changed", sorted(now_roots ^ set(plan.roots)))
    record_roots = plan.columns.ids_via("root", NodeType.RECORD)
    walked = walk_columns(ops, record_roots)
    now_lineage = set(walked.ids) - set(plan.roots)
    lineage = set(plan.columns.ids_via("lineage"))
    if now_lineage != lineage:
        raise stale("the descendants changed", sorted(now_lineage ^ lineage))
    deleted = set(plan.ids(Disposition.DELETE))
    for cited, citer, kind, citer_erased in walked.citations:
        if (cited in deleted and citer not in planned and not citer_erased
                and kind == MemoryKind.PROCEDURAL.value):
            raise stale("a procedure cites deleted evidence", [citer])


def _apply_batch(tx: ErasureTx, plan: DeletionPlan, batch: PlanColumns, at: datetime,
                 matcher: TermMatcher) -> None:
    rid = plan.request_id
    lock = tx.lock_request(rid)
    if lock is None or lock.digest != plan.digest:
        raise DeletionError("the deletion request vanished or changed during the apply",
                            record_ids=[rid])
    planned = list(zip(batch.ids, batch.nodes, batch.dispositions, batch.vias, batch.terms,
                       strict=True))
    erase = [{"id": i, "root": v == "r"} for i, n, d, v, _ in planned if d == "D" and n == "r"]
    if erase:
        tx.erase_records(erase, request_id=rid, at=at, reason=plan.reason)
    erase_intents = [{"id": i, "root": v == "r"} for i, n, d, v, _ in planned
                     if d == "D" and n == "i"]
    if erase_intents:
        tx.erase_intentions(erase_intents, request_id=rid, at=at, reason=plan.reason)

    live = [(i, n, DISPOSITION_CODES[d], t) for i, n, d, _, t in planned if d != "D"]
    redact_records = [i for i, n, _, t in live if t and n == "r"]
    if redact_records and matcher:
        rows, items = [], []
        for props in tx.records(redact_records):
            if props.get("erased"):
                continue
            old = record_from_props(props)
            redacted = redact_record(old, matcher)
            new, facts = record_props(redacted), item_facts(props, redacted)
            rows.append({"id": props["id"], **{k: new[k] for k in _REDACTED_FIELDS}, **facts})
            if facts and redacted.metadata != old.metadata:  # its embeddings held the term
                items.append(old.id)
        if rows:
            tx.redact_records(rows, request_id=rid, at=at)
        if items:
            tx.drop_vectors(items)
    redact_intents = [i for i, n, _, t in live if t and n == "i"]
    if redact_intents and matcher:
        stored = tx.intentions(redact_intents)
        if stored:
            key = tx.index_key()
            tx.redact_intentions([{"id": props["id"],
                                   "props": redact_intention(props, matcher, key)}
                                  for props in stored], request_id=rid, at=at)
    if live:
        tx.mark([{"id": i, "disposition": d.value} for i, _, d, _ in live],
                request_id=rid, at=at)


def _finish(tx: ErasureTx, plan: DeletionPlan, at: datetime, matcher: TermMatcher) -> None:
    targets = [h.retrieval_id for h in plan.retrievals if h.query_holds_terms]
    if targets and matcher:
        rows = [{"id": q.id, "query": matcher.redact(q.query or "")}
                for q in tx.retrieval_queries(targets)]
        tx.redact_retrievals(rows, request_id=plan.request_id, at=at)
    if matcher:
        redact_tenant_text(tx, tenants=plan.tenants, terms=matcher,
                           request_id=plan.request_id, at=at, reach=plan.reach)
    tx.finish_request(plan.request_id, at)


@paused_gc()  # the plan's entries and each batch's rows: many small objects, none cyclic
def apply_deletion(
    store: Neo4jStore,
    plan: DeletionPlan,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: ProgressCallback | None = None,
    check_stale: bool = True,
    redact_terms: Iterable[str] | None = None,
    settle_disk: bool = True,
    access: Access = OPERATOR,
) -> DeletionReport:
    """Apply a deletion plan (docs/spec/deletion.md) and return the verified audit report.

    DELETE records become content-free tombstones (``explain`` says ERASED; ``get`` raises
    RecordNotFoundError); DELETE intentions are cancelled and erased; REDACT replaces the
    plan's terms in place; RECOMPUTE sets ``pending_recompute`` (ineligible until
    :func:`recompute`); QUARANTINE sets ``quarantined``. Non-DELETE entries that hold terms
    are redacted too, and, in the last transaction, every other text of the tenants' graph
    that holds one (reasons, queries, notes, provenance and metadata keys, any property
    added later: :mod:`graphmem.deletion.redaction`).

    A plan with at most ``batch_size`` entries is applied in one transaction. A larger one
    runs as a begin transaction, one transaction per ``batch_size`` entries, and a finish
    transaction; if the process dies in between, applying the same plan again resumes where
    it stopped. Applying an applied plan again changes nothing and returns its report with
    ``already_applied`` set.

    The plan holds its redaction terms only as digests: ``plan_deletion``'s plan keeps them
    in memory; a plan loaded from JSON is applied with ``redact_terms`` given again, checked
    against the plan (:func:`~graphmem.deletion.plan.check_terms`). The request keeps them
    as keyed digests (``docs/deletion-terms.md``).

    Args:
        store: the store. plan: a plan from :func:`plan_deletion` or
            :meth:`DeletionPlan.from_json`.
        batch_size: entries per transaction (>= 1).
        progress: called after each committed batch with (entries applied, total entries).
        check_stale: first re-check the plan against the graph (roots, descendants,
            citing procedures); costs one more walk.
        redact_terms: the plan's terms, for a plan loaded from JSON (any spelling the matcher
            reads the same; None: the ones the plan keeps in memory).
        settle_disk: once the erasure is committed, purge the server's files of it when
            graphmem's launcher runs the server, else read what stays out of reach
            (:func:`graphmem.deletion.disk.settle`; the report's ``disk``).
        access: whose apply it is: a stale plan's error names only ids it reaches (its
            reach is checked by the client: :func:`graphmem.deletion.reach.check_plan`).
            A plan with a ``reach`` redacts its terms only within it.

    Raises:
        DeletionError: the plan's digest does not match its content; the request id is
            already used by a different plan; the plan is stale (the graph changed since
            planning: plan again); the plan names terms and they were not given, or the
            terms given are not the plan's.
        ValidationError: ``batch_size`` < 1; an empty term; terms over their bounds
            (``InputLimits.redact_terms``, ``term_bytes``).
    """
    if batch_size < 1:
        raise ValidationError("batch_size must be >= 1")
    if redact_terms is not None:
        redact_terms = store.limits.check_terms(redact_terms)
    if plan.digest != plan.compute_digest():
        raise DeletionError("the plan's digest does not match its content; plan again",
                            record_ids=[plan.request_id])
    rid = plan.request_id
    ops = DeletionOps(store)
    stored = ops.request(rid)
    if stored is not None:
        if stored.get("digest") != plan.digest:
            raise DeletionError("this request id belongs to a different plan", record_ids=[rid])
        if stored.get("state") == "applied":
            known = check_terms(plan, redact_terms) if (
                redact_terms is not None or plan.clear_terms) else ()
            done = report(store, rid, redact_terms=known)
            return _settled(store, done.model_copy(update={"already_applied": True}),
                            settle_disk, keep=False)
    terms = check_terms(plan, redact_terms)
    matcher = TermMatcher.from_terms(terms)
    if check_stale:
        _check_stale(store, plan, access)
    at = store.clock()
    total = plan.entry_count

    def begin(tx: ErasureTx) -> None:
        if tx.begin_request(rid, _request_props(plan, at, terms)).digest != plan.digest:
            raise DeletionError("this request id belongs to a different plan",
                                record_ids=[rid])

    if total <= batch_size:
        def atomic(tx: ErasureTx) -> None:
            begin(tx)
            _apply_batch(tx, plan, plan.columns, at, matcher)
            _finish(tx, plan, at, matcher)

        ops.atomic("deletion_apply", atomic)
        if progress is not None:
            progress(total, total)
    else:
        ops.atomic("deletion_begin", begin)
        for start in range(0, total, batch_size):
            batch = plan.columns.slice(start, start + batch_size)

            def one(tx: ErasureTx, batch: PlanColumns = batch) -> None:
                _apply_batch(tx, plan, batch, at, matcher)

            ops.atomic("deletion_batch", one)
            if progress is not None:
                progress(min(start + batch_size, total), total)
        ops.atomic("deletion_finish", lambda tx: _finish(tx, plan, at, matcher))
    return _settled(store, report(store, rid, redact_terms=terms), settle_disk)


def _settled(store: Neo4jStore, done: DeletionReport, settle_disk: bool, *, keep: bool = True
             ) -> DeletionReport:
    """``done`` with what became of the server's files, kept on the request unless
    ``keep`` is False (applying an applied plan again changes nothing in the graph)."""
    if not settle_disk:
        return done
    residue = disk.settle(store)
    if keep:
        disk.record_residue(store, done.request.id, residue)
    return done.model_copy(update={"disk": residue})


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
    """Return a RECOMPUTE record to service with new content and fresh lineage
    (docs/spec/deletion.md).

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
    store.limits.check_notes([record_id], by=by, reason=reason)
    when = require_aware(at, "at") if at is not None else store.clock()

    def work(tx: ErasureTx) -> MemoryRecord:
        probe = list(dict.fromkeys([*(derived_from or ()), *(evidence_ids or ())]))
        checked = tx.recompute_check(record_id, probe)
        if checked is None or checked.record.get("erased"):
            raise RecordNotFoundError(f"no record {record_id!r} (or it was erased)",
                                      record_ids=[record_id])
        props = checked.record
        if not props.get("pending_recompute"):
            raise PolicyError("only a record pending recompute can be recomputed",
                              record_ids=[record_id])
        current = record_from_props(props)
        if checked.missing or checked.erased:
            raise DanglingReferenceError("new lineage names missing or erased records",
                                         record_ids=[*checked.missing, *checked.erased])
        cyclic = [d for d in checked.descendants if d in (derived_from or ())]
        if cyclic:
            raise LineageCycleError("derived_from would form a cycle", record_ids=cyclic)
        old = tx.recompute_check(record_id, [*current.derived_from, *current.evidence_ids])
        assert old is not None  # read in this very transaction just above
        gone = set(old.erased) | set(old.missing)
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
        tx.check_record(new)
        fresh = record_props(new)
        tx.recompute(record_id, by=by, at=when,
                     fields={k: fresh[k] for k in ("content", "asserted_value", "provenance_json",
                                                   "source", "fingerprint", "dedup_key",
                                                   "derived_from", "evidence_ids")})
        tx.log_transition(record_id, "recompute", by, reason, when)
        return new

    return DeletionOps(store).atomic("recompute", work)
