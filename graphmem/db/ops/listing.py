"""The inspector's record list, kept cheap at a large store (docs/ui.md): the sort keys of the
records a caller may reach, and how many of them carry each flag, reused while the versions of
the Scopes they were read at are the same.

Every query that changes, creates or erases a record moves the version of its Scope (its
ScopeVersion's ``rev``, or, a policy write, its write slot's ``seq``;
``tests/unit/db/test_catalogue.py`` checks it), so while the versions of the Scopes a query scope
sees are unchanged, so is the set of records it reaches, with their ids, creation times, kinds,
authorities and flags. A page then reads the versions (``cypher/listing/versions.cypher``,
index seeks, no record), picks the next keys in Python, and reads the rows it shows with their
status at ``now`` (``cypher/listing/rows.cypher``; the status depends on the time and on
successors, so it is never kept). With the keys, the list keeps the facts a status depends on
besides the time and the successors (the status flags, ``valid_from``, ``expires_at``, whether any
record supersedes it), so a status filter first keeps the records whose own facts give that
status at ``now`` (:func:`may_have`, the precedence of ``cypher/parts/record_status.cypher``; a
SUPERSEDED one needs a successor, an ACTIVE one none that counts) and reads rows of those only:
a page filtered by a rare status reads a few rows, not every record in reach. The rows query
still computes each status in full (successors included) and drops a row of another one, so the
page is exact; the facts only spare the reads.
"""

from __future__ import annotations

import json
import threading
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from graphmem.db.access import ScopeQuery
from graphmem.db.browse import (
    MAX_PAGE,
    PREVIEW_CHARS,
    ListingCursor,
    ListingFilter,
    ListingPage,
    ListingRow,
)
from graphmem.db.codec import to_native
from graphmem.db.slots import SLOTS
from graphmem.errors import ValidationError
from graphmem.models import Principal, Status

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["FLAG_STATUSES", "MAX_KEPT", "ListingOps", "ListingView", "StatusFacts", "may_have"]

MAX_KEPT = 64
"""Most query scopes whose keys and counts one :class:`ListingOps` keeps."""
FLAG_STATUSES = (Status.ERASED, Status.QUARANTINED, Status.PENDING_RECOMPUTE, Status.RETRACTED)
"""The statuses a record property of the same name (lower case) decides, first in the
precedence (``cypher/parts/record_status.cypher``)."""


@dataclass(frozen=True)
class _Keys:
    """The reachable records' keys, newest first: ids, creation times (aware UTC), kinds,
    authorities, and the facts of each record's status (``cypher/listing/keys.cypher``: the
    flags by property name, ``valid_from`` and ``expires_at`` (aware UTC or None),
    ``superseded``)."""

    ids: list[str]
    created: list[datetime]
    kinds: list[str]
    authorities: list[str]
    facts: list[StatusFacts]


class ListingOps:
    """Record list reads on ``store`` for one process (the inspector's), with what it keeps.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._keys: dict[tuple[Any, ...], tuple[tuple[str, ...], _Keys]] = {}
        self._flags: dict[tuple[Any, ...], tuple[tuple[str, ...], dict[str, int]]] = {}

    def view(self, principal: Principal, scope: dict[str, str], now: datetime) -> ListingView:
        """What ``principal`` reaches in ``scope`` at ``now``, as of the Scope versions read
        now (one query, no record read).

        Raises:
            ValidationError, AuthorizationError: as :meth:`ScopeQuery.build`.
        """
        reach = ScopeQuery.build(principal, scope, now, self.store.limits)
        params = reach.params()
        key = (params["tenant"], tuple(params["pairs"]), params["clearance"])
        versions = self.store.reach_versions(principal, scope, now)
        return ListingView(self, reach, key, versions)

    def kept_keys(self, view: ListingView) -> _Keys:
        """The keys of ``view``'s reach: kept ones while its versions are the same, else
        read again (with the versions they are read at)."""
        with self._lock:
            kept = self._keys.get(view.key)
        if kept is not None and kept[0] == view.versions:
            return kept[1]
        params = view.reach.params()
        del params["now"]
        row = self.store.read_values("listing/keys", slots=SLOTS, **params)[0]
        keys = _Keys(list(row["ids"]), [to_native(t) for t in row["created"]],
                     list(row["kinds"]), list(row["authorities"]),
                     [StatusFacts.of({k: to_native(v) for k, v in f.items()}, to_native(at))
                      for f, at in zip(row["facts"], row["created"], strict=True)])
        versions = tuple(sorted(json.dumps(v, sort_keys=True) for v in row["versions"]))
        self._keep(self._keys, view.key, (versions, keys))
        return keys

    def kept_flags(self, view: ListingView) -> dict[str, int]:
        """The flag counts of ``view``'s reach: kept ones while its versions are the same."""
        with self._lock:
            kept = self._flags.get(view.key)
        if kept is not None and kept[0] == view.versions:
            return dict(kept[1])
        r = view.reach
        counts = self.store.reach_flags(r.principal, dict(r.scope), r.now)
        # kept with the versions read before the count: never older than the count
        self._keep(self._flags, view.key, (view.versions, counts))
        return dict(counts)

    def _keep(self, where: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> None:
        with self._lock:
            where.pop(key, None)
            where[key] = value
            while len(where) > MAX_KEPT:
                where.pop(next(iter(where)))


@dataclass(frozen=True)
class ListingView:
    """A query scope's reach as of the Scope versions :meth:`ListingOps.view` read."""

    ops: ListingOps
    reach: ScopeQuery
    key: tuple[Any, ...]
    versions: tuple[str, ...]

    def flag_counts(self) -> dict[str, int]:
        """:meth:`graphmem.db.browse.Browsing.reach_flags`, counted again only when a
        version moved."""
        return self.ops.kept_flags(self)

    def page(self, where: ListingFilter | None = None, after: ListingCursor | None = None,
             limit: int = 50) -> ListingPage:
        """:meth:`graphmem.db.browse.Browsing.listing`'s page (same rows, same order, same
        cursor), read from the kept keys: rows are read only for the records the filter's
        kind, authority, times and (by :func:`may_have`) status may keep.

        Raises:
            ValidationError: as :meth:`graphmem.db.browse.Browsing.listing`.
        """
        where = where or ListingFilter()
        store, r = self.ops.store, self.reach
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"limit must be an integer from 1 to {MAX_PAGE}")
        status = where.params()["status"]
        wanted = None if where.status is None else Status(where.status)
        keys = self.ops.kept_keys(self)
        # checked lazily: a page looks at the records up to its last row, not at all of them
        order = (i for i in _positions(keys, after) if _kept(keys, i, where)
                 and (wanted is None or may_have(keys.facts[i], wanted, r.now)))
        rows: list[ListingRow] = []
        params = r.params()
        size = limit + 1
        while len(rows) <= limit:
            batch = [keys.ids[i] for i in islice(order, size)]
            if not batch:
                break
            found = {row["id"]: row for row in store.read_values(
                "listing/rows", ids=batch, status=status, preview=PREVIEW_CHARS,
                **params)}
            rows.extend(_row(found[rid]) for rid in batch if rid in found)
            size *= 2
        more = len(rows) > limit
        rows = rows[:limit]
        return ListingPage(rows, ListingCursor(rows[-1].created_at, rows[-1].id)
                           if more else None)


