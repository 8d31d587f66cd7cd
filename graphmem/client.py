"""``Memory``: the client facade agents, privacy teams and analysts call.

It only wires modules together: the store (exact decisions in Cypher), the write policy,
the read path's pure steps and the attribution log. Section numbers refer to SPEC.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from graphmem.db.codec import DEFAULT_MAX_CONTENT_BYTES, Clock, require_aware
from graphmem.db.settings import ConnectionSettings
from graphmem.db.store import Neo4jStore
from graphmem.deletion import (
    DEFAULT_BATCH_SIZE,
    DeletionPlan,
    DeletionReport,
    ProgressCallback,
    apply_deletion,
    plan_deletion,
    recompute,
    verify_deletion,
)
from graphmem.fields import utc_now
from graphmem.intentions import Intentions
from graphmem.lineage.graph import LineageDirection, LineageGraph, build_lineage
from graphmem.models import DeferredIntention, Explanation, MemoryRecord, Principal
from graphmem.read import pipeline
from graphmem.read.attribution import AttributionLog
from graphmem.read.pipeline import Retrieval
from graphmem.read.rankers import DEFAULT_RANKER, Ranker, get_ranker
from graphmem.read.resolution import ConflictResolution, resolve_conflict
from graphmem.read.steps import DecisionState, MemoryConflict
from graphmem.write import lifecycle
from graphmem.write.imports import IMPORT_BATCH, import_jsonl
from graphmem.write.policy import MemoryWriteDecision, WritePolicy

__all__ = ["Memory", "Retrieval"]

class Memory:
    """graphmem's client. Use :meth:`connect`; close it (or use ``with``).

    Args:
        store: the Neo4j store. policy: write-policy settings. clock: aware-UTC clock.
    """

    def __init__(
        self, store: Neo4jStore, *, policy: WritePolicy | None = None,
        owns_driver: bool = True, on_close: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self._on_close = on_close
        self.policy = policy or WritePolicy()
        self._owns_driver = owns_driver
        self._rankers: dict[str, Ranker] = {}
        self._log = AttributionLog(store)

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
    ) -> Memory:
        """Connect to Neo4j and make sure the schema exists.

        Args:
            settings: explicit settings; else ``NEO4J_URI``/``NEO4J_USER``/
                ``NEO4J_PASSWORD``/``NEO4J_DATABASE``; else the ``graphmem db start``
                server; else, if ``start_if_needed``, the local server started now for as
                long as a client uses it (:func:`graphmem.db.server.lease`: it stops when
                the last client that needed it closes).
            policy: write-policy settings (SPEC section 6).
            clock: returns aware UTC now; used when a call's ``now``/``at`` is omitted.
            max_content_bytes: largest record content accepted, in UTF-8 bytes.

        Safe to call from many processes at once on a new database (issue 18): the
        connectivity check and schema set-up retry transient errors. The schema is set up
        once per shared driver and database in a process: a later client of the same
        settings connects in one round trip (the connectivity check).

        Raises:
            DatabaseUnavailableError: nothing to connect to, or the server does not answer.
            DatabaseAuthError: the server refused the credentials.
            StoreError: Neo4j refused the schema set-up.
        """
        from graphmem.db.server import open_store

        store, release = open_store(settings, start_if_needed=start_if_needed, clock=clock,
                                    max_content_bytes=max_content_bytes,
                                    ensure_schema=ensure_schema)
        return cls(store, policy=policy, owns_driver=False, on_close=release)

    def close(self) -> None:
        """End this client's use of its driver and of the local server: a driver
        :meth:`connect` opened closes with the last client of its settings in this process,
        a server it started stops with its last client. A driver passed in (``owns_driver``)
        is closed. Any later call of this client raises ClientClosedError."""
        self._log.close()  # after the retrievals it is logging
        self.store.close()  # a closed client sends nothing more (ClientClosedError)
        try:
            if self._owns_driver:
                self.store.driver.close()
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
        return require_aware(now, name) if now is not None else self.store.clock()

    # -- records (SPEC section 2) -----------------------------------------------------

    def put(self, record: MemoryRecord | dict[str, Any]) -> bool:
        """Validated write without policy (imports, restores). True if created.

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
        """
        return self.store.put(record)

    def put_many(self, records: Sequence[MemoryRecord | dict[str, Any]]) -> list[str]:
        """Write records without policy in one transaction; returns the ids created."""
        return self.store.put_many(records)

    def import_jsonl(self, path: str | Path, *, batch_size: int = IMPORT_BATCH) -> list[str]:
        """Import a JSON Lines file of records without policy, in ``UNWIND`` batches.

        The whole file is validated first (fields, sizes, in-file lineage); a bad line
        raises before anything is written. Each batch is one transaction, and references
        may point to earlier lines. Returns the ids created.

        Raises:
            ValidationError (line numbers in the message), RecordConflictError.
        """
        return import_jsonl(self.store, path, batch_size=batch_size)

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]]
                   ) -> Iterator[list[str]]:
        """Bulk import without policy: one transaction per batch, the next batch validated
        while the server writes the current one. Yields the ids each batch created.

        Raises (when the failing batch's turn comes; earlier batches stay written):
            ValidationError and subclasses, RecordConflictError, DanglingReferenceError.
        """
        return self.store.put_stream(batches)


    def get(self, record_id: str) -> MemoryRecord:
        """The record with this id in its current state. Raises RecordNotFoundError."""
        return self.store.get(record_id)

    def retract(self, record_id: str, *, by: str, reason: str, at: datetime | None = None
                ) -> None:
        """Retract as a tombstone with who/why/when (SPEC 2, 6). Never deletes."""
        self.store.retract(record_id, by=by, reason=reason, at=at)

    def expire(self, record_id: str, *, at: datetime, by: str = "graphmem",
               reason: str = "declared expiry") -> None:
        """Declare that a record stops being active at ``at`` (SPEC section 6)."""
        self.store.expire(record_id, at=at, by=by, reason=reason)

    def candidates(self, *, principal: Principal, scope: dict[str, str],
                   now: datetime | None = None) -> list[MemoryRecord]:
        """Eligible ACTIVE records for the caller, decided in Cypher (SPEC 3-4).

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``.
        """
        return [c.record for c in self.store.candidates(principal, scope, self._now(now))]

    def explain(self, record_id: str, *, principal: Principal, scope: dict[str, str],
                now: datetime | None = None) -> Explanation:
        """Why a record is or is not retrievable for this caller now (SPEC section 4).

        Raises:
            RecordNotFoundError, AuthorizationError.
        """
        return self.store.explain(record_id, principal, scope, self._now(now))

    def history(self, record_id: str) -> list[dict[str, Any]]:
        """The declared transitions and write decisions of a record, oldest first."""
        return self.store.transitions(record_id)

    # -- write path (SPEC section 6) --------------------------------------------------

    def write(self, proposal: MemoryRecord | dict[str, Any], *, by: str = "agent",
              now: datetime | None = None) -> MemoryWriteDecision:
        """Run a proposal through the write policy, atomically with its storage (SPEC 6).

        DISCARD stores nothing but the decision; QUARANTINE stores the record for audit,
        never eligible; PERSIST stores it. Concurrent identical writes into one scope are
        serialised on their write slot, so only one of them persists. A new record written
        while other threads' writes through the same driver are in flight (clients that
        :meth:`connect` with the same settings share one) is stored together with them, in
        one transaction, and decided exactly as alone (:mod:`graphmem.db.group_commit`).

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
        """
        return lifecycle.write_record(self.store, self.policy, proposal, by=by,
                                      at=self._now(now))

    def promote(self, record_id: str, *, by: str, reason: str) -> None:
        """Promote a quarantined record after explicit review (the only way out).

        Raises:
            PolicyError: the record is not quarantined. RecordNotFoundError.
        """
        lifecycle.promote(self.store, record_id, by=by, reason=reason)

    def supersede(self, old_ids: Sequence[str], new_record: MemoryRecord | dict[str, Any], *,
                  by: str, reason: str) -> MemoryWriteDecision:
        """Write ``new_record`` as the successor of ``old_ids`` (SPEC section 6).

        The new record must list every old id in ``supersedes`` (or list none, and they are
        added). Raises PolicyError if the write policy does not persist it.
        """
        return lifecycle.supersede(self.store, self.policy, old_ids, new_record, by=by,
                                   reason=reason)

    def consolidate(self, ids: Sequence[str], *, into: MemoryRecord | dict[str, Any],
                    by: str, reason: str) -> MemoryWriteDecision:
        """Replace duplicates with one record carrying ``derived_from`` lineage to them.

        ``into`` gets ``derived_from`` and ``supersedes`` set to ``ids`` (merged with its
        own), so the duplicates stop being active once it is effective.
        """
        return lifecycle.consolidate(self.store, self.policy, ids, into=into, by=by,
                                     reason=reason)

    def promote_procedure(self, episode_ids: Sequence[str], procedure: MemoryRecord |
                          dict[str, Any], *, by: str, reason: str) -> MemoryWriteDecision:
        """Promote episodes into a procedure once the bar is met (SPEC section 6).

        Raises:
            PolicyError: fewer than ``policy.min_verified_episodes`` verified episodes.
        """
        return lifecycle.promote_procedure(self.store, self.policy, episode_ids, procedure,
                                           by=by, reason=reason)


    # -- read path (SPEC section 5) ---------------------------------------------------

    def retrieve(
        self,
        state: DecisionState | dict[str, Any],
        *,
        principal: Principal,
        now: datetime | None = None,
        budget_chars: int = 4000,
        ranker: Ranker | str | None = None,
        k: int = 10,
        context_window: int = 1,
    ) -> Retrieval:
        """Trigger, query, eligible candidates, conflicts, rank, partners, budget, render.

        Args:
            state: the decision state (or a dict for :class:`DecisionState`).
            principal: the caller. now: aware UTC (default: the clock).
            budget_chars: the context budget, in characters of rendered memory.
            ranker: a :class:`Ranker` or a name (``bm25``, ``embedding``, ``hybrid``).
            k: how many ranked records (score > 0) to keep before partners and budget.
            context_window: thread neighbours shown beside each chosen memory when the
                budget allows (issue 16; 0: none).

        Raises:
            AuthorizationError: the state's scope names a tenant the principal may not read
                (never an empty success). ValidationError: a malformed state.
        """
        at = self._now(now)

        def cue_due(s: DecisionState) -> bool:
            return bool(s.event and self.due(s.event, principal=principal,
                                             scope=s.memory_scope, now=at))

        return pipeline.retrieve(self.store, self._log, state, principal=principal, at=at,
                                 budget_chars=budget_chars, ranker=self._ranker(ranker), k=k,
                                 cue_due=cue_due, context_window=context_window)

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
        """Settle a conflict on metadata (SPEC section 5 precedence) or report ambiguity."""
        pool = ({r.id: r for r in records} if records is not None
                else self.store.get_many(list(conflict.record_ids)))
        return resolve_conflict(conflict, pool)

    def record_exposure(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str],
                        *, at: datetime | None = None) -> None:
        """Log that an action was shown these retrieved memories.

        Raises:
            RecordNotFoundError: unknown retrieval. ValidationError: an id it did not select.
        """
        self._log.log_attribution("exposure_log", retrieval_id, action_id, memory_ids,
                                  self._now(at, "at"))

    def record_use(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str], *,
                   helped: bool | None = None, at: datetime | None = None) -> None:
        """Log that an action used these memories; ``helped`` is tri-state (None: unmeasured).

        Raises:
            RecordNotFoundError: unknown retrieval. ValidationError: an id it did not select.
        """
        self._log.log_attribution("use_log", retrieval_id, action_id, memory_ids,
                                  self._now(at, "at"), helped=helped)


    def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """A logged retrieval: its properties and selected records with scores and reasons."""
        return self._log.get_retrieval(retrieval_id)

    # -- prospective memory (SPEC section 8; graphmem.intentions does the work) ------------

    @property
    def intentions(self) -> Intentions:
        """Deferred intentions on this client's store (``get``, ``history`` and the rest)."""
        return Intentions(self.store)

    def intend(self, intention: DeferredIntention | dict[str, Any]) -> bool:
        """Store a deferred intention; True if created, False for an identical re-write.

        Raises:
            RecordConflictError: the id exists with a different definition.
            ValidationError, NaiveDatetimeError: an invalid intention.
        """
        return self.intentions.intend(intention)

    def due(self, event: dict[str, str], *, principal: Principal, scope: dict[str, str],
            now: datetime | None = None) -> list[DeferredIntention]:
        """Pending, unexpired, in-scope intentions whose cue the event matches exactly.

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``.
        """
        return self.intentions.due(event, principal=principal, scope=scope,
                                   now=self._now(now))

    def fire(self, intention_id: str, *, by: str, now: datetime | None = None) -> bool:
        """Fire an intention exactly once: True only for the one call that fired it.

        Raises:
            RecordNotFoundError: no such intention.
        """
        return self.intentions.fire(intention_id, by=by, now=self._now(now))

    def cancel(self, intention_id: str, *, by: str, reason: str,
               now: datetime | None = None) -> bool:
        """Cancel a pending intention (who/why/when kept); False if it was not pending."""
        return self.intentions.cancel(intention_id, by=by, reason=reason, now=self._now(now))

    def process_event(self, event: dict[str, str], *, principal: Principal,
                      scope: dict[str, str], by: str, now: datetime | None = None
                      ) -> list[DeferredIntention]:
        """Fire every intention the event makes due, once; return the ones this call fired.

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``.
        """
        return self.intentions.process_event(event, principal=principal, scope=scope, by=by,
                                             now=self._now(now))

    # -- deletion walks and lineage (SPEC section 7; graphmem.deletion/lineage do the work) --

    def plan_deletion(self, roots: Sequence[str] | None = None,
                      subject: dict[str, str] | None = None, redact_terms: Iterable[str] = (),
                      *, requested_by: str, reason: str, request_id: str | None = None
                      ) -> DeletionPlan:
        """Plan a deletion from root ids or a subject scope; reads only (SPEC section 7).

        ``request_id`` defaults to a fresh ``del-<uuid>``. ``plan.matches_nothing`` is True
        when the subject or roots matched nothing (issue 19).

        Raises:
            ValidationError: both or neither of roots/subject, a subject without tenant.
            DeletionError: a named root does not exist.
        """
        return plan_deletion(self.store, roots=roots, subject=subject,
                             redact_terms=redact_terms, requested_by=requested_by,
                             reason=reason, request_id=request_id)

    def apply_deletion(self, plan: DeletionPlan, *, batch_size: int | None = None,
                       progress: ProgressCallback | None = None) -> DeletionReport:
        """Apply a plan: atomic when it fits one batch, else batched and resumable; applying
        it again changes nothing. Returns the verified report.

        Raises:
            DeletionError: a stale or tampered plan, or a request id reused by another plan.
        """
        return apply_deletion(self.store, plan, batch_size=batch_size or DEFAULT_BATCH_SIZE,
                              progress=progress)

    def verify_deletion(self, request_id: str, *, redact_terms: Iterable[str] = ()
                        ) -> DeletionReport:
        """The report of an applied request with a fresh verification (pass the request's
        terms to also prove they are gone). Raises DeletionError for an unknown request."""
        return verify_deletion(self.store, request_id, redact_terms=redact_terms)

    def recompute(self, record_id: str, content: str, *, by: str, reason: str,
                  derived_from: Sequence[str] | None = None,
                  evidence_ids: Sequence[str] | None = None,
                  asserted_value: str | None = None) -> MemoryRecord:
        """Return a RECOMPUTE record to service with new content and fresh lineage.

        Raises:
            PolicyError: it is not pending recompute. RecordNotFoundError: no such record.
            DanglingReferenceError, LineageCycleError: bad new lineage.
        """
        return recompute(self.store, record_id, content, by=by, reason=reason,
                         derived_from=derived_from, evidence_ids=evidence_ids,
                         asserted_value=asserted_value)

    def lineage(self, record_id: str, direction: LineageDirection = "up",
                depth: int | None = None, *, now: datetime | None = None) -> LineageGraph:
        """The lineage of a record as a ``networkx.DiGraph`` (see :mod:`graphmem.lineage`).

        Raises:
            RecordNotFoundError: no such record. ValidationError: bad direction or depth.
        """
        return build_lineage(self.store, record_id, direction=direction, depth=depth,
                             now=self._now(now))
