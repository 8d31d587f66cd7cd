"""``Memory``: the client facade agents, privacy teams and analysts call.

It only wires modules together: the store (exact decisions in Cypher), the write policy,
the read path's pure steps and the attribution log. Citations name pages of docs/spec/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from graphmem.client_calls import AttributionCalls, DeletionCalls, ProspectiveCalls
from graphmem.db.access import OPERATOR, Access
from graphmem.db.codec import DEFAULT_MAX_CONTENT_BYTES, Clock, require_aware
from graphmem.db.ops.admission import Neo4jWrites
from graphmem.db.ops.attribution import Neo4jAttribution
from graphmem.db.settings import ConnectionSettings
from graphmem.db.store import Neo4jStore
from graphmem.deletion.certificate import CertificateMethods
from graphmem.errors import AuthorizationError, ValidationError, typed_calls
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Authority, Explanation, MemoryRecord, Principal
from graphmem.read import pipeline
from graphmem.read.attribution import AttributionLog
from graphmem.read.pipeline import Retrieval
from graphmem.read.rankers import DEFAULT_RANKER, Ranker, get_ranker
from graphmem.read.resolution import ConflictResolution, record_pool, resolve_conflict
from graphmem.read.steps import DecisionState, MemoryConflict
from graphmem.write import lifecycle
from graphmem.write.imports import IMPORT_BATCH, import_jsonl
from graphmem.write.policy import MemoryWriteDecision, WritePolicy

__all__ = ["Memory", "Retrieval"]

@typed_calls
class Memory(AttributionCalls, ProspectiveCalls, DeletionCalls, CertificateMethods):
    """graphmem's client. Use :meth:`connect`; close it (or use ``with``).

    Args:
        store: the Neo4j store. policy: write-policy settings. clock: aware-UTC clock.
    """

    def __init__(self, store: Neo4jStore, *, policy: WritePolicy | None = None,
                 owns_driver: bool = True, on_close: Callable[[], None] | None = None,
                 access: Access = OPERATOR) -> None:
        self._store = store
        self._writes = Neo4jWrites(store)
        self._on_close = on_close
        self.policy = policy or WritePolicy()
        self._owns_driver = owns_driver
        self._rankers: dict[str, Ranker] = {}
        self._log = AttributionLog(Neo4jAttribution(store))
        #: who this client acts for and the authority it may claim (the operator: all)
        self.access = access
        self._view = False

    # -- connection -----------------------------------------------------------------

    @classmethod
    def connect(
        cls,
        settings: ConnectionSettings | None = None,
        *,
        start_if_needed: bool = True,
        policy: WritePolicy | None = None,
        clock: Clock = utc_now,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        ensure_schema: bool = True,
        principal: Principal | None = None,
        max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> Memory:
        """Connect to Neo4j and make sure the schema exists.

        Args:
            settings: explicit settings; else ``NEO4J_URI``/``NEO4J_USER``/
                ``NEO4J_PASSWORD``/``NEO4J_DATABASE``; else the ``graphmem db start``
                server; else, if ``start_if_needed``, the local server started now for as
                long as a client uses it (:func:`graphmem.db.server.lease`: it stops when
                the last client that needed it closes).
            policy: write-policy settings (docs/spec/write-path.md).
            clock: aware now, read as UTC (else ValidationError); for an omitted ``now``/``at``.
            max_content_bytes: largest record content accepted, in UTF-8 bytes (>= 1).
            principal: bind the client to this caller (see :meth:`confined`); None: the
                operator's client, which reaches every record and claims any authority.
            max_authority: the bound client's authority ceiling (ignored without
                ``principal``).
            limits: bounds of every other input (:class:`graphmem.limits.InputLimits`).

        Safe to call from many processes at once on a new database: the
        connectivity check and schema set-up retry transient errors. The schema is set up
        once per shared driver and database in a process: a later client of the same
        settings connects in one round trip (the connectivity check).

        Raises:
            DatabaseUnavailableError: nothing to connect to, or the server does not answer.
            DatabaseAuthError: the server refused the credentials. StoreError: Neo4j refused
                the schema set-up. ValidationError: a bad argument (before any server).
        """
        from graphmem.db.connect import open_store

        store, release = open_store(settings, start_if_needed=start_if_needed, clock=clock,
                                    max_content_bytes=max_content_bytes,
                                    ensure_schema=ensure_schema, limits=limits)
        access = OPERATOR if principal is None else _access(principal, max_authority)
        return cls(store, policy=policy, owns_driver=False, on_close=release, access=access)

    def confined(self, principal: Principal, *,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION) -> Memory:
        """A client bound to ``principal``, sharing this client's connection and log
        (docs/spec/eligibility.md). Closing it does nothing; close this client when done.

        A bound client reaches only records within the principal's reach
        (:meth:`Principal.reaches`) and changes only those that belong to its confinement
        (:meth:`Principal.may_change`). Every call that names a record, intention, retrieval
        or deletion request by id refuses one out of reach exactly as one that does not
        exist, with :class:`~graphmem.errors.OutOfReachError` (an ``AuthorizationError`` and
        a ``RecordNotFoundError``; the message names no id), and writes nothing. Its reads'
        ``principal=`` defaults to the bound one (one given must reach no further); query
        scopes, written scopes and deletion subjects get the confinement's pairs added (one
        contradicting them is refused); a write claiming authority above ``max_authority``
        raises :class:`~graphmem.errors.AuthorityCeilingError`, and each write decision
        records the claim, the ceiling and the principal in its ``by``. Bulk imports
        (``put``, ``put_many``, ``put_stream``, ``import_jsonl``) bypass the policy and are
        the operator's only.

        Args:
            principal: who the client acts for (tenants, clearance, confinement ``scope``).
            max_authority: the highest authority its writes may claim (default
                ``human_instruction``: a user's statement relayed by an agent).

        Raises:
            AuthorizationError: this client is bound already and ``principal`` reaches
                further than its own.
            ValidationError: ``principal`` is not a Principal, or ``max_authority`` names no
                authority.
        """
        ceiling = _authority(max_authority)
        if self.access.principal is not None and not self.access.principal.covers(principal):
            raise AuthorizationError("a bound client can only be narrowed: this principal "
                                     "reaches further than the client's own")
        if self.access.max_authority is not None:
            ceiling = min(ceiling, self.access.max_authority)
        view = type(self)(self._store, policy=self.policy, owns_driver=False,
                          access=_access(principal, ceiling))
        view._log, view._rankers, view._view = self._log, self._rankers, True
        return view

    def close(self) -> None:
        """End this client's use of its driver and of the local server: a driver
        :meth:`connect` opened closes with the last client of its settings in this process,
        a server it started stops with its last client. A driver passed in (``owns_driver``)
        is closed. Any later call of this client raises ClientClosedError. A client made by
        :meth:`confined` closes nothing (its parent owns the connection)."""
        if self._view:
            return
        self._log.close()  # after the retrievals it is logging
        self._store.close()  # a closed client sends nothing more (ClientClosedError)
        try:
            if self._owns_driver:
                self._store.driver.close()
        finally:
            if self._on_close is not None:
                self._on_close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _now(self, now: datetime | None, name: str = "now") -> datetime:
        return require_aware(now, name) if now is not None else self._store.clock()

    # -- records (docs/spec/records.md) -----------------------------------------------------

    def put(self, record: MemoryRecord | dict[str, Any]) -> bool:
        """Validated write without policy (imports, restores). True if created.

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
            AuthorizationError: a bound client (imports are the operator's).
        """
        self._operator_only("put")
        return self._store.put(record)

    def put_many(self, records: Iterable[MemoryRecord | dict[str, Any]]) -> list[str]:
        """Write records without policy in one transaction; returns the ids created.
        ``records``: MemoryRecord instances or dicts of their fields, any iterable (read once).
        ValidationError and subclasses, RecordConflictError: nothing is written;
        AuthorizationError for a bound client (imports are the operator's)."""
        self._operator_only("put_many")
        return self._store.put_many(records)

    def import_jsonl(self, path: str | Path, *, batch_size: int = IMPORT_BATCH) -> list[str]:
        """Import a JSON Lines file of records without policy, in ``UNWIND`` batches.

        The whole file is validated first (fields, sizes, in-file lineage); a bad line
        raises before anything is written. Each batch is one transaction, and references
        may point to earlier lines. Returns the ids created.

        Raises:
            ValidationError (line numbers in the message), RecordConflictError.
            AuthorizationError: a bound client (imports are the operator's).
        """
        self._operator_only("import_jsonl")
        return import_jsonl(self._writes, path, batch_size=batch_size)

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]]
                   ) -> Iterator[list[str]]:
        """Bulk import without policy: one transaction per batch, the next batch validated
        while the server writes the current one. Yields the ids each batch created.

        Raises (when the failing batch's turn comes; earlier batches stay written):
            ValidationError and subclasses, RecordConflictError, DanglingReferenceError.
            AuthorizationError: a bound client (imports are the operator's; at the call).
        """
        self._operator_only("put_stream")
        return self._store.put_stream(batches)

    def get(self, record_id: str) -> MemoryRecord:
        """The record with this id in its current state. Raises RecordNotFoundError
        (OutOfReachError, one, for a bound client's id out of reach)."""
        self.access.check_ids(self._store, [record_id], what="this record id")
        return self.access.shown(self._store, [self._store.get(record_id)])[0]

    def retract(self, record_id: str, *, by: str, reason: str, at: datetime | None = None
                ) -> None:
        """Retract as a tombstone with who/why/when (docs/spec/records.md and
        docs/spec/write-path.md). Never deletes; a retracted record keeps its first tombstone.
        OutOfReachError: a bound client may not change the record."""
        self.access.check_ids(self._store, [record_id], change=True, what="this record id")
        self._store.retract(record_id, by=by, reason=reason, at=at)

    def expire(self, record_id: str, *, at: datetime, by: str = "graphmem",
               reason: str = "declared expiry") -> None:
        """Declare that a record stops being active at ``at`` (docs/spec/write-path.md).
        OutOfReachError: a bound client may not change the record."""
        self.access.check_ids(self._store, [record_id], change=True, what="this record id")
        self._store.expire(record_id, at=at, by=by, reason=reason)

    def candidates(self, *, principal: Principal | None = None, scope: dict[str, str],
                   now: datetime | None = None) -> list[MemoryRecord]:
        """Eligible ACTIVE records for the caller, decided in Cypher
        (docs/spec/eligibility.md#eligible-and-active); the scope is confined to the principal
        (default: a bound client's own).

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``, or
                the scope contradicts its confinement.
        """
        found = self._store.candidates(self.access.reader(principal), scope, self._now(now))
        return self.access.shown(self._store, [c.record for c in found])

    def explain(self, record_id: str, *, principal: Principal | None = None,
                scope: dict[str, str], now: datetime | None = None) -> Explanation:
        """Why a record is or is not retrievable for this caller now (docs/spec/status.md). A
        record or discarded proposal out of the principal's reach explains as UNAUTHORIZED,
        as another tenant's does (no successor, no content), and so does, to a bound client,
        an id that names nothing (docs/spec/eligibility.md#confinement).

        Raises:
            RecordNotFoundError (not to a bound client), AuthorizationError.
            ValidationError: an id too long to be one
            (:meth:`graphmem.limits.InputLimits.check_lookup`).
        """
        self._store.limits.check_lookup("this record id", [record_id])
        return self._store.explain(record_id, self.access.reader(principal), scope,
                                  self._now(now), bound=self.access.bound)

    def history(self, record_id: str) -> list[dict[str, Any]]:
        """The transitions and write decisions of a record, oldest first (to a bound client,
        decisions on proposals within its reach). OutOfReachError: an id out of reach."""
        self.access.check_ids(self._store, [record_id], what="this record id")
        return self._store.transitions(record_id, self.access)

    # -- write path (docs/spec/write-path.md) --------------------------------------------------

    def write(self, proposal: MemoryRecord | dict[str, Any], *, by: str = "agent",
              now: datetime | None = None) -> MemoryWriteDecision:
        """Run a proposal through the write policy, atomically with its storage
        (docs/spec/write-path.md).

        DISCARD stores nothing but the decision; QUARANTINE stores the record for audit,
        never eligible; PERSIST stores it. Concurrent identical writes into one scope are
        serialised on their write slot, so only one of them persists. A new record written
        while other threads' writes through the same driver are in flight (clients that
        :meth:`connect` with the same settings share one) is stored together with them, in
        one transaction, and decided exactly as alone (:mod:`graphmem.db.group_commit`).

        A bound client's proposal is confined first (:meth:`confined`).

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
            AuthorityCeilingError, AuthorizationError, OutOfReachError: a bound client's
                proposal beyond its ceiling or reach; nothing is written.
        """
        record = self.access.confine_record(self._store, proposal)
        return lifecycle.write_record(self._writes, self.policy, record,
                                      by=self._by(by, record), at=self._now(now))

    def promote(self, record_id: str, *, by: str, reason: str) -> None:
        """Promote a quarantined record after explicit review (the only way out).

        Raises:
            PolicyError: the record is not quarantined. RecordNotFoundError.
        """
        self.access.check_ids(self._store, [record_id], change=True, what="this record id")
        lifecycle.promote(self._writes, record_id, by=by, reason=reason)

    def supersede(self, old_ids: Sequence[str], new_record: MemoryRecord | dict[str, Any], *,
                  by: str, reason: str) -> MemoryWriteDecision:
        """Write ``new_record`` as the successor of ``old_ids`` (docs/spec/write-path.md).

        The new record must list every old id in ``supersedes`` (or list none, and they are
        added). Its repeat after it took effect is a DISCARD (docs/spec/write-path.md#repeats).
        PolicyError: not persisted; a bound client's OutOfReachError: an old id it may not change.
        """
        self.access.check_ids(self._store, old_ids, change=True, what="old_ids")
        record = self.access.confine_record(self._store, new_record)
        return lifecycle.supersede(self._writes, self.policy, old_ids, record,
                                   by=self._by(by, record), reason=reason)

    def consolidate(self, ids: Sequence[str], *, into: MemoryRecord | dict[str, Any],
                    by: str, reason: str) -> MemoryWriteDecision:
        """Replace duplicates with one record carrying ``derived_from`` lineage to them.

        ``into`` gets ``derived_from`` and ``supersedes`` set to ``ids`` (merged with its
        own), so the duplicates stop being active once it is effective. A bound client's
        OutOfReachError for an id it may not change.
        """
        self.access.check_ids(self._store, ids, change=True, what="ids")
        record = self.access.confine_record(self._store, into)
        return lifecycle.consolidate(self._writes, self.policy, ids, into=record,
                                     by=self._by(by, record), reason=reason)

    def promote_procedure(self, episode_ids: Sequence[str], procedure: MemoryRecord |
                          dict[str, Any], *, by: str, reason: str) -> MemoryWriteDecision:
        """Promote episodes into a procedure once the bar is met (docs/spec/write-path.md).

        Raises:
            PolicyError: fewer than ``policy.min_verified_episodes`` verified episodes.
            OutOfReachError: a bound client's episode id out of reach.
        """
        self.access.check_ids(self._store, episode_ids, what="episode_ids")
        record = self.access.confine_record(self._store, procedure)
        return lifecycle.promote_procedure(self._writes, self.policy, episode_ids, record,
                                           by=self._by(by, record), reason=reason)

    # -- read path (docs/spec/read-path.md) ---------------------------------------------------

    def retrieve(
        self,
        state: DecisionState | dict[str, Any],
        *,
        principal: Principal | None = None,
        now: datetime | None = None,
        budget_chars: int = 4000,
        ranker: Ranker | str | None = None,
        k: int = 10,
        context_window: int = 1,
    ) -> Retrieval:
        """Trigger, query, eligible candidates, conflicts, rank, partners, budget, render.

        Args:
            state: the decision state (or a dict for :class:`DecisionState`).
            principal: the caller (default: a bound client's own); the state's scope is
                confined to it. now: aware UTC (default: the clock).
            budget_chars: the context budget, in characters of rendered memory.
            ranker: a :class:`Ranker` or a name (``bm25``, ``embedding``, ``hybrid``).
            k: how many ranked records (score > 0) to keep before partners and budget.
            context_window: thread neighbours shown beside each chosen memory when the
                budget allows (0: none).

        Raises:
            AuthorizationError: the state's scope names a tenant the principal may not read
                (never an empty success). ValidationError: a malformed state.
        """
        at = self._now(now)
        checked = pipeline.check_request(self._store.limits, state, budget_chars=budget_chars,
                                         k=k, context_window=context_window)
        # the one authorization of this read: every step below takes its value
        reach = self.access.authorize(principal, checked.memory_scope, at, self._store.limits)
        result = pipeline.retrieve(self._store, self._log, checked, reach=reach,
                                   budget_chars=budget_chars, ranker=self._ranker(ranker), k=k,
                                   intentions=self.intentions, context_window=context_window)
        return pipeline.with_records(result, self.access.shown(  # candidates: within reach
            self._store, [m.record for m in result.memories], within=result.trace.candidate_ids))

    def _ranker(self, ranker: Ranker | str | None) -> Ranker:
        """Rankers by name are kept per client, so their caches outlive one call."""
        if ranker is not None and not isinstance(ranker, str):
            return ranker
        name = ranker or DEFAULT_RANKER
        if name not in self._rankers:
            self._rankers[name] = get_ranker(name)
        return self._rankers[name]

    def resolve(self, conflict: MemoryConflict, records: Iterable[MemoryRecord] | None = None
                ) -> ConflictResolution:
        """Settle a conflict on metadata (docs/spec/read-path.md precedence) or report ambiguity.
        ``records``: the records it names, any iterable of MemoryRecord (read once); None: read
        from the store. OutOfReachError: a bound client's conflict names a record out of
        reach. ValidationError: none of them given or stored, or an item no MemoryRecord."""
        if records is None:
            self.access.check_ids(self._store, conflict.record_ids, what="this conflict")
        pool = (record_pool(records) if records is not None
                else self._store.get_many(list(conflict.record_ids)))
        return resolve_conflict(conflict, pool)

    # -- access (docs/spec/eligibility.md) --------------------------------------------------------

    def _operator_only(self, what: str) -> None:
        if self.access.bound:
            raise AuthorizationError(f"{what} writes without the write policy: the "
                                     "operator's unbound client only; nothing was written")

    def _by(self, by: str, record: MemoryRecord | dict[str, Any]) -> str:
        """``by`` as the write decision records it (a bound client: with its claim)."""
        if not self.access.bound or not isinstance(record, MemoryRecord):
            return by
        return self.access.decided_by(by, record.authority)


def _access(principal: Principal, max_authority: Authority | str) -> Access:
    if not isinstance(principal, Principal):
        raise ValidationError(f"principal must be a graphmem Principal, got "
                              f"{type(principal).__name__}")
    return Access(principal=principal, max_authority=_authority(max_authority))


def _authority(max_authority: Authority | str) -> Authority:
    try:
        return Authority(max_authority)
    except ValueError:
        raise ValidationError(f"max_authority must be one of "
                              f"{', '.join(a.value for a in Authority)}") from None


def store_of(memory: Memory) -> Neo4jStore:
    """The store behind a client, for graphmem's own packages above the client, its tests
    and benchmarks; not public API (agents use the client's calls)."""
    return memory._store
