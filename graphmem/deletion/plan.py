"""Planning a deletion (docs/spec/deletion.md): the ``DERIVED_FROM`` walk from the roots or a
subject scope, and a disposition for every node it reaches (see :mod:`graphmem.deletion`)."""

from __future__ import annotations

import secrets
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TypedDict

from graphmem.db.access import OPERATOR, Access
from graphmem.db.codec import (
    paused_gc,
    scope_pairs,
)
from graphmem.db.ops.deletion import DeletionOps, RootNode, WalkSource
from graphmem.db.store import Neo4jStore
from graphmem.deletion.columns import PlanColumns, id_list
from graphmem.deletion.lineage import LineageColumns, WalkedColumns, lineage_columns
from graphmem.deletion.matcher import REDACTION, TermMatcher
from graphmem.deletion.models import (
    Citation,
    DeletionPlan,
    Disposition,
    NodeType,
    PlanEntry,
    RetrievalHit,
)
from graphmem.deletion.reach import (
    check_plan,
    confine_subject,
    plan_reach,
    retrievals_within,
)
from graphmem.deletion.redaction import INTENTION_TEXT_KEYS, narrowing, terms_in
from graphmem.deletion.terms import check_terms, clean_terms, term_check
from graphmem.errors import (
    DeletionError,
    ValidationError,
)
from graphmem.limits import InputLimits
from graphmem.models import MemoryKind

__all__ = ["DEFAULT_BATCH_SIZE", "REDACTION", "ProgressCallback", "Walk", "WalkRow", "check_terms",
           "clean_terms", "id_list", "plan_deletion", "term_check", "walk", "walk_columns",
           "walk_descendants"]


DEFAULT_BATCH_SIZE = 1000
"""Entries per transaction of an apply (docs/spec/deletion.md#apply). Small enough that a
batch's transaction state stays young in the server's heap: at 5,000 the collector's share of
an apply of 10^5 was about three times the rest of its second core (docs/performance.md)."""

ProgressCallback = Callable[[int, int], None]
"""Called after each committed batch with (entries applied so far, entries in the plan)."""


# ------------------------------------------------------------------------------ planning


class WalkRow(TypedDict):
    """One descendant of the deletion walk: ``id``, ``kind``, ``erased``, ``depth`` (shortest
    distance below a root), ``parents`` (DERIVED_FROM parent ids, sorted) and ``terms`` (the
    numbers of the redaction terms it holds)."""

    id: str
    kind: str
    erased: bool
    depth: int
    parents: list[str]
    terms: Sequence[int]


@dataclass(frozen=True)
class Walk:
    """What the one deletion walk (``cypher/deletion/walk.cypher``) returns.

    Attributes:
        rows: one :class:`WalkRow` per descendant.
        citations: (cited id, citing id, citing kind, citing record erased) for every
            EVIDENCED_BY edge into a root or a descendant.
        selections: (record id, retrieval id) for every SELECTED edge into one of them.
        erased_parents: the parents outside the walk (neither a root nor a descendant) that
            an earlier request erased.
    """

    rows: list[WalkRow]
    citations: list[tuple[str, str, str, bool]]
    selections: list[tuple[str, str]]
    erased_parents: frozenset[str] = frozenset()


_TEXT_KEYS = ("content", "asserted_value", "provenance_json", "metadata_json", "asserts",
              "thread")


def _held(matcher: TermMatcher, texts: Sequence[str], keys: Sequence[str] = _TEXT_KEYS
          ) -> tuple[int, ...]:
    """The numbers of the matcher's terms that the texts (property ``keys``) hold."""
    found: set[int] = set()
    for key, text in zip(keys, texts, strict=False):
        found |= terms_in(key, text, matcher)
    return tuple(sorted(found))


