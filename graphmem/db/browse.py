"""Browsing what a caller can see (docs/spec/eligibility.md#eligible-and-active): the newest
eligible records, a page at a time, and how many records are within reach (part of
:class:`~graphmem.db.store.Neo4jStore`). Eligibility is the candidates query's
(``cypher/records/recent.cypher`` and ``cypher/records/reach_counts.cypher`` put in the same
parts); :class:`~graphmem.db.access.ScopeQuery` checks the principal and scope.

:meth:`Browsing.listing` is the inspector's list (docs/ui.md): every record the caller may
reach, whatever its status, filtered and keyset-paged in the query
(``cypher/listing/page.cypher``), each row only what a list shows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from graphmem.db.access import ScopeQuery
from graphmem.db.base import StoreBase
from graphmem.db.codec import record_from_props, require_aware, to_native
from graphmem.db.slots import SLOTS
from graphmem.errors import ValidationError
from graphmem.fields import MAX_INT64
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Status

__all__ = ["LISTED_STATUSES", "MAX_PAGE", "PREVIEW_CHARS", "Browsing", "ListingCursor",
           "ListingFilter", "ListingPage", "ListingRow"]

MAX_PAGE = 200
"""Most records one page of :meth:`Browsing.recent` or :meth:`Browsing.listing` returns."""
PREVIEW_CHARS = 120
"""Characters of content a listing row carries."""
LISTED_STATUSES = tuple(s for s in Status
                        if s not in (Status.UNAUTHORIZED, Status.OUT_OF_SCOPE, Status.DISCARDED))
"""The statuses a reachable record can have (``parts/record_status``), in precedence order."""


@dataclass(frozen=True)
class ListingFilter:
    """What :meth:`Browsing.listing` keeps (every field optional: None keeps all).

    Attributes:
        kind: a :class:`~graphmem.models.MemoryKind`. authority: an
        :class:`~graphmem.models.Authority`. status: one of :data:`LISTED_STATUSES`, the
        record's status for the caller at the listing's time (docs/status.md).
        created_after, created_before: aware UTC bounds on ``created_at`` (``>=`` and ``<``).
    """

    kind: MemoryKind | None = None
    authority: Authority | None = None
    status: Status | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None

    def params(self) -> dict[str, object]:
        """The filter as the listing query's parameters.

        Raises:
            ValidationError: a status no reachable record has, or a naive time.
        """
        if self.status is not None and self.status not in LISTED_STATUSES:
            raise ValidationError(f"a listed record's status is one of "
                                  f"{', '.join(LISTED_STATUSES)}, not {self.status}")
        return {
            "kind": None if self.kind is None else MemoryKind(self.kind).value,
            "authority": None if self.authority is None else Authority(self.authority).value,
            "status": None if self.status is None else self.status.value,
            # what the record's own properties may say of a record of that status: a
            # successor only turns ACTIVE into SUPERSEDED (docs/status.md)
            "own_statuses": None if self.status is None else (
                [Status.SUPERSEDED.value, Status.ACTIVE.value]
                if self.status is Status.SUPERSEDED else [self.status.value]),
            "after": None if self.created_after is None
            else require_aware(self.created_after, "created_after"),
            "before": None if self.created_before is None
            else require_aware(self.created_before, "created_before"),
        }


@dataclass(frozen=True)
class ListingCursor:
    """Where a listing page ends: the last row's ``created_at`` (aware UTC) and id; the next
    page holds the records strictly before it in (created_at, id) descending order."""

    created_at: datetime
    record_id: str

    def token(self) -> str:
        """The cursor as one URL-safe text (``ISO-TIME,ID``; an ISO time holds no comma)."""
        return f"{self.created_at.isoformat()},{self.record_id}"

    @classmethod
    def parse(cls, text: str) -> ListingCursor:
        """The cursor of :meth:`token`'s text. Raises ValidationError when malformed."""
        at, sep, record_id = text.partition(",")
        try:
            created = datetime.fromisoformat(at)
        except ValueError:
            created = None
        if not sep or not record_id or created is None or created.tzinfo is None:
            raise ValidationError("a listing cursor is TIME,ID as a page's next link gives it")
        return cls(created, record_id)


@dataclass(frozen=True)
class ListingRow:
    """One listed record: what the list shows, no more.

    Attributes:
        id, kind, authority, sensitivity: the record's. status: its status for the caller at
        the listing's time. created_at: aware UTC. scope: its scope. preview: the first
        :data:`PREVIEW_CHARS` characters of its content (empty once erased).
    """

    id: str
    kind: str
    authority: str
    status: str
    created_at: datetime
    sensitivity: str
    scope: dict[str, str]
    preview: str


@dataclass(frozen=True)
class ListingPage:
    """One page of :meth:`Browsing.listing`: its rows, and the cursor of the next page
    (None when this is the last)."""

    rows: list[ListingRow]
    next: ListingCursor | None


