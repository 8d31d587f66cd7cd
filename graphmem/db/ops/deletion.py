"""Deletion's reads, and the writes it makes outside an erasure's transaction
(docs/spec/deletion.md): the roots and the walk a plan is made from, the term scans, the
request as a verification reads it, plans kept between review and apply.

:class:`DeletionOps` runs each operation as a statement of its own; :meth:`DeletionOps.
transaction` runs an erasure's transaction, whose operations are :class:`~graphmem.db.ops.
erasure.ErasureTx`'s. The tenant text scan runs in either (:class:`TextSource`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypedDict, TypeVar

if TYPE_CHECKING:
    from graphmem.db.ops.erasure import ErasureTx
    from graphmem.db.store import Neo4jStore

__all__ = ["DeletionOps", "LoggedQuery", "LoggedRetrieval", "ReachSource",
           "RootNode", "TermScanRow", "TextRow", "TextSource", "VerifyRow", "WalkColumns",
           "WalkSource", "text_row"]

T = TypeVar("T")


class RootNode(NamedTuple):
    """A deletion root as found by id or by subject scope.

    Attributes:
        id: the id asked for. node: ``record``, ``intention``, or None when no node has it.
        kind: the record's kind (None for an intention). tenant: its tenant.
        erased: an earlier request erased it.
    """

    id: str
    node: str | None
    kind: str | None
    tenant: str | None
    erased: bool


class WalkColumns(NamedTuple):
    """The one deletion walk's row (``cypher/deletion/walk.cypher``): parallel lists.

    Attributes:
        ids, kinds, erased, depths, parents: per descendant (depth: shortest distance below
            a root; parents: its DERIVED_FROM parent ids).
        term_ids, term_texts: descendants that may hold a term, with their texts.
        cited, citer, edge, citer_kind, citer_erased: per EVIDENCED_BY or SELECTED edge into
            a root or a descendant (``edge``: the relationship type).
    """

    ids: list[str]
    kinds: list[str]
    erased: list[bool]
    depths: list[int]
    parents: list[list[str]]
    term_ids: list[str]
    term_texts: list[list[str]]
    cited: list[str]
    citer: list[str]
    edge: list[str]
    citer_kind: list[str]
    citer_erased: list[bool]


class TermScanRow(NamedTuple):
    """A record or intention of the tenants that may hold a redaction term.

    Attributes:
        id: its id. node: ``record`` or ``intention``. kind: the record's kind.
        tenant: its tenant. texts: its texts, in ``cypher/deletion/term_scan.cypher``'s order.
    """

    id: str
    node: str
    kind: str | None
    tenant: str | None
    texts: list[str]


class LoggedQuery(NamedTuple):
    """A logged retrieval's id and query text (None: not logged)."""

    id: str
    query: str | None


class LoggedRetrieval(TypedDict):
    """Who a logged retrieval was made for: its id, tenant, ``clearance`` and ``scope_json``
    (a mapping, as :func:`graphmem.deletion.reach.retrieval_within` reads it)."""

    id: str
    tenant: str | None
    clearance: str | None
    scope_json: str | None


class TextRow(NamedTuple):
    """One string property of the tenants' graph that the scan's narrowing passed
    (``cypher/deletion/tenant_text.cypher``).

    Attributes:
        eid: the node's or relationship's element id. rel: a relationship.
        labels: the node's labels, or ``[type]``. key, value: the property.
        owner: the node's id (a relationship's: its start node's). live_record: on a Record
            that is not erased. held: quarantined or pending recompute.
    """

    eid: str
    rel: bool
    labels: list[str]
    key: str
    value: Any
    owner: Any
    live_record: bool
    held: bool


def text_row(row: Mapping[str, Any]) -> TextRow:
    """A row of ``deletion/tenant_text`` as a :class:`TextRow`."""
    return TextRow(eid=row["eid"], rel=row["rel"], labels=list(row["labels"]), key=row["key"],
                   value=row["value"], owner=row["owner"], live_record=row["live_record"],
                   held=row["held"])


