"""Neo4jStore: the only module that talks to Neo4j for records (SPEC sections 2-4).

Graph model::

    (:Record)-[:IN_SCOPE]->(:Scope {key, tenant, pairs})
    (:Record)-[:SUPERSEDES]->(:Record)        successor -> predecessor
    (:Record)-[:DERIVED_FROM {ord}]->(:Record) child -> parent
    (:Record)-[:EVIDENCED_BY]->(:Record)
    (:Record)-[:CONFLICTS_WITH]-(:Record)      same tenant, same asserts key, other value
    (:Transition)-[:ON]->(:Record)             declared lifecycle transitions
    (:WriteDecision)-[:DECIDED]->(:Record)     write-policy decisions

A scope is stored as ``pairs``: JSON-encoded ``[key, value]`` strings, so that any key or
value (quotes, backticks, ``=``) is data and never query text. Eligibility rule 3 becomes
``all(p IN scope.pairs WHERE p IN $query_pairs)``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import neo4j
import pydantic
from neo4j import Driver, ManagedTransaction, RoutingControl, unit_of_work
from neo4j import time as neo4j_time
from neo4j.exceptions import ConstraintError

from graphmem.db import catalogue as cypher
from graphmem.errors import (
    AuthorizationError,
    ContentTooLargeError,
    DanglingReferenceError,
    LineageCycleError,
    NaiveDatetimeError,
    PolicyError,
    RecordConflictError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import (
    Authority,
    Explanation,
    MemoryKind,
    MemoryRecord,
    Principal,
    Sensitivity,
    Status,
    utc_now,
)

__all__ = [
    "DEFAULT_MAX_CONTENT_BYTES",
    "Candidate",
    "Neo4jStore",
    "PreparedBatch",
    "ScopeQuery",
    "StoredState",
    "paused_gc",
    "record_row",
]

DEFAULT_MAX_CONTENT_BYTES = 64 * 1024
_TIME_PROPS = ("created_at", "valid_from", "expires_at")
_END: Any = object()
Clock = Callable[[], datetime]


def scope_pairs(scope: dict[str, str]) -> list[str]:
    """The scope as sorted JSON-encoded ``[key, value]`` strings."""
    return list(_scope_encoded(tuple(sorted(scope.items())))[1])


def scope_key(scope: dict[str, str]) -> str:
    """A canonical, unique string for a scope (the Scope node's key)."""
    return _scope_encoded(tuple(sorted(scope.items())))[0]


@lru_cache(maxsize=65_536)
def _scope_encoded(items: tuple[tuple[str, str], ...]) -> tuple[str, tuple[str, ...]]:
    """(key, pairs) of a scope given as sorted items; a store sees few distinct scopes."""
    return (json.dumps(items, ensure_ascii=False, separators=(",", ":")),
            tuple(json.dumps([k, v], ensure_ascii=False) for k, v in items))


def dedup_key(record: MemoryRecord) -> str:
    """Hash of kind and whitespace-normalised content: equal keys in one scope are duplicates."""
    normalised = " ".join(record.content.casefold().split())
    return hashlib.sha256(f"{record.kind}\x1f{normalised}".encode()).hexdigest()


def require_aware(value: datetime, name: str) -> datetime:
    """Return ``value`` in UTC, or raise :class:`NaiveDatetimeError` if it has no timezone."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveDatetimeError(f"{name} must be a timezone-aware datetime (UTC), got a naive one")
    return value.astimezone(UTC)


def _native(value: Any) -> Any:
    if isinstance(value, neo4j_time.DateTime):
        return value.to_native().astimezone(UTC)
    return value


@dataclass(frozen=True)
class ScopeQuery:
    """A validated (principal, query scope, now) triple, as Cypher parameters.

    Raises:
        AuthorizationError: the query scope's tenant is not one of the principal's tenants.
        ValidationError: the scope lacks ``tenant`` or has empty keys or values.
        NaiveDatetimeError: ``now`` has no timezone.
    """

    principal: Principal
    scope: dict[str, str]
    now: datetime

    @classmethod
    def build(cls, principal: Principal, scope: dict[str, str], now: datetime) -> ScopeQuery:
        """Validate and build; see the class docstring for the errors."""
        if not isinstance(scope, dict) or not scope.get("tenant"):
            raise ValidationError("the query scope must be a dict that contains 'tenant'")
        for key, val in scope.items():
            if not isinstance(key, str) or not key or not isinstance(val, str) or not val:
                raise ValidationError("query scope keys and values must be non-empty strings")
        now = require_aware(now, "now")
        if scope["tenant"] not in principal.tenants:
            raise AuthorizationError(
                f"principal may not read tenant {scope['tenant']!r} "
                f"(may read: {sorted(principal.tenants)})"
            )
        return cls(principal=principal, scope=dict(scope), now=now)

    def params(self) -> dict[str, Any]:
        """The Cypher parameters shared by eligibility queries."""
        return {
            "tenant": self.scope["tenant"],
            "tenants": sorted(self.principal.tenants),
            "pairs": scope_pairs(self.scope),
            "clearance": self.principal.clearance.rank,
            "now": self.now,
        }


@dataclass(frozen=True)
class Candidate:
    """An eligible, ACTIVE record with the ids it has a materialised conflict with."""

    record: MemoryRecord
    conflict_ids: tuple[str, ...]


@dataclass(frozen=True)
class StoredState:
    """Lifecycle state the store keeps beside a record (not part of the record itself)."""

    quarantined: bool
    pending_recompute: bool
    erased: bool
    retracted_by: str | None
    retracted_reason: str | None
    retracted_at: datetime | None


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building many small objects at once
    (a deletion walk decodes and arranges millions of strings and lists, none cyclic): each
    allocation burst otherwise triggers full collections over the whole heap, which cost
    about as much as the decoding (measured: 1.9 s -> 1.1 s for a 10^5-descendant walk).
    Reference counting still frees everything; the collector resumes afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def record_fingerprint(record: MemoryRecord) -> str:
    """SHA-256 of the record's canonical JSON: equal for an identical re-write (SPEC 2)."""
    return hashlib.sha256(record.fingerprint_payload().encode()).hexdigest()


def record_props(record: MemoryRecord, *, quarantined: bool = False,
                 fingerprint: str | None = None) -> dict[str, Any]:
    """Flat Neo4j properties of a record (maps are stored as JSON strings).

    ``fingerprint``: the record's :func:`record_fingerprint`, when the caller has it already.
    """
    return {
        "id": record.id,
        "kind": record.kind.value,
        "content": record.content,
        "created_at": record.created_at,
        "tenant": record.tenant,
        "scope_json": json.dumps(record.scope, sort_keys=True, ensure_ascii=False),
        "provenance_json": json.dumps(record.provenance, sort_keys=True, ensure_ascii=False),
        "source": record.provenance.get("source"),
        "authority": record.authority.value,
        "authority_rank": record.authority.rank,
        "sensitivity": record.sensitivity.value,
        "sensitivity_rank": record.sensitivity.rank,
        "asserts": record.asserts,
        "asserted_value": record.asserted_value,
        "valid_from": record.valid_from,
        "expires_at": record.expires_at,
        "supersedes": list(record.supersedes),
        "derived_from": list(record.derived_from),
        "evidence_ids": list(record.evidence_ids),
        "retracted": record.retracted,
        "metadata_json": json.dumps(record.metadata, sort_keys=True, ensure_ascii=False),
        "fingerprint": fingerprint or record_fingerprint(record),
        "dedup_key": dedup_key(record),
        "quarantined": quarantined,
        "pending_recompute": False,
        "erased": False,
        "rev": 0,
    }


def record_from_props(props: dict[str, Any]) -> MemoryRecord:
    """The one place where a stored row becomes a :class:`MemoryRecord`.

    Every stored record passed ``MemoryRecord`` validation on its way in and lifecycle
    transitions keep it valid, so rows are rebuilt with ``model_construct`` (typed field by
    field, no re-validation): reading 10^4 candidates is dominated by this function.
    """
    get = props.get
    return MemoryRecord.model_construct(
        id=props["id"],
        kind=MemoryKind(props["kind"]),
        content=props["content"],
        created_at=_native(props["created_at"]),
        scope=json.loads(props["scope_json"]),
        provenance=json.loads(get("provenance_json") or "{}"),
        authority=Authority(props["authority"]),
        asserts=get("asserts"),
        asserted_value=get("asserted_value"),
        valid_from=_native(get("valid_from")),
        expires_at=_native(get("expires_at")),
        supersedes=tuple(get("supersedes") or ()),
        retracted=bool(get("retracted")),
        evidence_ids=tuple(get("evidence_ids") or ()),
        derived_from=tuple(get("derived_from") or ()),
        sensitivity=Sensitivity(props["sensitivity"]),
        metadata=json.loads(get("metadata_json") or "{}"),
    )


def state_from_props(props: dict[str, Any]) -> StoredState:
    """The lifecycle flags kept beside a record."""
    return StoredState(
        quarantined=bool(props.get("quarantined")),
        pending_recompute=bool(props.get("pending_recompute")),
        erased=bool(props.get("erased")),
        retracted_by=props.get("retracted_by"),
        retracted_reason=props.get("retracted_reason"),
        retracted_at=_native(props.get("retracted_at")),
    )


def coerce_record(record: MemoryRecord | dict[str, Any]) -> MemoryRecord:
    """Validate a dict into a record, re-raising pydantic errors as graphmem's own.

    Raises:
        NaiveDatetimeError: a datetime field had no timezone.
        ValidationError: any other rule of SPEC section 2 was broken.
    """
    if isinstance(record, MemoryRecord):
        return record
    try:
        return MemoryRecord.model_validate(record)
    except pydantic.ValidationError as exc:
        rid = record.get("id") if isinstance(record, dict) else None
        ids = [rid] if isinstance(rid, str) and rid else []
        if "naive datetime" in str(exc):
            raise NaiveDatetimeError(f"invalid record: {_summary(exc)}", record_ids=ids) from None
        raise ValidationError(f"invalid record: {_summary(exc)}", record_ids=ids) from None


def _summary(exc: pydantic.ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(x) for x in err['loc']) or 'record'}: {err['msg']}" for err in exc.errors()
    )


