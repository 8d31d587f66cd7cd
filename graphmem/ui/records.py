"""The records list and the record page of the inspector (docs/ui.md).

The list is one page of :meth:`graphmem.db.browse.Browsing.listing` (read through
:class:`graphmem.db.ops.listing.ListingOps`, which keeps the reachable records' sort keys while
the Scope versions are the same): the records the principal may reach in the chosen tenant and
scope, newest first, filtered by kind, status (ACTIVE, i.e. eligible, unless another is
chosen), authority and creation time, and keyset-paged; each row is what the list shows, not
the record. Above it, how many records are in reach by flag (kept likewise) and how many are
eligible (the candidates answer the store keeps while it is provably the same). The record
page asks the bound client for the record, its history, its explanation at a chosen time, its
conflict partners and its derivation neighbours: an id out of reach is a 404, as an unknown
one.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from graphmem.client import store_of
from graphmem.db.browse import LISTED_STATUSES, ListingCursor, ListingFilter
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.fields import parse_pairs
from graphmem.models import Authority, MemoryKind, MemoryRecord, Status
from graphmem.ui.web import UiState, confirmed_write, form_time, page, state_of

__all__ = ["ANY_STATUS", "PAGE_SIZE", "RecordFilter", "record_page", "records_page",
           "retract_action"]

PAGE_SIZE = 50
"""Records one page of the list shows."""
ANY_STATUS = "any"
"""The status filter's value that keeps every status."""


@dataclass(frozen=True)
class RecordFilter:
    """The list's filters as the form gives them (all optional).

    Attributes:
        tenant: the tenant (default: the principal's only one). scope: extra ``KEY=VALUE``
        pairs. kind, authority: one value each or empty. status: one of
        :data:`graphmem.db.browse.LISTED_STATUSES` (default ``ACTIVE``: the eligible
        records) or :data:`ANY_STATUS`. after, before: creation time bounds (aware UTC).
        cursor: where the previous page ended (None: the first page).
    """

    tenant: str = ""
    scope: dict[str, str] | None = None
    kind: str = ""
    authority: str = ""
    status: str = Status.ACTIVE.value
    after: datetime | None = None
    before: datetime | None = None
    cursor: ListingCursor | None = None

    @classmethod
    def from_query(cls, query: dict[str, str]) -> RecordFilter:
        """The filters of a query string. Raises ValidationError for a bad value."""
        kind, authority = query.get("kind", ""), query.get("authority", "")
        status = query.get("status") or Status.ACTIVE.value
        if kind and kind not in {k.value for k in MemoryKind}:
            raise ValidationError(f"unknown kind {kind!r}")
        if authority and authority not in {a.value for a in Authority}:
            raise ValidationError(f"unknown authority {authority!r}")
        if status != ANY_STATUS and status not in {s.value for s in LISTED_STATUSES}:
            raise ValidationError(f"unknown status {status!r}")
        pairs = parse_pairs(query.get("scope", "").split(), "scope")
        cursor = query.get("cursor")
        return cls(tenant=query.get("tenant", ""), scope=pairs, kind=kind,
                   authority=authority, status=status,
                   after=form_time(query.get("after"), "after"),
                   before=form_time(query.get("before"), "before"),
                   cursor=ListingCursor.parse(cursor) if cursor else None)

    def listing(self) -> ListingFilter:
        """The filters as the store's listing takes them."""
        return ListingFilter(
            kind=MemoryKind(self.kind) if self.kind else None,
            authority=Authority(self.authority) if self.authority else None,
            status=None if self.status == ANY_STATUS else Status(self.status),
            created_after=self.after, created_before=self.before)


def records_page(request: Request) -> Response:
    """``/records``: the records in reach, filtered in the query and keyset-paged."""
    state = state_of(request)
    wanted = RecordFilter.from_query(dict(request.query_params))
    scope = {**state.config.query_scope(wanted.tenant or None), **(wanted.scope or {})}
    if scope.get("tenant") not in state.config.principal.tenants:
        raise AuthorizationError("that tenant is outside the inspector's principal")
    store = store_of(state.memory)
    now = store.clock()
    reach = state.lists.view(state.config.principal, scope, now)
    listed = reach.page(wanted.listing(), wanted.cursor, PAGE_SIZE)
    counts = {**reach.flag_counts(),
              "eligible": len(store.candidate_list(state.config.principal, scope, now).ids)}
    query = {k: v for k, v in request.query_params.items() if k != "cursor" and v}
    return page(request, "records.html", title="Records", records=listed.rows, counts=counts,
                scope=scope, filters=wanted, query=query,
                next_cursor=None if listed.next is None else listed.next.token(),
                kinds=[k.value for k in MemoryKind],
                authorities=[a.value for a in Authority],
                statuses=[s.value for s in LISTED_STATUSES], any_status=ANY_STATUS,
                tenants=sorted(state.config.principal.tenants))


def _conflicts(state: UiState, record: MemoryRecord, at: datetime) -> list[MemoryRecord]:
    """Eligible records of the record's scope asserting its key with another value (from the
    candidates answer the store keeps: only the candidates that assert a key are looked at)."""
    if record.asserts is None:
        return []
    answer = store_of(state.memory).candidate_list(state.config.principal,
                                                   dict(record.scope), at)
    return [c.record for c in answer.claims
            if c.record.asserts == record.asserts and c.record.tenant == record.tenant
            and c.record.asserted_value != record.asserted_value and c.record.id != record.id]


def _neighbours(state: UiState, record_id: str, at: datetime) -> list[dict[str, Any]]:
    """The records one lineage step away (parents, children), with the edge's type."""
    graph = state.memory.lineage(record_id, "both", 1, now=at)
    rows = []
    for source, target, attrs in graph.edges(data=True):
        if record_id not in (source, target):
            continue
        other = target if source == record_id else source
        node = graph.nodes[other]
        rows.append({"id": other, "edge": attrs.get("types", attrs.get("type", "")),
                     "way": "parent" if source == record_id else "child",
                     "kind": node.get("kind"), "status": node.get("status")})
    return sorted(rows, key=lambda r: (r["way"], r["id"]))


def record_page(request: Request) -> Response:
    """``/records/{id}``: content, provenance, history, explanation, conflicts, neighbours."""
    state = state_of(request)
    record_id = request.path_params["record_id"]
    record = state.memory.get(record_id)
    at = form_time(request.query_params.get("at"), "at") or store_of(state.memory).clock()
    explanation = state.memory.explain(record_id, scope=dict(record.scope), now=at)
    return page(request, "record.html", title=f"Record {record.id}", record=record,
                history=state.memory.history(record_id), explanation=explanation, at=at,
                conflicts=_conflicts(state, record, at),
                neighbours=_neighbours(state, record_id, at))


async def retract_action(request: Request) -> Response:
    """``POST /records/{id}/retract`` (only with writes allowed): retract after the form's
    confirmation, as the inspector's author."""
    state, form = await confirmed_write(request, "retract")
    reason = str(form.get("reason") or "").strip()
    if not reason:
        raise ValidationError("give a reason for the retraction")
    record_id = request.path_params["record_id"]
    state.memory.retract(record_id, by=state.config.author(), reason=reason)
    # quoted: a ``?``, ``#`` or ``%`` in the id led to another record's page
    return RedirectResponse("/records/" + urllib.parse.quote(record_id, safe="/"),
                            status_code=303)


def home_page(request: Request) -> HTMLResponse:
    """``/``: where to go."""
    state = state_of(request)
    return page(request, "home.html", title="graphmem inspector",
                report=state.config.report)
