"""The deletion pages of the inspector: plan and preview, apply (writes only), report and
certificate (docs/ui.md; docs/spec/deletion.md).

A preview is :meth:`graphmem.Memory.plan_deletion` (reads only) grouped by disposition; the
plan is kept in the process (:meth:`UiState.keep_plan`) until it is applied or dropped. Apply
exists only when the inspector was started with ``--allow-writes``: the form carries the
process's token and a confirmation, and the request is recorded with the inspector's author
(:meth:`UiConfig.author`) as ``requested_by``. The certificate is issued on its first read,
which writes to the store: it is offered with writes only.
"""

from __future__ import annotations

import urllib.parse
from collections import defaultdict

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from graphmem.deletion import Disposition, PlanEntry
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.fields import parse_pairs
from graphmem.ui.web import confirmed_write, own_site_only, page, state_of

__all__ = ["apply_action", "certificate_page", "deletion_form", "plan_page", "report_page"]

DISPOSITION_TEXT = {
    Disposition.DELETE: "erased: content and properties removed, a tombstone kept",
    Disposition.RECOMPUTE: "derived from an erased record: held out of retrieval until "
                           "recomputed from what remains",
    Disposition.REDACT: "mentions an erased term: the term is cut out of its content",
    Disposition.QUARANTINE: "cites an erased record: held out of retrieval for review",
}
"""What each disposition will do, as the preview says it."""


def deletion_form(request: Request) -> Response:
    """``/deletion``: the planning form (roots or a subject), prefilled from the query."""
    return page(request, "deletion_form.html", title="Plan a deletion",
                roots=request.query_params.get("roots", ""),
                subject=request.query_params.get("subject", ""))


def plan_page(request: Request) -> Response:
    """``/deletion/plan?roots=|subject=&reason=&terms=``: the plan's preview, by disposition
    (nothing is written)."""
    own_site_only(request, "plan a deletion")
    state = state_of(request)
    query = request.query_params
    roots = query.get("roots", "").split()
    subject_text = query.get("subject", "").strip()
    reason = query.get("reason", "").strip() or "previewed in the inspector"
    terms = [t.strip() for t in query.get("terms", "").split(",") if t.strip()]
    if bool(roots) == bool(subject_text):
        raise ValidationError("give either root record ids or a subject (KEY=VALUE pairs)")
    subject = parse_pairs(subject_text.split(), "subject") if subject_text else None
    if subject is not None:
        subject = {**state.config.query_scope(subject.get("tenant")), **subject}
    plan = state.memory.plan_deletion(roots or None, subject, terms,
                                      requested_by=state.config.author(), reason=reason)
    groups: dict[str, list[PlanEntry]] = defaultdict(list)
    for entry in plan.entries:
        groups[entry.disposition.value].append(entry)
    if state.config.allow_writes:
        state.keep_plan(plan)
    return page(request, "deletion_plan.html", title="Deletion preview", plan=plan,
                groups={d.value: groups.get(d.value, []) for d in Disposition},
                texts={d.value: t for d, t in DISPOSITION_TEXT.items()})


async def apply_action(request: Request) -> Response:
    """``POST /deletion/apply`` (writes only): apply the previewed plan after confirmation,
    then show its report."""
    state, form = await confirmed_write(request, "apply the deletion")
    plan = state.take_plan(str(form.get("request_id") or ""))
    report = await run_in_threadpool(state.memory.apply_deletion, plan)
    return RedirectResponse("/deletion/requests/" + urllib.parse.quote(report.request.id),
                            status_code=303)


def report_page(request: Request) -> Response:
    """``/deletion/requests/{id}``: an applied request's report, verified afresh."""
    state = state_of(request)
    report = state.memory.verify_deletion(request.path_params["request_id"])
    return page(request, "deletion_report.html", title="Deletion report", report=report)


def certificate_page(request: Request) -> Response:
    """``/deletion/requests/{id}/certificate`` (writes only: the first read issues it): the
    erasure certificate as JSON."""
    own_site_only(request, "issue a certificate")
    state = state_of(request)
    if not state.config.allow_writes:
        raise AuthorizationError("certificates are issued on first read: start the "
                                 "inspector with --allow-writes")
    cert = state.memory.deletion_certificate(request.path_params["request_id"])
    return page(request, "certificate.html", title="Erasure certificate",
                request_id=request.path_params["request_id"], text=cert.to_json())
