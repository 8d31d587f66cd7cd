"""Proving a deletion (docs/spec/deletion.md): the request's audit report and the verification that
no erased content or redacted term remains retrievable.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from graphmem.db.codec import paused_gc
from graphmem.db.ops.deletion import DeletionOps, VerifyRow
from graphmem.db.store import Neo4jStore
from graphmem.deletion.disk import DiskResidue
from graphmem.deletion.fold import SCHEME, SCHEME_PLAIN
from graphmem.deletion.matcher import TermDigest, TermMatcher, digest_terms
from graphmem.deletion.models import (
    Citation,
    DeletionReport,
    DeletionRequestInfo,
    Disposition,
    NodeType,
    PlanReach,
    ReportEntry,
    RetrievalHit,
    Verification,
    counts_of,
)
from graphmem.deletion.plan import clean_terms, id_list
from graphmem.deletion.redaction import scan_tenant_text, text_problems
from graphmem.errors import (
    DeletionError,
)

# ------------------------------------------------------------------------------ verifying


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _iso(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _legacy_digest(term: str) -> str:
    return hashlib.sha256(unicodedata.normalize("NFC", term.strip()).lower().encode()
                          ).hexdigest()


def request_matcher(req: Mapping[str, Any], redact_terms: Iterable[str] = ()) -> TermMatcher:
    """The matcher of a stored request's own terms: from its keyed digests (``redact_key``,
    ``redact_terms_json``), or from ``redact_terms`` when they are exactly the request's
    (the same decisions, and the store can narrow candidates with clear terms). Each digest
    is decided with the scheme it was made with (``docs/deletion-terms.md``: a request stored
    before diacritics were folded is verified with accents counting, one stored before
    typographic apostrophes, hyphens and tatweel were folded with them as written: each as
    it was redacted). A request stored before keyed digests kept unkeyed ones: its terms are
    checked only when given, with accents counting.

    Raises:
        DeletionError: a term given is not one of the request's.
        ValidationError: an empty term, or one without a letter or digit.
    """
    rid = str(req.get("id", ""))
    if req.get("redact_key") and req.get("redact_terms_json"):
        key = bytes.fromhex(str(req["redact_key"]))
        stored = [TermDigest.from_dict(d) for d in json.loads(str(req["redact_terms_json"]))]
        schemes = sorted({d.scheme for d in stored})
        scheme = schemes[0] if len(schemes) == 1 else SCHEME
        given = clean_terms(redact_terms, scheme)
        mine = {t: {d for s in schemes for d in digest_terms([t], key, s)} & set(stored)
                for t in given}
        strangers = [t for t, found in mine.items() if not found]
        if strangers:
            raise DeletionError(f"{len(strangers)} of the terms given are not this request's "
                                "(verify checks the request's own terms; give none, or its "
                                "own)", record_ids=[rid])
        if given and len(schemes) == 1 and set().union(*mine.values()) == set(stored):
            return TermMatcher.from_terms(given, scheme)
        return TermMatcher.from_digests(stored, key)
    given = clean_terms(redact_terms, SCHEME_PLAIN)
    legacy = set(req.get("redact_term_digests") or [])
    strangers = [t for t in given if _legacy_digest(t) not in legacy]
    if strangers:
        raise DeletionError(f"{len(strangers)} of the terms given are not this request's",
                            record_ids=[rid])
    return TermMatcher.from_terms(given, SCHEME_PLAIN)


def request_reach(req: Mapping[str, Any]) -> PlanReach | None:
    """A stored request's reach (``reach_json``; None: the whole of its tenants)."""
    text = req.get("reach_json")
    return PlanReach.model_validate_json(str(text)) if text else None


def verify(store: Neo4jStore, request_id: str, *, redact_terms: Iterable[str] = ()
           ) -> tuple[dict[str, Any], Verification]:
    """Run the verification queries for a request; returns (stored request props, result).

    The request's own terms are checked without being given (it keeps them as keyed digests:
    :func:`request_matcher`, ``docs/deletion-terms.md``): every string and list-of-strings property
    of every node and relationship of the request's tenants is scanned
    (:func:`~graphmem.deletion.redaction.scan_tenant_text`), except log nodes written, by the
    server's clock, after the request finished (a read made later, as of any time, is new data, not
    residue); a term in any text fails the verification, a term in an identifier is reported
    (docs/spec/deletion.md). A request made with a reach (a confined principal's plan) is verified
    within that reach only (:func:`request_reach`), as it was redacted. ``redact_terms`` may repeat
    the request's terms (the scan is then narrowed in the store); it never passes having checked
    fewer terms than the request named (a request stored before keyed digests, verified without its
    terms).

    Raises:
        DeletionError: no deletion request with this id; a term given is not the request's.
        ValidationError: an empty term, or one without a letter or digit; a request id or
            terms over their bounds (:class:`graphmem.limits.InputLimits`).
    """
    req, verification, _ = _verified(store, request_id, redact_terms)
    return req, verification