class VerifyRow(NamedTuple):
    """What the verification and the report read of a request, in one pass over what it
    disposed of (``cypher/deletion/verify.cypher``).

    Attributes:
        request: the request node's properties (as the driver returns them).
        disposed: nodes it disposed of. Then the ids that fail each structural check.
        ids ... roots: the disposed nodes as parallel lists ordered by id: id,
            ``record``/``intention``, kind (``''`` for none), disposition, when (ISO text),
            changed, root. lates: whether each was late (not in the plan: written after
            planning and redacted by the apply's last scan).
    """

    request: dict[str, Any]
    disposed: int
    deleted_with_content: list[str]
    intentions_not_cancelled: list[str]
    recompute_not_pending: list[str]
    quarantine_released: list[str]
    ids: list[str]
    nodes: list[str]
    kinds: list[str]
    dispositions: list[str]
    ats: list[str]
    changed: list[bool]
    roots: list[bool]
    lates: list[bool]


class WalkSource(Protocol):
    """Where a deletion walk runs (:class:`DeletionOps`, or a stand-in in unit tests)."""

    def walk(self, roots: Sequence[str], pattern: str | None) -> WalkColumns:
        """The one DERIVED_FROM walk below record ids ``roots`` (see :meth:`DeletionOps.
        walk`)."""
        ...

    def outside_parents(self, ids: Sequence[str]) -> tuple[set[str], set[str]]:
        """(those of ``ids`` that name a stored record, those of them an earlier request
        erased): see :meth:`DeletionOps.outside_parents`."""
        ...


class ReachSource(Protocol):
    """Who logged retrievals were made for (:class:`DeletionOps`, or a stand-in)."""

    def retrieval_reach(self, ids: Sequence[str]) -> list[LoggedRetrieval]:
        """Who each logged retrieval among ``ids`` was made for."""
        ...


class TextSource(Protocol):
    """Where the tenant text scan runs: statements of their own (:class:`DeletionOps`) or an
    erasure's transaction (:class:`~graphmem.db.ops.erasure.ErasureTx`)."""

    def tenant_retrievals(self, tenants: Sequence[str], clearances: Sequence[str]
                          ) -> list[LoggedRetrieval]:
        """The tenants' logged retrievals made with one of ``clearances``, by id."""
        ...

    def tenant_text(self, tenants: Sequence[str], *, pattern: str | None,
                    after: datetime | None, skip: Sequence[str],
                    reach: dict[str, Any] | None) -> list[TextRow]:
        """The tenants' string properties the narrowing ``pattern`` passes (see the file)."""
        ...


