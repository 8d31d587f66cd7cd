"""The calls of :class:`graphmem.Memory` that log attribution, keep deferred intentions and
delete: one-line delegations, as the rest of the facade, kept in their own module so the
facade stays small. Each call checks the ids it names against the client's
:class:`~graphmem.db.access.Access` first (docs/spec/eligibility.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.db.access import Access, out_of_reach
from graphmem.db.ops.intentions import Neo4jIntentions
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
from graphmem.deletion.reach import check_plan, check_report
from graphmem.errors import DeletionError, RecordNotFoundError
from graphmem.intentions import Intentions
from graphmem.lineage.graph import LineageDirection, LineageGraph, build_lineage
from graphmem.models import DeferredIntention, MemoryRecord, Principal
from graphmem.read.attribution import AttributionLog

__all__ = ["AttributionCalls", "DeletionCalls", "ProspectiveCalls"]


class _Calls:
    """What the calls use of the client."""

    _store: Neo4jStore
    access: Access
    _log: AttributionLog

    def _now(self, now: datetime | None, name: str = "now") -> datetime:
        raise NotImplementedError


class AttributionCalls(_Calls):
    """Exposure and use of retrieved memories (docs/spec/evaluation.md's attribution loop)."""

    def record_exposure(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str],
                        *, at: datetime | None = None) -> None:
        """Log that an action was shown these retrieved memories.

        Raises:
            RecordNotFoundError: unknown retrieval (OutOfReachError for a bound client's
            retrieval made outside its confinement). ValidationError: an id it did not select.
        """
        self._check_retrieval(retrieval_id)
        self._log.log_attribution("exposure", retrieval_id, action_id, memory_ids,
                                  self._now(at, "at"))

    def record_use(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str], *,
                   helped: bool | None = None, at: datetime | None = None) -> None:
        """Log that an action used these memories; ``helped`` is tri-state (None: unmeasured).

        Raises:
            RecordNotFoundError: unknown retrieval (OutOfReachError for a bound client's
            retrieval made outside its confinement). ValidationError: an id it did not select.
        """
        self._check_retrieval(retrieval_id)
        self._log.log_attribution("use", retrieval_id, action_id, memory_ids,
                                  self._now(at, "at"), helped=helped)


    def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """A logged retrieval: its properties and selected records with scores and reasons.
        RecordNotFoundError; OutOfReachError for a bound client's retrieval made outside its
        confinement (one made within it by a wider principal names none of its other
        tenants)."""
        found = self._check_retrieval(retrieval_id)
        return {**found, "retrieval": self.access.retrieval_shown(found["retrieval"])}

    def _check_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        self._store.limits.check_lookup("this retrieval id", [retrieval_id])
        try:
            found = self._log.get_retrieval(retrieval_id)
        except RecordNotFoundError:
            if self.access.bound:
                raise out_of_reach("this retrieval id") from None
            raise
        self.access.check_retrieval(found["retrieval"])
        return found


class ProspectiveCalls(_Calls):
    """Deferred intentions (docs/spec/intentions.md; :mod:`graphmem.intentions` does the work)."""


    @property
    def intentions(self) -> Intentions:
        """Deferred intentions on this client's store (``get``, ``history`` and the rest),
        within this client's reach."""
        return Intentions(Neo4jIntentions(self._store), self.access)

    def intend(self, intention: DeferredIntention | Mapping[str, Any]) -> bool:
        """Store a deferred intention; True if created, False for an identical re-write.

        Raises:
            RecordConflictError: the id exists with a different definition.
            ValidationError, NaiveDatetimeError: an invalid intention.
        """
        return self.intentions.intend(intention)

    def due(self, event: Mapping[str, str], *, principal: Principal | None = None,
            scope: dict[str, str], now: datetime | None = None) -> list[DeferredIntention]:
        """Pending, unexpired, in-scope intentions whose cue the event matches exactly.

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``.
        """
        return self.intentions.due(event, principal=self.access.reader(principal),
                                   scope=scope, now=self._now(now))

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

    def process_event(self, event: Mapping[str, str], *, principal: Principal | None = None,
                      scope: dict[str, str], by: str, now: datetime | None = None
                      ) -> list[DeferredIntention]:
        """Fire every intention the event makes due, once; return the ones this call fired.

        Raises:
            AuthorizationError: the scope's tenant is not one of ``principal.tenants``.
        """
        return self.intentions.process_event(event, principal=self.access.reader(principal),
                                             scope=scope, by=by, now=self._now(now))