@paused_gc()  # a request of 10^5 nodes: columns of that many strings, none cyclic
def _verified(store: Neo4jStore, request_id: str, redact_terms: Iterable[str]
              ) -> tuple[dict[str, Any], Verification, VerifyRow]:
    """:func:`verify`, and the row it read (the report's entries are in it too)."""
    store.limits.check_id("the deletion request id", request_id)
    redact_terms = store.limits.check_terms(redact_terms)
    row = DeletionOps(store).verify(request_id)
    if row is None:
        raise DeletionError(f"no deletion request {request_id!r}", record_ids=[request_id])
    req = {k: _native(v) for k, v in row.request.items()}
    matcher = request_matcher({"id": request_id, **req}, redact_terms)
    requested = int(req.get("redact_term_count") or 0)
    finished = req.get("written_at") or req.get("finished_at")
    found = text_problems(scan_tenant_text(store, list(req.get("tenants") or []), matcher,
                                           after=finished, reach=request_reach(req)))
    # the plan's nodes, and those its last scan redacted that were written after planning
    planned = int(req.get("planned_count") or 0) + int(req.get("late_count") or 0)
    result = {
        "deleted_with_content": tuple(sorted(row.deleted_with_content)),
        "intentions_not_cancelled": tuple(sorted(row.intentions_not_cancelled)),
        "recompute_not_pending": tuple(sorted(row.recompute_not_pending)),
        "retrievable_with_terms": found.get("retrievable_with_terms", ()),
        "stored_with_terms": found.get("stored_with_terms", ()),
        "intentions_with_terms": found.get("intentions_with_terms", ()),
        "retrievals_with_terms": found.get("retrievals_with_terms", ()),
        "text_with_terms": found.get("text_with_terms", ()),
    }
    problems = [f"{len(ids)} {name.replace('_', ' ')}: {id_list(list(ids))}"
                for name, ids in result.items() if ids]
    checked = len(matcher.specs)
    if checked < requested:
        problems.insert(0, f"checked {checked} of the request's {requested} term(s): it was "
                           "stored before keyed term digests; give its terms (--redact)")
    if req.get("state") != "applied":
        problems.insert(0, f"request state is {req.get('state')!r}, not 'applied'")
    if row.disposed != planned:
        problems.insert(0, f"{row.disposed} of {planned} planned nodes disposed of")
    return req, Verification(
        passed=not problems, checked_at=store.clock(), state=str(req.get("state")),
        planned=planned, disposed=row.disposed,
        quarantine_released=tuple(sorted(row.quarantine_released)),
        terms_requested=requested, terms_checked=checked,
        identifiers_with_terms=found.get("identifiers_with_terms", ()),
        problems=tuple(problems), **result,
    ), row


@paused_gc()  # and as many report entries
def report(store: Neo4jStore, request_id: str, *, redact_terms: Iterable[str] = ()
           ) -> DeletionReport:
    """The audit report of a request, rebuilt from the graph, with a fresh verification.

    Args:
        store: the store. request_id: the request. redact_terms: optionally the request's
            terms again (the verification checks them anyway, from the request's keyed
            digests; given, the store narrows the scan).

    Raises:
        DeletionError: no deletion request with this id.
    """
    req, verification, row = _verified(store, request_id, redact_terms)
    entries = _report_entries(row.ids, row.nodes, row.kinds, row.dispositions, row.ats,
                              row.changed, row.roots, row.lates)
    subject = json.loads(req["subject_json"]) if req.get("subject_json") else None
    info = DeletionRequestInfo(
        id=request_id, state=str(req.get("state")), requested_by=req.get("requested_by", ""),
        reason=req.get("reason", ""), subject=subject, tenants=tuple(req.get("tenants") or ()),
        redact_term_count=int(req.get("redact_term_count") or 0),
        planned_at=req.get("planned_at"), started_at=req.get("started_at"),
        finished_at=req.get("finished_at"), digest=req.get("digest", ""),
        reach=request_reach(req),
    )
    return DeletionReport(
        request=info, entries=entries, counts=counts_of(e.disposition for e in entries),
        changed=sum(1 for e in entries if e.changed),
        dangling_citations=tuple(Citation.model_validate(c)
                                 for c in json.loads(req.get("dangling_json") or "[]")),
        retrievals=tuple(RetrievalHit.model_validate(h)
                         for h in json.loads(req.get("retrievals_json") or "[]")),
        verification=verification, generated_at=store.clock(),
        disk=(DiskResidue.model_validate_json(req["disk_json"]) if req.get("disk_json")
              else None),
    )


def _report_entries(ids: list[str], nodes: list[str], kinds: list[str], dispositions: list[str],
                    ats: list[str], changed: list[bool], roots: list[bool],
                    lates: list[bool]) -> tuple[ReportEntry, ...]:
    """The report's entries from the columns of ``deletion/verify``.

    A request's entries share a few combinations of node type, kind, disposition, time,
    changed, root and late: each distinct combination is validated once (a
    :class:`ReportEntry` made the ordinary way, with the time parsed once), and every other
    entry of it is that one's :meth:`~pydantic.BaseModel.model_copy` with its own id (``id``
    is a plain string: nothing of it is validated), for about a third of the validator's
    cost at 10^5 entries (docs/performance.md#store-size-reads-stay-flat-from-104-to-106-records).
    """
    times = {at: _iso(at) for at in set(ats)}
    shapes: dict[tuple[str, str, str, str, bool, bool, bool], ReportEntry] = {}
    entries: list[ReportEntry] = []
    for rid, node, kind, disposition, at, was_changed, root, late in zip(
            ids, nodes, kinds, dispositions, ats, changed, roots, lates, strict=True):
        shape = (node, kind, disposition, at, was_changed, root, late)
        model = shapes.get(shape)
        if model is None:
            model = shapes[shape] = ReportEntry(
                id=rid, node=NodeType(node), kind=kind or None,
                disposition=Disposition(disposition), at=times[at], changed=was_changed,
                root=root, late=late)
            entries.append(model)
        else:
            entries.append(model.model_copy(update={"id": rid}))
    return tuple(entries)


verify_deletion = report
