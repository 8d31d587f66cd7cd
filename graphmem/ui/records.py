"""The records list and the record page of the inspector (docs/ui.md).

The list is the principal's eligible records, newest first
(:meth:`graphmem.db.browse.Browsing.recent`, the query behind the MCP server's listing), in
the chosen tenant and scope; kind, authority and creation time filter the pages it reads, at
most :data:`SCAN_LIMIT` records per page shown. The record page asks the bound client for
the record, its history, its explanation at a chosen time, its conflict partners and its
derivation neighbours: an id out of reach is a 404, as an unknown one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from graphmem.client import store_of
from graphmem.db.browse import MAX_PAGE
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.fields import parse_pairs
from graphmem.models import Authority, MemoryKind, MemoryRecord
from graphmem.ui.web import UiState, confirmed_write, form_int, form_time, page, state_of

__all__ = ["PAGE_SIZE", "SCAN_LIMIT", "RecordFilter", "record_page", "records_page",
           "retract_action"]

PAGE_SIZE = 50
"""Records one page of the list shows."""
SCAN_LIMIT = 5000
"""Most records the list reads to fill one page (filters that match rarely stop there)."""


@dataclass(frozen=True)
class RecordFilter:
    """The list's filters as the form gives them (all optional).

    Attributes:
        tenant: the tenant (default: the principal's only one). scope: extra ``KEY=VALUE``
        pairs. kind, authority: one value each or empty. after, before: creation time bounds
        (aware UTC). start: how many eligible records earlier pages read.
    """

    tenant: str = ""
    scope: dict[str, str] | None = None
    kind: str = ""
    authority: str = ""
    after: datetime | None = None
    before: datetime | None = None
    start: int = 0

    @classmethod
    def from_query(cls, query: dict[str, str]) -> RecordFilter:
        """The filters of a query string. Raises ValidationError for a bad value."""
        kind, authority = query.get("kind", ""), query.get("authority", "")
        if kind and kind not in {k.value for k in MemoryKind}:
            raise ValidationError(f"unknown kind {kind!r}")
        if authority and authority not in {a.value for a in Authority}:
            raise ValidationError(f"unknown authority {authority!r}")
        pairs = parse_pairs(query.get("scope", "").split(), "scope")
        return cls(tenant=query.get("tenant", ""), scope=pairs, kind=kind,
                   authority=authority, after=form_time(query.get("after"), "after"),
                   before=form_time(query.get("before"), "before"),
                   start=form_int(query.get("start"), "start", 0, 0, 10**9))

    @property
    def filtering(self) -> bool:
        """True when kind, authority or time filters the eligible records."""
        return bool(self.kind or self.authority or self.after or self.before)

    def matches(self, record: MemoryRecord) -> bool:
        """True if ``record`` passes the kind, authority and time filters."""
        return ((not self.kind or record.kind.value == self.kind)
                and (not self.authority or record.authority.value == self.authority)
                and (self.after is None or record.created_at >= self.after)
                and (self.before is None or record.created_at < self.before))


def _scan(state: UiState, wanted: RecordFilter, scope: dict[str, str], now: datetime
          ) -> Iterator[tuple[int, MemoryRecord]]:
    """(position after it, record) of each eligible record from ``wanted.start`` on."""
    offset = wanted.start
    # without a filter one page needs PAGE_SIZE records; with one, read in the largest pages
    size = MAX_PAGE if wanted.filtering else PAGE_SIZE
    while offset < wanted.start + SCAN_LIMIT:
        batch = store_of(state.memory).recent(state.config.principal, scope, now,
                                          limit=size, offset=offset)
        for i, record in enumerate(batch):
            yield offset + i + 1, record
        if len(batch) < size:
            return
        offset += len(batch)


def records_page(request: Request) -> Response:
    """``/records``: the eligible records in reach, filtered and paged."""
    state = state_of(request)
    wanted = RecordFilter.from_query(dict(request.query_params))
    scope = {**state.config.query_scope(wanted.tenant or None), **(wanted.scope or {})}
    if scope.get("tenant") not in state.config.principal.tenants:
        raise AuthorizationError("that tenant is outside the inspector's principal")
    now = store_of(state.memory).clock()
    shown: list[MemoryRecord] = []
    next_start: int | None = None
    scanned_to = wanted.start
    for position, record in _scan(state, wanted, scope, now):
        scanned_to = position
        if wanted.matches(record):
            shown.append(record)
            if len(shown) == PAGE_SIZE:
                next_start = position
                break
    else:
        if scanned_to >= wanted.start + SCAN_LIMIT:
            next_start = scanned_to
    counts = store_of(state.memory).reach_counts(state.config.principal, scope, now)
    query = {k: v for k, v in request.query_params.items() if k != "start" and v}
    return page(request, "records.html", title="Records", records=shown, counts=counts,
                scope=scope, filters=wanted, query=query, next_start=next_start,
                kinds=[k.value for k in MemoryKind],
                authorities=[a.value for a in Authority],
                tenants=sorted(state.config.principal.tenants))


def _conflicts(state: UiState, record: MemoryRecord, at: datetime) -> list[MemoryRecord]:
    """Eligible records of the record's scope asserting its key with another value."""
    if record.asserts is None:
        return []
    return [c for c in state.memory.candidates(scope=dict(record.scope), now=at)
            if c.asserts == record.asserts and c.asserted_value != record.asserted_value
            and c.id != record.id]


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
    return RedirectResponse(f"/records/{record_id}", status_code=303)


def home_page(request: Request) -> HTMLResponse:
    """``/``: where to go."""
    state = state_of(request)
    return page(request, "home.html", title="graphmem inspector",
                report=state.config.report)