class DeletionCalls(_Calls):
    """Deletion walks, recomputation and lineage (docs/spec/deletion.md; :mod:`graphmem.deletion`
    and :mod:`graphmem.lineage` do the work)."""


    def plan_deletion(self, roots: Sequence[str] | None = None,
                      subject: dict[str, str] | None = None, redact_terms: Iterable[str] = (),
                      *, requested_by: str, reason: str, request_id: str | None = None,
                      allow_missing: bool = False) -> DeletionPlan:
        """Plan a deletion from root ids or a subject scope; reads only (docs/spec/deletion.md).

        ``request_id`` defaults to a fresh ``del-<uuid>``. ``plan.matches_nothing`` is True
        when the subject or roots matched nothing.

        A bound client's subject is confined (``{}``: its own scope) and its plan must change
        nothing outside its reach, or is refused whole (:mod:`graphmem.deletion.reach`).

        Raises:
            ValidationError: both or neither of roots/subject, a subject without tenant.
            DeletionError: a named root does not exist (without ``allow_missing``, which
                leaves it out and lists it in ``missing_roots``).
            OutOfReachError, AuthorizationError: a bound client's root, subject or plan
                beyond its reach.
        """
        return plan_deletion(self._store, roots=roots, subject=subject,
                             redact_terms=redact_terms, requested_by=requested_by,
                             reason=reason, request_id=request_id, access=self.access,
                             allow_missing=allow_missing)

    def apply_deletion(self, plan: DeletionPlan, *, batch_size: int | None = None,
                       progress: ProgressCallback | None = None,
                       redact_terms: Iterable[str] | None = None) -> DeletionReport:
        """Apply a plan: atomic when it fits one batch, else batched and resumable; applying
        it again changes nothing. Returns the verified report. A plan loaded from JSON holds
        its terms only as digests: pass ``redact_terms`` again.

        Raises:
            DeletionError: a stale or tampered plan, a request id reused by another plan, or
                missing or wrong terms.
            AuthorizationError: a bound client's plan changes what it may not, or was made
                with a wider reach than the client's (by the operator, say).
        """
        check_plan(self._store, self.access, plan)
        return apply_deletion(self._store, plan, batch_size=batch_size or DEFAULT_BATCH_SIZE,
                              progress=progress, redact_terms=redact_terms, access=self.access)

    def verify_deletion(self, request_id: str, *, redact_terms: Iterable[str] = ()
                        ) -> DeletionReport:
        """The report of an applied request with a fresh verification of the request's own
        terms (kept as keyed digests; ``redact_terms`` need not be given).
        Raises DeletionError for an unknown request
        (OutOfReachError for a bound client, also for a request beyond its reach)."""
        try:
            found = verify_deletion(self._store, request_id, redact_terms=redact_terms)
        except DeletionError:
            if self.access.bound:
                raise out_of_reach("this deletion request id") from None
            raise
        check_report(self._store, self.access, found)
        return found

    def recompute(self, record_id: str, content: str, *, by: str, reason: str,
                  derived_from: Sequence[str] | None = None,
                  evidence_ids: Sequence[str] | None = None,
                  asserted_value: str | None = None) -> MemoryRecord:
        """Return a RECOMPUTE record to service with new content and fresh lineage.

        Raises:
            PolicyError: it is not pending recompute. RecordNotFoundError: no such record.
            DanglingReferenceError, LineageCycleError: bad new lineage.
            OutOfReachError: a bound client's record or new lineage out of reach.
        """
        self.access.check_ids(self._store, [record_id], change=True, what="this record id")
        self.access.check_ids(self._store, [*(derived_from or ()), *(evidence_ids or ())],
                              what="derived_from or evidence_ids")
        done = recompute(self._store, record_id, content, by=by, reason=reason,
                         derived_from=derived_from, evidence_ids=evidence_ids,
                         asserted_value=asserted_value)
        return self.access.shown(self._store, [done])[0]

    def lineage(self, record_id: str, direction: LineageDirection = "up",
                depth: int | None = None, *, now: datetime | None = None) -> LineageGraph:
        """The lineage of a record as a ``networkx.DiGraph`` (see :mod:`graphmem.lineage`).

        Raises:
            RecordNotFoundError: no such record. ValidationError: bad direction or depth.
            OutOfReachError: a bound client's record out of reach (records out of reach
            elsewhere in the graph are left out).
        """
        self.access.check_ids(self._store, [record_id], what="this record id")
        return build_lineage(self._store, record_id, direction=direction, depth=depth,
                             now=self._now(now), access=self.access)