class DeletionOps:
    """Deletion's operations on ``store``, each a statement (or transaction) of its own.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    # -- planning -------------------------------------------------------------------------

    def subject_roots(self, tenant: str, subject_pairs: Sequence[str]) -> list[RootNode]:
        """The tenant's records and intentions whose scope holds every pair, by id."""
        return [RootNode(**row) for row in self.store.read(
            "deletion/subject_roots", tenant=tenant, subject_pairs=list(subject_pairs))]

    def roots_by_id(self, ids: Sequence[str]) -> list[RootNode]:
        """One root per id asked for (``node`` None: no record or intention has it)."""
        return [RootNode(**row) for row in self.store.read("deletion/roots_by_id",
                                                            ids=list(ids))]

    def walk(self, roots: Sequence[str], pattern: str | None) -> WalkColumns:
        """The one DERIVED_FROM walk below record ids ``roots``; ``pattern``: the narrowing
        of the descendants that may hold a term (None: no terms)."""
        row = self.store.read_values("deletion/walk", roots=list(roots), pattern=pattern)[0]
        return WalkColumns(**{k: row[k] or [] for k in WalkColumns._fields})

    def outside_parents(self, ids: Sequence[str]) -> tuple[set[str], set[str]]:
        """Of ``ids`` (the walk's parents outside it): (those that name a stored record,
        those of them that an earlier request erased)."""
        row = self.store.read("deletion/outside_parents", ids=list(ids))[0]
        return set(row["stored"]), set(row["erased"])

    def term_scan(self, tenants: Sequence[str], pattern: str | None,
                  reach: dict[str, Any] | None) -> list[TermScanRow]:
        """The tenants' records and intentions the narrowing ``pattern`` passes (``reach``:
        a confined caller's pairs and rank, see the file), by id."""
        return [TermScanRow(**row) for row in self.store.read(
            "deletion/term_scan", tenants=list(tenants), pattern=pattern, reach=reach)]

    def logged_queries(self, tenants: Sequence[str], pattern: str | None) -> list[LoggedQuery]:
        """The tenants' logged retrievals whose query the narrowing passes, by id."""
        return [LoggedQuery(**row) for row in self.store.read(
            "deletion/retrievals", pattern=pattern, tenants=list(tenants))]

    def retrieval_reach(self, ids: Sequence[str]) -> list[LoggedRetrieval]:
        """Who each logged retrieval among ``ids`` was made for."""
        return [LoggedRetrieval(**row) for row in self.store.read(  # type: ignore[typeddict-item]
            "deletion/retrieval_reach", ids=list(ids))]

    # -- the tenant text scan (TextSource) ------------------------------------------------

    def tenant_retrievals(self, tenants: Sequence[str], clearances: Sequence[str]
                          ) -> list[LoggedRetrieval]:
        """See :class:`TextSource`."""
        return [LoggedRetrieval(**row) for row in self.store.read(  # type: ignore[typeddict-item]
            "deletion/tenant_retrievals", tenants=list(tenants), clearances=list(clearances))]

    def tenant_text(self, tenants: Sequence[str], *, pattern: str | None,
                    after: datetime | None, skip: Sequence[str],
                    reach: dict[str, Any] | None) -> list[TextRow]:
        """See :class:`TextSource`."""
        return [text_row(row) for row in self.store.read(
            "deletion/tenant_text", tenants=list(tenants), pattern=pattern, after=after,
            skip=list(skip), reach=reach)]

    # -- requests -------------------------------------------------------------------------

    def request(self, request_id: str) -> dict[str, Any] | None:
        """The request node's properties (None: no such request)."""
        rows = self.store.read("deletion/request/get", id=request_id)
        return dict(rows[0]["request"]) if rows else None

    def verify(self, request_id: str) -> VerifyRow | None:
        """What the verification reads of the request (None: no such request)."""
        rows = self.store.read_values("deletion/verify", id=request_id)
        return VerifyRow(**rows[0]) if rows else None

    def store_plan(self, *, request_id: str, version: int, digest: str, requested_by: str,
                   reason: str, tenants: Sequence[str], redact_term_count: int,
                   planned_at: datetime, owner: str, expires_at: datetime, plan_json: str,
                   reach_json: str | None) -> None:
        """Keep a reviewed plan as a ``planned`` request (its terms only as digests).

        Raises:
            ConstraintViolationError: the request id is already stored.
        """
        self.store.write("deletion/request/plan_store", id=request_id, version=version,
                         digest=digest, requested_by=requested_by, reason=reason,
                         tenants=list(tenants), redact_term_count=redact_term_count,
                         planned_at=planned_at, owner=owner, expires_at=expires_at,
                         plan_json=plan_json, reach_json=reach_json)

    def request_by_digest(self, digest: str) -> dict[str, Any] | None:
        """The properties of the request whose plan has this digest (None: none)."""
        rows = self.store.read("deletion/request/by_digest", digest=digest)
        return dict(rows[0]["request"]) if rows else None

    # -- transactions ---------------------------------------------------------------------

    def atomic(self, name: str, work: Callable[[ErasureTx], T]) -> T:
        """Run ``work`` in one write transaction (retried as a whole on transient errors;
        ``name`` tags it for ``SHOW TRANSACTIONS``); its operations are ``ErasureTx``'s.

        Raises:
            whatever ``work`` raises (graphmem errors pass through; the transaction rolls
            back), and the driver's errors, translated.
        """
        from graphmem.db.ops.erasure import ErasureTx  # it builds on this module's rows

        result: T = self.store.transaction(name, lambda tx: work(ErasureTx(self.store, tx)))
        return result