def walk_columns(store: Neo4jStore | WalkSource, roots: Sequence[str],
                 terms: Sequence[str] = ()) -> WalkedColumns:
    """The DERIVED_FROM descendants of ``roots`` as :func:`walk` finds them, as parallel
    lists (:class:`~graphmem.deletion.lineage.WalkedColumns`): no object per descendant but
    its parents' tuple.

    Args:
        store: the store (or what runs its walk: :class:`~graphmem.db.ops.deletion.
            DeletionOps`). roots: record ids (unknown ids are ignored).
        terms: redaction terms to look for (``terms``: their numbers, by descendant).
    """
    ops = DeletionOps(store) if isinstance(store, Neo4jStore) else store
    matcher = TermMatcher.from_terms(terms)
    pattern = narrowing(matcher) if terms else None
    with paused_gc():
        row = ops.walk(roots, pattern)
        found = {rid: held for rid, texts in zip(row.term_ids, row.term_texts, strict=True)
                 if (held := _held(matcher, texts))}
        inside = set(row.ids)  # kept: the plan asks whether an id was walked (10^6 ids)
        outside = set(chain.from_iterable(row.parents)).difference(inside)
        stored, gone = ops.outside_parents(sorted(outside)) if outside else (set(), set())
        lost = outside - stored
        parents = ([tuple(sorted(p for p in ps if p not in lost)) for ps in row.parents]
                   if lost else list(map(tuple, map(sorted, row.parents))))
        citations: list[tuple[str, str, str, bool]] = []
        selections: list[tuple[str, str]] = []
        for cited, citer, edge, kind, erased in zip(row.cited, row.citer, row.edge,
                                                    row.citer_kind, row.citer_erased,
                                                    strict=True):
            if edge == "SELECTED":
                selections.append((cited, citer))
            else:
                citations.append((cited, citer, kind, erased))
        return WalkedColumns(ids=row.ids, kinds=row.kinds, erased=row.erased,
                             depths=row.depths, parents=parents, terms=found,
                             citations=citations, selections=selections,
                             erased_parents=frozenset(gone.difference(roots)), id_set=inside)


def walk(store: Neo4jStore | WalkSource, roots: Sequence[str], terms: Sequence[str] = ()
         ) -> Walk:
    """Every DERIVED_FROM descendant of ``roots`` from one pruning-BFS Cypher walk, with the
    citations and retrieval selections of the walked records.

    A descendant's parents are its DERIVED_FROM parents: the walk reads its ``derived_from``
    (see ``cypher/deletion/walk.cypher``), and a parent id there that names no stored record
    (none is written so, but a store may have lost one) is left out, as its edge would be.

    Args:
        store: the store (or what runs its walk: :class:`~graphmem.db.ops.deletion.
            DeletionOps`). roots: record ids (unknown ids are ignored).
        terms: redaction terms to look for (``terms`` of a row: their numbers).
    """
    walked = walk_columns(store, roots, terms)
    with paused_gc():
        rows = [WalkRow(id=rid, kind=kind, erased=erased, depth=depth, parents=list(parents),
                        terms=walked.terms.get(rid, []))
                for rid, kind, erased, depth, parents in zip(
                    walked.ids, walked.kinds, walked.erased, walked.depths, walked.parents,
                    strict=True)]
    return Walk(rows=rows, citations=walked.citations, selections=walked.selections,
                erased_parents=walked.erased_parents)


def walk_descendants(store: Neo4jStore, roots: Sequence[str], terms: Sequence[str] = ()
                     ) -> list[WalkRow]:
    """The descendant rows of :func:`walk` (see :class:`Walk`)."""
    return walk(store, roots, terms).rows


def check_plan_inputs(
    limits: InputLimits, *, roots: Sequence[str] | None, subject: Mapping[str, str] | None,
    redact_terms: Iterable[str], requested_by: str, reason: str, request_id: str | None,
) -> tuple[list[str] | None, dict[str, str] | None, tuple[str, ...]]:
    """:func:`plan_deletion`'s inputs checked as it checks them, before anything is read
    (a command checks them before it connects): ``(roots, subject, terms)``, cleaned.

    Raises:
        ValidationError: as :func:`plan_deletion` for its inputs.
    """
    if (roots is None) == (subject is None):
        raise ValidationError("plan a deletion from exactly one of roots= or subject=")
    limits.check_notes(requested_by=requested_by, reason=reason)
    if request_id is not None:
        limits.check_id("invalid deletion request id", request_id)
    terms = clean_terms(limits.check_terms(redact_terms))
    return (None if roots is None else limits.check_ids("roots", roots),
            None if subject is None else limits.check_scope("the deletion subject", subject),
            terms)