class Neo4jStore:
    """Records, scopes and lineage in one Neo4j database.

    Reads of candidates return versions (``fingerprint``, ``rev``) from Cypher; records are
    rebuilt only for versions this store object has not seen, and every query that changes
    a record bumps ``rev`` (checked by ``tests/test_cypher_catalogue.py``), so the cache
    never serves a stale record. Eligibility is decided by Cypher; its answer is reused
    only while it provably cannot have changed (see :meth:`candidates`).

    Args:
        driver: an open ``neo4j`` driver (bolt://, neo4j://, neo4j+s:// ...).
        database: the database name every query targets.
        max_content_bytes: largest accepted content, in UTF-8 bytes (default 64 KiB).
        clock: returns the current aware UTC time; injectable for tests.
    """

    MAX_CACHED_RECORDS = 500_000
    MAX_CACHED_ANSWERS = 256

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        clock: Clock = utc_now,
    ) -> None:
        self.driver = driver
        self.database = database
        self.max_content_bytes = max_content_bytes
        self.clock = clock
        # id -> ((fingerprint, rev), record): records rebuilt once per version (see candidates)
        self._records: dict[str, tuple[tuple[str, int], MemoryRecord]] = {}
        # (tenant, pairs, clearance) -> the last exact answer and when it stays exact
        self._answers: dict[tuple[str, tuple[str, ...], int], _Answer] = {}
        self._answers_lock = threading.Lock()
        #: how many candidates answers were reused and computed (tests and benchmarks)
        self.answer_stats: Counter[str] = Counter()

    # -- plumbing -------------------------------------------------------------------

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run read query ``name`` (routed to a reader in a cluster); rows as dicts."""
        return [r.data() for r in self.read_records(name, **params)]

    def read_records(self, name: str, **params: Any) -> list[neo4j.Record]:
        """Run read query ``name``; the driver's rows (tuples, cheaper than dicts)."""
        records, _, _ = self.driver.execute_query(
            cypher.query(name), parameters_=params, database_=self.database,
            routing_=RoutingControl.READ,
        )
        return records

    def read_values(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Like :meth:`read`, for results of plain values and lists only (no nodes, maps or
        temporals to convert): rows as dicts of the driver's values as received, without
        ``Record.data()``'s recursive copy, which dominates large results (deletion walks)."""
        records, _, _ = self.driver.execute_query(
            cypher.query(name), parameters_=params, database_=self.database,
            routing_=RoutingControl.READ,
        )
        return [dict(zip(r.keys(), r.values(), strict=True)) for r in records]

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run write query ``name`` in its own transaction (retried by the driver)."""
        records, _, _ = self.driver.execute_query(
            cypher.query(name), parameters_=params, database_=self.database,
            routing_=RoutingControl.WRITE,
        )
        return [r.data() for r in records]

    def transaction(self, name: str, work: Callable[[ManagedTransaction], Any]) -> Any:
        """Run ``work`` as one write transaction function (idempotent; may be retried).

        ``name`` tags the transaction's metadata so ``SHOW TRANSACTIONS`` names it.
        """
        tagged = unit_of_work(metadata={"graphmem_tx": name})(work)
        with self.driver.session(database=self.database) as session:
            return session.execute_write(tagged)

    @staticmethod
    def run(tx: ManagedTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run query ``name`` inside ``tx``; rows as dicts."""
        return [r.data() for r in tx.run(cypher.text(name), params)]

    def ensure_schema(self) -> None:
        """Create constraints and indexes if missing (idempotent; one transaction each)."""
        with self.driver.session(database=self.database) as session:
            for statement in cypher.statements("schema"):
                session.run(statement).consume()
            session.run(cypher.query("schema_await")).consume()

    # -- validation -----------------------------------------------------------------

    def check_record(self, record: MemoryRecord) -> None:
        """Store-level rules that the model alone cannot check (content size)."""
        size = len(record.content.encode("utf-8"))
        if size > self.max_content_bytes:
            raise ContentTooLargeError(
                f"content of {record.id!r} is {size} bytes; the maximum is "
                f"{self.max_content_bytes}", record_ids=[record.id],
            )

    @staticmethod
    def check_batch_lineage(records: Sequence[MemoryRecord]) -> None:
        """Reject duplicate ids, and cycles inside one batch of ``derived_from``
        (LineageCycleError) or ``supersedes`` (ValidationError) references.

        Stored records cannot point at a record not yet written, so a new batch can only
        close a cycle among its own members.
        """
        ids = [r.id for r in records]
        if len(set(ids)) != len(ids):
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            raise ValidationError("a batch names the same id twice", record_ids=dupes)
        in_batch = {r.id: r for r in records}
        cycle = _find_cycle(in_batch, "derived_from")
        if cycle:
            raise LineageCycleError("derived_from would form a cycle", record_ids=cycle)
        cycle = _find_cycle(in_batch, "supersedes")
        if cycle:
            raise ValidationError("supersedes would form a cycle", record_ids=cycle)

    def _existing(self, tx: ManagedTransaction, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        rows = self.run(tx, "records_existing", ids=sorted(set(ids)))
        return {row["id"]: row for row in rows}

    def prepare_in_tx(
        self, tx: ManagedTransaction, records: Sequence[MemoryRecord],
        fingerprints: Mapping[str, str] | None = None,
    ) -> list[MemoryRecord]:
        """Check ids and references inside ``tx``; return the records still to create.

        Raises:
            RecordConflictError: an id exists with a different fingerprint.
            DanglingReferenceError: a referenced id is neither stored nor in the batch, or
                names an erased record (only its tombstone remains).
        """
        if fingerprints is None:
            fingerprints = {r.id: record_fingerprint(r) for r in records}
        refs = {ref for r in records for ref in (*r.supersedes, *r.derived_from, *r.evidence_ids)}
        existing = self._existing(tx, set(fingerprints) | refs)
        conflicting = sorted(
            rid for rid in fingerprints
            if rid in existing and existing[rid]["fingerprint"] != fingerprints[rid]
        )
        if conflicting:
            raise RecordConflictError(
                "these ids already exist with different content", record_ids=conflicting
            )
        batch_ids = set(fingerprints)
        dangling = sorted(ref for ref in refs if (ref not in existing and ref not in batch_ids)
                          or (ref in existing and existing[ref]["erased"]))
        if dangling:
            raise DanglingReferenceError(
                "supersedes/derived_from/evidence_ids name ids not in the store",
                record_ids=dangling,
            )
        return [r for r in records if r.id not in existing]

    def create_in_tx(
        self, tx: ManagedTransaction, records: Sequence[MemoryRecord], *,
        quarantined: bool = False, fingerprints: Mapping[str, str] | None = None,
        rows: Mapping[str, dict[str, Any]] | None = None,
    ) -> None:
        """Create nodes and edges for already-prepared records (same transaction).

        Scopes first, then record nodes, then each edge type: every in-batch reference
        exists by the time its edge is created, whatever the order of ``records``.
        ``fingerprints`` and ``rows`` (by id) are what :meth:`prepare_batch` computed already.
        Datetimes travel as ISO-8601 strings and become Neo4j datetimes in Cypher: the
        driver's own datetime packing costs more than the rest of a record.
        """
        scopes = {scope_key(r.scope): r for r in records}
        self.run(tx, "scopes_merge", scopes=[
            {"key": key, "tenant": r.tenant, "pairs": scope_pairs(r.scope)}
            for key, r in scopes.items()
        ])
        fps = fingerprints or {}
        ready = rows or {}
        self.run(tx, "records_create", rows=[
            ready.get(r.id) or record_row(r, quarantined, fps.get(r.id)) for r in records])
        for name, field in (("edges_supersedes", "supersedes"),
                            ("edges_derived_from", "derived_from"),
                            ("edges_evidenced_by", "evidence_ids")):
            edges = [{"src": r.id, "dst": dst, "ord": i}
                     for r in records for i, dst in enumerate(getattr(r, field))]
            if edges:
                self.run(tx, name, edges=edges)
        if any(r.asserts is not None for r in records):
            self.run(tx, "conflicts_link", ids=[r.id for r in records if r.asserts is not None])

    # -- writes ---------------------------------------------------------------------

    def prepare_batch(
        self, records: Sequence[MemoryRecord | dict[str, Any]], *, quarantined: bool = False
    ) -> PreparedBatch:
        """Validate a batch and compute its rows, without touching the database.

        Raises:
            ValidationError (and subclasses): a record breaks SPEC section 2, a content is
                too large, or the batch repeats an id or has a lineage cycle.
        """
        batch = [coerce_record(r) for r in records]
        for r in batch:
            self.check_record(r)
        self.check_batch_lineage(batch)
        fingerprints = {r.id: record_fingerprint(r) for r in batch}
        rows = {r.id: record_row(r, quarantined, fingerprints[r.id]) for r in batch}
        return PreparedBatch(batch, fingerprints, rows, quarantined)

    def write_prepared(self, prepared: PreparedBatch) -> list[str]:
        """Write a prepared batch in one transaction: everything or nothing.

        Returns the ids created (identical re-writes are no-ops and are left out).

        Raises:
            RecordConflictError, DanglingReferenceError: nothing is written.
        """
        def work(tx: ManagedTransaction) -> list[str]:
            todo = self.prepare_in_tx(tx, prepared.records, prepared.fingerprints)
            if todo:
                self.create_in_tx(tx, todo, quarantined=prepared.quarantined,
                                  fingerprints=prepared.fingerprints, rows=prepared.rows)
            return [r.id for r in todo]

        try:
            created: list[str] = self.transaction("put_many", work)
        except ConstraintError:
            # A concurrent writer created one of these ids first: decide again from what is
            # stored now (identical -> no-op, different -> RecordConflictError).
            created = self.transaction("put_many", work)
        return created

    def put_many(
        self, records: Sequence[MemoryRecord | dict[str, Any]], *, quarantined: bool = False
    ) -> list[str]:
        """Write records without policy, all in one transaction: everything or nothing.

        Args:
            records: records (or dicts validated into records).
            quarantined: store them as quarantined (audit only, never eligible).

        Returns:
            The ids actually created (identical re-writes are no-ops and are left out).

        Raises:
            ValidationError (and subclasses), RecordConflictError: nothing is written.
        """
        return self.write_prepared(self.prepare_batch(records, quarantined=quarantined))

    def put_stream(
        self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]], *,
        quarantined: bool = False,
    ) -> Iterator[list[str]]:
        """Write batches in order, one transaction each, preparing the next batch (validation,
        fingerprints, rows) in a worker thread while the server writes the current one.

        Yields the ids created by each batch once it is committed. A batch that fails
        raises when its turn comes; the batches before it stay written (as with a loop of
        :meth:`put_many`), nothing of it or after it is.
        """
        it = iter(batches)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-prepare") as pool:
            def submit() -> Future[PreparedBatch] | None:
                batch = next(it, _END)
                if batch is _END:
                    return None
                if batch is None:
                    raise ValidationError("put_stream: a batch is None, not a sequence")
                return pool.submit(self.prepare_batch, batch, quarantined=quarantined)

            pending = submit()
            while pending is not None:
                prepared = pending.result()
                try:
                    pending = submit()
                except BaseException:
                    self.write_prepared(prepared)  # what the producer handed over is written
                    raise
                yield self.write_prepared(prepared)

    def put(self, record: MemoryRecord | dict[str, Any]) -> bool:
        """Write one record without policy (SPEC section 2). True if created, False if no-op."""
        return bool(self.put_many([record]))

    def log_transition(
        self, tx: ManagedTransaction, record_id: str, kind: str, by: str, reason: str, at: datetime
    ) -> None:
        """Record a declared lifecycle transition inside ``tx``."""
        self.run(tx, "transition_log", record_id=record_id, kind=kind, by=by, reason=reason, at=at)

    def _transition(
        self, query_name: str, record_id: str, kind: str, *, by: str, reason: str,
        at: datetime, **params: Any,
    ) -> None:
        if not by or not reason:
            raise ValidationError("a lifecycle transition needs non-empty 'by' and 'reason'",
                                  record_ids=[record_id])
        at = require_aware(at, "at")

        def work(tx: ManagedTransaction) -> None:
            rows = self.run(tx, query_name, id=record_id, by=by, reason=reason, at=at, **params)
            if not rows:
                raise RecordNotFoundError(f"no record {record_id!r} (or it was erased)",
                                          record_ids=[record_id])
            self.log_transition(tx, record_id, kind, by, reason, at)

        self.transaction(kind, work)

    def retract(self, record_id: str, *, by: str, reason: str, at: datetime | None = None) -> None:
        """Retract a record as a tombstone with who/why/when (SPEC sections 2 and 6).

        Raises:
            RecordNotFoundError: no such record. ValidationError: empty by/reason.
            NaiveDatetimeError: ``at`` without timezone.
        """
        self._transition("record_retract", record_id, "retract", by=by, reason=reason,
                         at=at or self.clock())

    def expire(self, record_id: str, *, at: datetime, by: str, reason: str) -> None:
        """Declare that a record stops being active at ``at`` (SPEC section 6).

        Raises:
            PolicyError: ``at`` is not after the record's ``valid_from``.
            RecordNotFoundError, ValidationError, NaiveDatetimeError.
        """
        at = require_aware(at, "at")
        record = self.get(record_id)
        if record.valid_from is not None and at <= record.valid_from:
            raise PolicyError("expiry must be after valid_from", record_ids=[record_id])
        self._transition("record_expire", record_id, "expire", by=by, reason=reason, at=at)

    def set_quarantine(self, record_id: str, flag: bool, *, by: str, reason: str) -> None:
        """Quarantine a record or promote it out of quarantine, as a logged transition."""
        self._transition("record_set_quarantine", record_id,
                         "quarantine" if flag else "promote", by=by, reason=reason,
                         at=self.clock(), flag=flag)

    # -- reads ----------------------------------------------------------------------

    def get_props(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored properties by id (missing ids are absent from the result)."""
        rows = self.read("records_get", ids=list(ids))
        return {row["record"]["id"]: row["record"] for row in rows}

    def get(self, record_id: str) -> MemoryRecord:
        """The record with this id, in its current lifecycle state.

        Raises:
            RecordNotFoundError: no such id, or it was erased (``explain`` reports ERASED).
        """
        props = self.get_props([record_id]).get(record_id)
        if props is None:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        if props.get("erased"):
            raise RecordNotFoundError(f"record {record_id!r} was erased; only its tombstone "
                                      "remains", record_ids=[record_id])
        return record_from_props(props)

    def get_many(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """Records by id, leaving out missing and erased ones."""
        return {
            rid: record_from_props(p) for rid, p in self.get_props(ids).items()
            if not p.get("erased")
        }

    def state(self, record_id: str) -> StoredState:
        """Lifecycle flags of a record (quarantine, recompute, erasure, retraction detail)."""
        props = self.get_props([record_id]).get(record_id)
        if props is None:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        return state_from_props(props)

    def candidates(
        self, principal: Principal, scope: dict[str, str], now: datetime
    ) -> list[Candidate]:
        """Eligible ACTIVE records for the caller, decided in Cypher (SPEC sections 3-4).

        The answer of ``cypher/candidates.cypher`` is reused, without reading a record, while
        it is provably the same: every Scope the query scope sees still has the version
        (``epoch``, ``rev``) it had when the answer was computed (every query that changes,
        creates or erases a record bumps its Scope's ``rev``; ``tests/test_cypher_catalogue.py``
        checks that), and ``now`` lies between the same two validity boundaries
        (``valid_from``/``expires_at`` of the records in those scopes). Checking costs one
        index seek over the tenant's Scope nodes (``cypher/candidates_versions.cypher``).

        Args:
            principal: who asks (tenants and clearance).
            scope: the query scope, e.g. ``{"tenant": "acme", "project": "p1"}``.
            now: timezone-aware UTC time at which eligibility is decided.

        Raises:
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
            ValidationError, NaiveDatetimeError: malformed scope or ``now``.
        """
        sq = ScopeQuery.build(principal, scope, now)
        params = sq.params()
        key = (params["tenant"], tuple(params["pairs"]), params["clearance"])
        answer = self._answers.get(key)
        if answer is not None and answer.holds_at(sq.now):
            row = self.read_values("candidates_versions", tenant=params["tenant"],
                                   pairs=params["pairs"])[0]
            if _versions(row["versions"]) == answer.versions:
                self.answer_stats["reused"] += 1
                return list(answer.candidates)
        self.answer_stats["computed"] += 1
        row = self.read_values("candidates", **params)[0]
        cache = self._records
        ids, fingerprints, revs = row["ids"], row["fingerprints"], row["revs"]
        stale = [rid for rid, fp, rev in zip(ids, fingerprints, revs, strict=True)
                 if cache.get(rid, ((None, -1),))[0] != (fp, rev)]
        if stale:
            if len(cache) + len(stale) > self.MAX_CACHED_RECORDS:
                cache.clear()
                stale = list(ids)  # every candidate must be rebuilt after a clear
            for rid, props in self.get_props(stale).items():
                if not props.get("erased"):
                    version = (props["fingerprint"], int(props.get("rev") or 0))
                    cache[rid] = (version, record_from_props(props))
        found = tuple(
            Candidate(record=cache[rid][1], conflict_ids=tuple(sorted(set(conflicts))))
            for rid, conflicts in zip(ids, row["conflict_ids"], strict=True) if rid in cache
        )
        if len(found) == len(ids):  # else a record changed mid-read: do not reuse this
            with self._answers_lock:
                while len(self._answers) >= self.MAX_CACHED_ANSWERS:
                    self._answers.pop(next(iter(self._answers)))
                self._answers[key] = _Answer(
                    versions=_versions(row["versions"]),
                    lo=_bound(max, row["lo_from"], row["lo_expiry"]),
                    hi=_bound(min, row["hi_from"], row["hi_expiry"]),
                    candidates=found,
                )
        return list(found)

    def forget_answers(self) -> None:
        """Drop every reused candidates answer (the next call of each computes it again, as
        after a write to its scope); for benchmarks and memory pressure, never needed for
        correctness."""
        with self._answers_lock:
            self._answers.clear()

    def explain(
        self, record_id: str, principal: Principal, scope: dict[str, str], now: datetime
    ) -> Explanation:
        """Why ``record_id`` is or is not retrievable for this caller now (SPEC section 4).

        Raises:
            RecordNotFoundError: no record with this id (erased ones explain as ERASED).
            AuthorizationError: the query scope's tenant is not readable by ``principal``.
        """
        sq = ScopeQuery.build(principal, scope, now)
        rows = self.read("explain", id=record_id, **sq.params())
        if not rows:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        status = Status(rows[0]["status"])
        successors = tuple(sorted(rows[0]["successors"])) if status is Status.SUPERSEDED else ()
        return Explanation(record_id=record_id, status=status, successor_ids=successors,
                           detail=_detail(status, successors, principal.clearance))

    def transitions(self, record_id: str) -> list[dict[str, Any]]:
        """Declared transitions and write decisions of a record, oldest first."""
        return [{k: _native(v) for k, v in row.items()}
                for row in self.read("transitions_for", id=record_id)]

    def counts(self) -> dict[str, int]:
        """Node counts per graphmem label."""
        return {row["label"]: row["n"] for row in self.read("store_counts")}


@dataclass(frozen=True)
class PreparedBatch:
    """A validated batch with its fingerprints and ``records_create`` rows (by id)."""

    records: list[MemoryRecord]
    fingerprints: dict[str, str]
    rows: dict[str, dict[str, Any]]
    quarantined: bool


def record_row(record: MemoryRecord, quarantined: bool, fingerprint: str | None
                ) -> dict[str, Any]:
    """One ``records_create`` row; datetimes as ISO-8601 strings (see create_in_tx)."""
    props = record_props(record, quarantined=quarantined, fingerprint=fingerprint)
    times = {k: None if props[k] is None else props.pop(k).isoformat() for k in _TIME_PROPS}
    return {"props": props, "times": times, "scope_key": scope_key(record.scope)}


@dataclass(frozen=True)
class _Answer:
    """A candidates answer and the conditions under which it is still exact: the visible
    Scopes' versions are unchanged and ``lo <= now < hi`` (None: unbounded)."""

    versions: tuple[tuple[str, str, int], ...]
    lo: datetime | None
    hi: datetime | None
    candidates: tuple[Candidate, ...]

    def holds_at(self, now: datetime) -> bool:
        return (self.lo is None or self.lo <= now) and (self.hi is None or now < self.hi)


def _versions(rows: list[list[Any]]) -> tuple[tuple[str, str, int], ...]:
    return tuple(sorted((str(k), str(e), int(r)) for k, e, r in rows))


def _bound(pick: Callable[[list[datetime]], datetime], *values: Any) -> datetime | None:
    present = [_native(v) for v in values if v is not None]
    return pick(present) if present else None


def _find_cycle(in_batch: dict[str, MemoryRecord], field: str) -> list[str]:
    """Ids on one cycle of ``field`` references among ``in_batch`` (empty if acyclic)."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for root in in_batch:
        if state.get(root):
            continue
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(getattr(in_batch[root], field)))]
        state[root] = 1
        while stack:
            node, refs = stack[-1]
            nxt = next((p for p in refs if p in in_batch), None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [n for n, _ in stack]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(getattr(in_batch[nxt], field))))
    return []


def _detail(status: Status, successors: tuple[str, ...], clearance: Sensitivity) -> str:
    return {
        Status.UNAUTHORIZED: "another tenant's record, or its sensitivity is above clearance "
                             f"{clearance.value}",
        Status.OUT_OF_SCOPE: "its scope names a key/value the query scope does not match",
        Status.QUARANTINED: "held for audit by the write policy; only an explicit review "
                            "promotes it",
        Status.PENDING_RECOMPUTE: "derived from erased content; ineligible until recomputed",
        Status.ERASED: "erased by a deletion request; only a content-free tombstone remains",
        Status.RETRACTED: "retracted (tombstone)",
        Status.NOT_YET_VALID: "its valid_from is still in the future",
        Status.EXPIRED: "its expires_at has passed",
        Status.SUPERSEDED: f"superseded by {', '.join(successors)}",
        Status.ACTIVE: "eligible and active",
    }[status]
