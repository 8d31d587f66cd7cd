"""The operations of an erasure's transaction (docs/spec/deletion.md): lock and begin the
request, erase to tombstones, redact, mark, finish; redact the tenants' other texts; recompute
a record derived from erased content.

An :class:`ErasureTx` is handed to the work of :meth:`graphmem.db.ops.deletion.DeletionOps.
transaction`, which owns the transaction: every operation runs in it, in the order the work
calls them, and commits (or rolls back) with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from neo4j import ManagedTransaction

from graphmem.db.index_key import index_key
from graphmem.db.ops.deletion import LoggedQuery, LoggedRetrieval, TextRow, text_row
from graphmem.models import MemoryRecord

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["ElementIntention", "ElementRecord", "ErasureTx", "RecomputeCheck", "RequestState"]


class RequestState(NamedTuple):
    """A deletion request's state and plan digest, as locked or begun."""

    state: str | None
    digest: str | None


class ElementRecord(NamedTuple):
    """A record found by element id: the id and its stored properties."""

    eid: str
    record: dict[str, Any]


class ElementIntention(NamedTuple):
    """An intention found by element id: the id and its stored properties."""

    eid: str
    intention: dict[str, Any]


class RecomputeCheck(NamedTuple):
    """What a recompute checks of a record and the lineage it is given.

    Attributes:
        record: the record's stored properties.
        missing, erased: the given parent or evidence ids that name no record, or an erased
            one. descendants: the given ids that descend from the record.
    """

    record: dict[str, Any]
    missing: list[str]
    erased: list[str]
    descendants: list[str]