def _positions(keys: _Keys, after: ListingCursor | None) -> range:
    """The positions in ``keys`` strictly after the cursor (newest-first order)."""
    if after is None:
        return range(len(keys.ids))
    # the keys run newest first, so "strictly before the cursor" is False and then True along
    # them: the first True by binary search, with no copy of the keys
    cursor = (after.created_at, after.record_id)
    first = bisect_left(range(len(keys.ids)), True,
                        key=lambda i: (keys.created[i], keys.ids[i]) < cursor)
    return range(first, len(keys.ids))


def _kept(keys: _Keys, i: int, where: ListingFilter) -> bool:
    return ((where.kind is None or keys.kinds[i] == where.kind)
            and (where.authority is None or keys.authorities[i] == where.authority)
            and (where.created_after is None or keys.created[i] >= where.created_after)
            and (where.created_before is None or keys.created[i] < where.created_before))


@dataclass(frozen=True, slots=True)
class StatusFacts:
    """What a record's status depends on besides the time and its successors, as the list
    keeps it: ``flag``, the first status flag it carries in the precedence
    (:data:`FLAG_STATUSES`) or None; ``live_from``, when it is created and valid (the later of
    ``created_at`` and ``valid_from``, aware UTC); ``expires_at`` (aware UTC or None);
    ``superseded``, whether any record supersedes it."""

    flag: Status | None
    live_from: datetime
    expires_at: datetime | None
    superseded: bool

    @classmethod
    def of(cls, facts: dict[str, Any], created_at: datetime) -> StatusFacts:
        """From ``cypher/listing/keys.cypher``'s ``facts`` map of a record created at
        ``created_at`` (times aware UTC)."""
        flag = next((s for s in FLAG_STATUSES if facts.get(s.value.lower())), None)
        valid_from = facts.get("valid_from")
        return cls(flag, created_at if valid_from is None else max(created_at, valid_from),
                   facts.get("expires_at"), bool(facts.get("superseded")))


def may_have(facts: StatusFacts, status: Status, now: datetime) -> bool:
    """Whether a record of these facts may have ``status`` at ``now`` (aware UTC) for some
    caller: its own facts give ``status`` by the precedence of
    ``cypher/parts/record_status.cypher`` (docs/status.md: a flag, then not yet valid, then
    expired), except that a record they give ACTIVE may be SUPERSEDED when some record
    supersedes it (whether that successor counts for the caller at ``now`` is the rows
    query's). False means it cannot; True, that only the full status can tell.
    """
    if facts.flag is not None:
        own = facts.flag
    elif now < facts.live_from:
        own = Status.NOT_YET_VALID
    elif facts.expires_at is not None and now >= facts.expires_at:
        own = Status.EXPIRED
    else:
        own = Status.ACTIVE
    if status is Status.SUPERSEDED:
        return own is Status.ACTIVE and facts.superseded
    return own is status


def _row(row: dict[str, Any]) -> ListingRow:
    return ListingRow(id=row["id"], kind=row["kind"], authority=row["authority"],
                      status=row["status"], created_at=to_native(row["created_at"]),
                      sensitivity=row["sensitivity"],
                      scope=json.loads(row["scope_json"]) if row["scope_json"] else {},
                      preview=row["preview"] or "")