@paused_gc()  # 10^6 descendants: no collection passes over what is made for them
def plan_deletion(
    store: Neo4jStore,
    *,
    roots: Sequence[str] | None = None,
    subject: Mapping[str, str] | None = None,
    redact_terms: Iterable[str] = (),
    requested_by: str,
    reason: str,
    request_id: str | None = None,
    access: Access = OPERATOR,
    allow_missing: bool = False,
) -> DeletionPlan:
    """Plan a deletion (docs/spec/deletion.md). Reads only; nothing changes until it is applied.

    Args:
        store: the store.
        roots: record or intention ids to erase; or
        subject: a scope with ``tenant`` (e.g. ``{"tenant": "acme", "user": "u-17"}``): every
            record and intention whose scope holds all of its key/values is a root.
            Exactly one of ``roots`` and ``subject`` must be given.
        redact_terms: names or other strings to redact wherever they survive, in any of the
            ways :mod:`~graphmem.deletion.matcher` reads as the same (case, spacing,
            compatibility forms, ignorables; whole words): the plan lists the descendants,
            records and intentions that hold one; applying also redacts every other text of
            the tenants' graph. The plan keeps them only as salted digests
            (``term_checks``), and in memory for :func:`apply_deletion`.
        requested_by, reason: who asks and why (kept on the request for audit).
        request_id: the request's id (default: a fresh ``del-<uuid>``).
        access: the caller's reach (default: the operator's, everything). A bound caller's
            subject is confined (:func:`graphmem.deletion.reach.confine_subject`; ``{}`` is
            its own scope), its roots must be records it may change, and a plan with any
            entry it may not change is refused as a whole (:mod:`graphmem.deletion.reach`).
            Its plan has a ``reach`` (:func:`~graphmem.deletion.reach.plan_reach`): its terms
            are looked for only in what it may change, and it lists only the retrievals
            made within that reach.
        allow_missing: named roots that name nothing are left out and listed in
            ``missing_roots`` (``matches_nothing`` is then true) instead of raising.

    Returns:
        The plan, with a digest; roots first, then descendants by depth, then the rest.

    Raises:
        ValidationError: both or neither of roots/subject, a subject without tenant, empty
            terms, empty requested_by/reason, a string with a lone surrogate, a request id
            that breaks docs/spec/records.md's id rule (:func:`graphmem.models.id_problem`), a
            value over its bound (:class:`graphmem.limits.InputLimits`: ``note_bytes``,
            ``ids``, ``redact_terms``, ``term_bytes``, ``scope_bytes``); nothing is read.
        DeletionError: a named root does not exist (an operator's plan, without
            ``allow_missing``).
        OutOfReachError: a bound caller named a root out of its reach, or none.
        AuthorizationError: a bound caller's subject contradicts its confinement, or the
            plan reaches memories it may not change.
    """
    limits = store.limits  # every input is bounded before the first read
    roots, subject, terms = check_plan_inputs(
        limits, roots=roots, subject=subject, redact_terms=redact_terms,
        requested_by=requested_by, reason=reason, request_id=request_id)
    matcher = TermMatcher.from_terms(terms)
    ops = DeletionOps(store)
    missing: list[str] = []
    subject_scope: dict[str, str] | None = None
    root_rows: list[RootNode]
    if subject is not None:
        subject_scope = limits.check_scope("the deletion subject",
                                           confine_subject(access, subject), tenant=True)
        root_rows = ops.subject_roots(subject_scope["tenant"], scope_pairs(subject_scope))
        root_reason = "in the subject's scope"
    else:
        assert roots is not None
        wanted = list(roots)
        if not wanted:
            raise ValidationError("roots must be a non-empty list of ids")
        access.check_ids(store, wanted, change=True, what="a deletion root",
                         node="either")
        root_rows = ops.roots_by_id(wanted)
        unknown = [row.id for row in root_rows if row.node is None]
        if unknown and not allow_missing:
            raise DeletionError("these deletion roots name no record or intention",
                                record_ids=unknown)
        missing = unknown
        root_rows = [row for row in root_rows if row.node is not None]
        root_reason = "named as a root of the request"

    # roots, citing procedures and mentions: few, kept as entries; the lineage as columns
    entries: dict[str, PlanEntry] = {}
    for root in root_rows:
        node = NodeType(str(root.node))  # every root left names a node
        why = root_reason + ("; cancelled and erased" if node is NodeType.INTENTION else "")
        entries[root.id] = PlanEntry(id=root.id, node=node, kind=root.kind,
                                     disposition=Disposition.DELETE, reason=why, via="root")
    record_roots = {root.id for root in root_rows if root.node == NodeType.RECORD}
    tenants = sorted({root.tenant for root in root_rows if root.tenant}
                     | ({subject_scope["tenant"]} if subject_scope else set()))

    walked = walk_columns(ops, sorted(record_roots), terms)
    lineage = lineage_columns(walked, record_roots)
    deleted = lineage.deleted
    walked_ids = walked.inside()  # the lineage's ids, and the record roots walked below others
    for rid in [r for r in entries if r in walked_ids and r not in record_roots]:
        del entries[rid]  # an intention root sharing a descendant's id

    citations = _citations(walked.citations, deleted)
    citer_kinds = {citer: kind for _, citer, kind, _ in walked.citations}
    for c in citations:
        kind = citer_kinds[c.record_id]
        if c.record_id not in entries and c.record_id not in walked_ids \
                and kind == MemoryKind.PROCEDURAL.value:
            entries[c.record_id] = PlanEntry(
                id=c.record_id, kind=kind, disposition=Disposition.QUARANTINE,
                reason=f"a procedure citing deleted evidence ({id_list(list(c.cites))})",
                via="citation")

    pattern = narrowing(matcher) if terms else None
    reach = plan_reach(access)
    if terms and tenants:
        scan_reach = ({"pairs": scope_pairs(reach.scope), "max_rank": reach.clearance.rank}
                      if reach else None)
        at = dict(zip(lineage.ids, range(len(lineage.ids)), strict=True))
        for scanned in ops.term_scan(tenants, pattern, scan_reach):
            found = _held(matcher, scanned.texts, _TEXT_KEYS if scanned.node == "record"
                          else INTENTION_TEXT_KEYS)
            if not found:
                continue
            i = at.get(scanned.id)
            prior = entries.get(scanned.id)
            if i is not None:
                if lineage.dispositions[i] != "D" and not lineage.terms[i]:
                    lineage.terms[i] = found
            elif prior is None:
                entries[scanned.id] = PlanEntry(
                    id=scanned.id, node=NodeType(scanned.node), kind=scanned.kind,
                    disposition=Disposition.REDACT, reason="holds a redaction term",
                    via="mention", terms=found)
            elif prior.disposition is not Disposition.DELETE and not prior.terms:
                entries[scanned.id] = prior.model_copy(update={"terms": found})

    selected: dict[str, set[str]] = defaultdict(set)
    for record_id, retrieval_id in walked.selections:
        if record_id in deleted:
            selected[retrieval_id].add(record_id)
    holding: set[str] = set()
    if terms and tenants:
        holding = {q.id for q in ops.logged_queries(tenants, pattern)
                   if matcher.holds(q.query or "")}
    hits = retrievals_within(ops, reach, [
        RetrievalHit(retrieval_id=q, selected_ids=tuple(sorted(selected.get(q, ()))),
                     query_holds_terms=q in holding) for q in sorted(set(selected) | holding)])
    order = {"root": 0, "citation": 2, "mention": 3}
    others = sorted(entries.values(), key=lambda e: (order[e.via], e.depth, e.id))
    roots_first = [e for e in others if e.via == "root"]
    salt = secrets.token_hex(16) if terms else ""
    plan = DeletionPlan(
        request_id=request_id or f"del-{uuid.uuid4().hex}",
        # the plan's own text holds no term either (docs/deletion-terms.md)
        requested_by=matcher.redact(requested_by) if terms else requested_by,
        reason=matcher.redact(reason) if terms else reason, subject=subject_scope,
        roots=tuple(e.id for e in roots_first), missing_roots=tuple(missing),
        term_salt=salt, term_checks=tuple(term_check(t, salt) for t in terms),
        tenants=tuple(tenants), planned_at=store.clock(),
        columns=_plan_columns(roots_first, lineage, others[len(roots_first):]),
        dangling_citations=tuple(citations), retrievals=hits, reach=reach,
    )
    check_plan(store, access, plan)
    return plan.model_copy(update={"digest": plan.compute_digest()}).with_terms(terms)