class ErasureTx:
    """The deletion operations inside one write transaction ``tx`` of ``store``."""

    def __init__(self, store: Neo4jStore, tx: ManagedTransaction) -> None:
        self.store = store
        self.tx = tx

    def _run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return self.store.run(self.tx, name, **params)

    # -- the request ----------------------------------------------------------------------

    def begin_request(self, request_id: str, props: Mapping[str, Any]) -> RequestState:
        """Create the request (or take over its planned node) with ``props``; its state now."""
        return RequestState(**self._run("deletion/request/begin", id=request_id,
                                        props=dict(props))[0])

    def lock_request(self, request_id: str) -> RequestState | None:
        """Lock the request for this transaction (None: no such request)."""
        rows = self._run("deletion/request/lock", id=request_id)
        return RequestState(**rows[0]) if rows else None

    def finish_request(self, request_id: str, at: datetime) -> None:
        """Mark the request applied at ``at``."""
        self._run("deletion/request/finish", id=request_id, at=at)

    # -- a batch of entries ---------------------------------------------------------------

    def erase_records(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                      at: datetime, reason: str) -> None:
        """Erase records to tombstones; ``rows``: ``{"id", "root"}`` each."""
        self._run("deletion/erase_records", rows=list(rows), request_id=request_id, at=at,
                  reason=reason)

    def erase_intentions(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                         at: datetime, reason: str) -> None:
        """Cancel and erase intentions; ``rows``: ``{"id", "root"}`` each."""
        self._run("deletion/erase_intentions", rows=list(rows), request_id=request_id, at=at,
                  reason=reason)

    def records(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored properties of the records among ``ids``."""
        return [row["record"] for row in self._run("records/get", ids=list(ids))]

    def redact_records(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                       at: datetime) -> None:
        """Set records' redacted texts; ``rows``: ``{"id", <property>: value ...}``."""
        self._run("deletion/redact/records", rows=list(rows), request_id=request_id, at=at)

    def intentions(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored properties of the intentions among ``ids`` that are not erased."""
        return [row["intention"]
                for row in self._run("deletion/intentions_get", ids=list(ids))]

    def drop_vectors(self, ids: Sequence[str]) -> None:
        """Delete the embeddings of the LangGraph items among records ``ids``."""
        self._run("deletion/redact/vectors", ids=list(ids))

    def redact_intentions(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                          at: datetime) -> None:
        """Set intentions' redacted texts; ``rows``: ``{"id", "props"}`` (the action, cue,
        fingerprint and cue digest: :func:`graphmem.deletion.redaction.redact_intention`)."""
        self._run("deletion/redact/intentions", rows=list(rows), request_id=request_id, at=at)

    def mark(self, rows: Sequence[Mapping[str, Any]], *, request_id: str, at: datetime) -> None:
        """Mark nodes the request keeps; ``rows``: ``{"id", "disposition"}``."""
        self._run("deletion/mark", rows=list(rows), request_id=request_id, at=at)

    # -- the finish: retrievals and the tenants' other texts ------------------------------

    def retrieval_queries(self, ids: Sequence[str]) -> list[LoggedQuery]:
        """The logged query of each retrieval among ``ids``."""
        return [LoggedQuery(**row)
                for row in self._run("deletion/retrieval_queries", ids=list(ids))]

    def redact_retrievals(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                          at: datetime) -> None:
        """Set retrievals' redacted queries; ``rows``: ``{"id", "query"}``."""
        self._run("deletion/redact/retrievals", rows=list(rows), request_id=request_id, at=at)

    def tenant_retrievals(self, tenants: Sequence[str], clearances: Sequence[str]
                          ) -> list[LoggedRetrieval]:
        """See :class:`graphmem.db.ops.deletion.TextSource`."""
        return [LoggedRetrieval(**row) for row in self._run(  # type: ignore[typeddict-item]
            "deletion/tenant_retrievals", tenants=list(tenants), clearances=list(clearances))]

    def tenant_text(self, tenants: Sequence[str], *, pattern: str | None,
                    after: datetime | None, skip: Sequence[str],
                    reach: dict[str, Any] | None) -> list[TextRow]:
        """See :class:`graphmem.db.ops.deletion.TextSource`."""
        return [text_row(row) for row in self._run(
            "deletion/tenant_text", tenants=list(tenants), pattern=pattern, after=after,
            skip=list(skip), reach=reach)]

    def records_by_element(self, eids: Sequence[str]) -> list[ElementRecord]:
        """The records with these element ids."""
        return [ElementRecord(**row)
                for row in self._run("deletion/records_by_element", eids=list(eids))]

    def intentions_by_element(self, eids: Sequence[str]) -> list[ElementIntention]:
        """The intentions with these element ids that are not erased."""
        return [ElementIntention(**row)
                for row in self._run("deletion/intentions_by_element", eids=list(eids))]

    def index_key(self) -> bytes:
        """The database's index key, made in this transaction if it has none
        (:func:`graphmem.db.index_key.index_key`)."""
        key, _ = index_key(self.store, self.tx)
        return key

    def redact_text(self, rows: Sequence[Mapping[str, Any]], *, request_id: str,
                    at: datetime) -> None:
        """Set redacted properties by element id; ``rows``: ``{"eid", "rel", "props"}``."""
        self._run("deletion/redact/text", rows=list(rows), request_id=request_id, at=at)

    def link_late(self, eids: Sequence[str], *, request_id: str, at: datetime) -> None:
        """Dispose of, as REDACT, the records and intentions among ``eids`` (element ids the
        last scan changed) that the request has not disposed of: written after planning
        (docs/spec/deletion.md#apply)."""
        self._run("deletion/redact/late", eids=list(eids), request_id=request_id, at=at)

    def regroup_assertions(self, rows: Sequence[Mapping[str, str]], drop: Sequence[str]
                           ) -> None:
        """Move records to their redacted key's assertion group (``rows``: ``{"eid", "key",
        "gkey"}``); drop the groups ``drop`` (element ids) that no record asserts now."""
        self._run("deletion/regroup_assertions", rows=list(rows), drop=list(drop))

    # -- recompute ------------------------------------------------------------------------

    def recompute_check(self, record_id: str, parents: Sequence[str]) -> RecomputeCheck | None:
        """The record and what is wrong with lineage ``parents`` (None: no such record)."""
        rows = self._run("records/recompute_check", id=record_id, parents=list(parents))
        return RecomputeCheck(**rows[0]) if rows else None

    def recompute(self, record_id: str, *, by: str, at: datetime, fields: Mapping[str, Any]
                  ) -> None:
        """Give the record its recomputed ``fields`` (content, lineage, fingerprints), by
        ``by`` at ``at`` (its transition is logged by :meth:`log_transition`)."""
        self._run("records/recompute", id=record_id, by=by, at=at, **fields)

    def log_transition(self, record_id: str, kind: str, by: str, reason: str, at: datetime
                       ) -> None:
        """Log a declared lifecycle transition of the record."""
        self.store.log_transition(self.tx, record_id, kind, by, reason, at)

    def check_record(self, record: MemoryRecord) -> None:
        """The store's own rules for a record about to be written
        (:meth:`graphmem.db.records.RecordWrites.check_record`)."""
        self.store.check_record(record)