class Browsing(StoreBase):
    """The newest eligible records and the counts within a caller's reach."""

    def recent(self, principal: Principal, scope: dict[str, str], now: datetime,
               *, limit: int = 20, offset: int = 0) -> list[MemoryRecord]:
        """The eligible ACTIVE records for ``principal`` in ``scope`` at ``now``, newest first
        (``created_at``, then id, both descending), skipping ``offset`` and at most ``limit``.

        Raises:
            ValidationError: ``limit`` outside 1..:data:`MAX_PAGE`, an ``offset`` outside
                0..2**63-1-``limit`` (the database's integers), or
                as :meth:`ScopeQuery.build`.
            AuthorizationError: the scope's tenant is not one of the principal's.
        """
        _check_limit(limit)
        # Neo4j adds SKIP to LIMIT: past a 64-bit integer, the driver or the database fails
        if isinstance(offset, bool) or not isinstance(offset, int) \
                or not 0 <= offset <= MAX_INT64 - limit:
            raise ValidationError(f"offset must be an integer from 0 to {MAX_INT64 - limit} "
                                  f"(2**63 - 1 less the limit)")
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        rows = self.read("records/recent", skip=offset, limit=limit, **params)
        return [record_from_props(row["record"]) for row in rows]

    def listing(self, principal: Principal, scope: dict[str, str], now: datetime, *,
                where: ListingFilter | None = None, after: ListingCursor | None = None,
                limit: int = 50) -> ListingPage:
        """The records ``principal`` may reach in ``scope`` (the visible Scopes and its
        clearance, docs/spec/eligibility.md; erased ones included, as tombstones), each with
        its status for that caller at ``now`` (as ``explain`` gives it), newest first
        (``created_at``, then id, both descending), those ``where`` keeps, from just after
        ``after`` on, at most ``limit`` of them. One query; the status is computed only for
        the rows the page reaches.

        Raises:
            ValidationError: ``limit`` outside 1..:data:`MAX_PAGE`, a bad filter
                (:meth:`ListingFilter.params`), or as :meth:`ScopeQuery.build`.
            AuthorizationError: the scope's tenant is not one of the principal's.
        """
        _check_limit(limit)
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        params.update((where or ListingFilter()).params())
        params.update(cursor_at=None if after is None else require_aware(after.created_at,
                                                                          "cursor time"),
                      cursor_id=None if after is None else after.record_id,
                      limit=limit + 1, preview=PREVIEW_CHARS)
        rows = [ListingRow(id=row["id"], kind=row["kind"], authority=row["authority"],
                           status=row["status"], created_at=to_native(row["created_at"]),
                           sensitivity=row["sensitivity"],
                           scope=json.loads(row["scope_json"]) if row["scope_json"] else {},
                           preview=row["preview"] or "")
                for row in self.read_values("listing/page", **params)]
        more = len(rows) > limit
        rows = rows[:limit]
        last = rows[-1] if more else None
        return ListingPage(rows, None if last is None
                           else ListingCursor(last.created_at, last.id))

    def reach_counts(self, principal: Principal, scope: dict[str, str],
                     now: datetime) -> dict[str, int]:
        """How many records ``principal`` sees in ``scope`` at ``now`` (erased ones left out):
        ``records`` (all), ``eligible`` (ACTIVE and eligible), ``quarantined``, ``retracted``.

        Raises:
            as :meth:`recent` (but for ``limit``/``offset``).
        """
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        row = self.read("records/reach_counts", **params)[0]
        return {key: int(row[key]) for key in ("records", "eligible", "quarantined", "retracted")}

    def reach_versions(self, principal: Principal, scope: dict[str, str],
                       now: datetime) -> tuple[str, ...]:
        """The versions of the Scopes ``principal`` sees in ``scope``, as one comparable
        value, reading no record (``cypher/listing/versions.cypher``): while it is the
        same, so is :meth:`reach_flags`' answer (every change to a record moves it).

        Raises:
            as :meth:`reach_counts`.
        """
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        del params["now"], params["clearance"]
        row = self.read_values("listing/versions", slots=SLOTS, **params)[0]
        return tuple(sorted(json.dumps(v, sort_keys=True) for v in row["versions"]))

    def reach_flags(self, principal: Principal, scope: dict[str, str],
                    now: datetime) -> dict[str, int]:
        """How many records ``principal`` sees in ``scope`` (erased ones left out), by flag:
        ``records`` (all), ``quarantined``, ``pending_recompute``, ``retracted``. One pass of
        property reads (how many are eligible is ``candidate_list``'s answer, kept while
        provably the same). ``now`` is checked as for :meth:`recent`.

        Raises:
            as :meth:`reach_counts`.
        """
        params = ScopeQuery.build(principal, scope, now, self.limits).params()
        del params["now"]
        row = self.read_values("listing/flags", **params)[0]
        return {key: int(row[key])
                for key in ("records", "quarantined", "pending_recompute", "retracted")}


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise ValidationError(f"limit must be an integer from 1 to {MAX_PAGE}")