def _plan_columns(first: Sequence[PlanEntry], lineage: LineageColumns,
                  last: Sequence[PlanEntry]) -> PlanColumns:
    """The plan's columns: the ``first`` entries (roots), the lineage, the ``last`` ones."""
    head, tail = PlanColumns.from_entries(first), PlanColumns.from_entries(last)
    n = len(lineage.ids)
    return PlanColumns.build(
        ids=[*head.ids, *lineage.ids, *tail.ids],
        nodes=head.nodes + "r" * n + tail.nodes,
        kinds=[*head.kinds, *lineage.kinds, *tail.kinds],
        dispositions=head.dispositions + "".join(lineage.dispositions) + tail.dispositions,
        vias=head.vias + "l" * n + tail.vias,
        depths=[*head.depths, *lineage.depths, *tail.depths],
        parents=[*head.parents, *lineage.parents, *tail.parents],
        erased_parents=[*head.erased_parents, *lineage.erased_parents, *tail.erased_parents],
        terms=[*head.terms, *lineage.terms, *tail.terms],
        already_erased=(head.already_erased + "".join(lineage.already_erased)
                        + tail.already_erased),
        reasons=[*head.reasons, *lineage.reasons, *tail.reasons])


def _citations(citations: Sequence[tuple[str, str, str, bool]], deleted: set[str]
               ) -> list[Citation]:
    """Records that survive (not deleted, not erased) but cite deleted ones as evidence."""
    cites: dict[str, set[str]] = defaultdict(set)
    for cited, citer, _, citer_erased in citations:
        if cited in deleted and citer not in deleted and not citer_erased:
            cites[citer].add(cited)
    return [Citation(record_id=c, cites=tuple(sorted(ids))) for c, ids in sorted(cites.items())]
