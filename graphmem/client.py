"""``Memory``: the client facade agents, privacy teams and analysts call.

It only wires modules together: the store (exact decisions in Cypher), the write policy,
the read path's pure steps and the attribution log. Section numbers refer to SPEC.md.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pydantic
from neo4j import ManagedTransaction

from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.db.store import (
    DEFAULT_MAX_CONTENT_BYTES,
    Candidate,
    Clock,
    Neo4jStore,
    ScopeQuery,
    coerce_record,
    dedup_key,
    record_from_props,
    require_aware,
    scope_key,
    scope_pairs,
)
from graphmem.deletion.plan import (
    DEFAULT_BATCH_SIZE,
    DeletionPlan,
    DeletionReport,
    ProgressCallback,
    apply_deletion,
    plan_deletion,
    recompute,
    verify_deletion,
)
from graphmem.demo.scenario import iter_jsonl
from graphmem.errors import (
    DatabaseUnavailableError,
    PolicyError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.intentions import Intentions
from graphmem.lineage.graph import LineageDirection, LineageGraph, build_lineage
from graphmem.models import (
    DeferredIntention,
    Explanation,
    MemoryKind,
    MemoryRecord,
    Principal,
    utc_now,
)
from graphmem.read.rankers import Ranker, get_ranker, order_by_score
from graphmem.read.resolution import ConflictResolution, resolve_conflict
from graphmem.read.steps import (
    DecisionState,
    MemoryConflict,
    RetrievalTrace,
    RetrievedMemory,
    build_query,
    detect_conflicts,
    fit_to_budget,
    preserve_conflict_partners,
    render_memories,
    triggers_fired,
)
from graphmem.write.policy import (
    MemoryWriteDecision,
    WriteDisposition,
    WritePolicy,
    decide,
    verified_episodes,
)

__all__ = ["Memory", "Retrieval"]

IMPORT_BATCH = 1000


@dataclass(frozen=True)
class Retrieval:
    """What the read path returns (SPEC section 5).

    Attributes:
        memories: chosen memories in score order (conflict components whole).
        conflicts: every conflict among the candidates, even when none of it fit.
        rendered: the memories as shown to a model, each with id, kind, source, created.
        trace: what happened and why, as logged for attribution.
    """

    memories: tuple[RetrievedMemory, ...]
    conflicts: tuple[MemoryConflict, ...]
    rendered: str
    trace: RetrievalTrace

    @property
    def ids(self) -> list[str]:
        """Ids of the chosen memories, in order."""
        return [m.record.id for m in self.memories]


class Memory:
    """graphmem's client. Use :meth:`connect`; close it (or use ``with``).

    Args:
        store: the Neo4j store. policy: write-policy settings. clock: aware-UTC clock.
    """

    def __init__(
        self, store: Neo4jStore, *, policy: WritePolicy | None = None,
        owns_driver: bool = True,
    ) -> None:
        self.store = store
        self.policy = policy or WritePolicy()
        self._owns_driver = owns_driver
        self._rankers: dict[str, Ranker] = {}
        # digests of candidate sets this client has logged (their ids need not be resent)
        self._candidate_sets: set[str] = set()

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
                server, started now if ``start_if_needed``.
            policy: write-policy settings (SPEC section 6).
            clock: returns aware UTC now; used when a call's ``now``/``at`` is omitted.
            max_content_bytes: largest record content accepted, in UTF-8 bytes.

        Raises:
            DatabaseUnavailableError: nothing to connect to, or the server does not answer.
        """
        if settings is None:
            from graphmem.db.server import resolve_settings

            settings = resolve_settings(start_if_needed=start_if_needed)
        driver = open_driver(settings)
        try:
            driver.verify_connectivity()
        except Exception as exc:
            driver.close()
            raise DatabaseUnavailableError(
                f"cannot reach Neo4j at {settings.uri}: {type(exc).__name__}"
            ) from exc
        store = Neo4jStore(driver, database=settings.database, clock=clock,
                           max_content_bytes=max_content_bytes)
        if ensure_schema:
            store.ensure_schema()
        return cls(store, policy=policy)

    def close(self) -> None:
        """Close the driver (if this client opened it)."""
        if self._owns_driver:
            self.store.driver.close()

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
        path = Path(path)
        records: list[MemoryRecord] = []
        for number, obj in iter_jsonl(path):
            try:
                record = coerce_record(obj)
                self.store.check_record(record)
            except ValidationError as exc:
                raise type(exc)(f"{path.name}:{number}: {exc}", record_ids=exc.record_ids
                                ) from None
            records.append(record)
        self.store.check_batch_lineage(records)
        self._precheck_import(records)
        created: list[str] = []
        for ids in self.put_stream(records[start:start + batch_size]
                                   for start in range(0, len(records), batch_size)):
            created += ids
        return created

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]]
                   ) -> Iterator[list[str]]:
        """Bulk import without policy: one transaction per batch, the next batch validated
        while the server writes the current one. Yields the ids each batch created.

        Raises (when the failing batch's turn comes; earlier batches stay written):
            ValidationError and subclasses, RecordConflictError, DanglingReferenceError.
        """
        return self.store.put_stream(batches)

    def _precheck_import(self, records: Sequence[MemoryRecord]) -> None:
        def work(tx: ManagedTransaction) -> None:
            self.store.prepare_in_tx(tx, records)
        self.store.transaction("import_precheck", work)

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
        """Run a proposal through the write policy, atomically with its storage.

        DISCARD stores nothing but the decision; QUARANTINE stores the record for audit,
        never eligible; PERSIST stores it. Concurrent identical writes into one scope are
        serialised on the scope's lock, so only one of them persists.

        Raises:
            ValidationError and subclasses, RecordConflictError: nothing is written.
        """
        record = coerce_record(proposal)
        self.store.check_record(record)
        at = self._now(now)

        def work(tx: ManagedTransaction) -> MemoryWriteDecision:
            self.store.run(tx, "scope_lock", scope_key=scope_key(record.scope),
                           tenant=record.tenant, scope_pairs=scope_pairs(record.scope))
            todo = self.store.prepare_in_tx(tx, [record])
            if not todo:
                decision = MemoryWriteDecision(record.id, WriteDisposition.DISCARD,
                                               "identical record already stored")
                self.store.run(tx, "write_decision_log", record_id=record.id,
                               disposition=decision.disposition.value,
                               reason=decision.reason, at=at, by=by)
                return decision
            dup_rows = self.store.run(tx, "duplicates_active", scope_key=scope_key(record.scope),
                                      dedup_key=dedup_key(record), now=at)
            evidence_rows = self.store.run(tx, "records_get", ids=list(record.evidence_ids))
            evidence = {row["record"]["id"]: record_from_props(row["record"])
                        for row in evidence_rows if not row["record"].get("erased")}
            decision = decide(record, policy=self.policy,
                              duplicate_ids=[row["id"] for row in dup_rows], evidence=evidence)
            if decision.disposition is not WriteDisposition.DISCARD:
                self.store.create_in_tx(
                    tx, [record],
                    quarantined=decision.disposition is WriteDisposition.QUARANTINE)
            self.store.run(tx, "write_decision_log", record_id=record.id,
                           disposition=decision.disposition.value, reason=decision.reason,
                           at=at, by=by)
            return decision

        result: MemoryWriteDecision = self.store.transaction("write", work)
        return result

    def promote(self, record_id: str, *, by: str, reason: str) -> None:
        """Promote a quarantined record after explicit review (the only way out).

        Raises:
            PolicyError: the record is not quarantined. RecordNotFoundError.
        """
        if not self.store.state(record_id).quarantined:
            raise PolicyError("only a quarantined record can be promoted",
                              record_ids=[record_id])
        self.store.set_quarantine(record_id, False, by=by, reason=reason)

    def supersede(self, old_ids: Sequence[str], new_record: MemoryRecord | dict[str, Any], *,
                  by: str, reason: str) -> MemoryWriteDecision:
        """Write ``new_record`` as the successor of ``old_ids`` (SPEC section 6).

        The new record must list every old id in ``supersedes`` (or list none, and they are
        added). Raises PolicyError if the write policy does not persist it.
        """
        record = coerce_record(new_record)
        missing = [i for i in old_ids if i not in record.supersedes]
        if missing:
            record = record.model_copy(update={"supersedes": (*record.supersedes, *missing)})
            record = coerce_record(record.model_dump())
        for old in old_ids:
            self.store.get(old)
        decision = self.write(record, by=by)
        if decision.disposition is not WriteDisposition.PERSIST:
            raise PolicyError(f"successor not persisted: {decision.reason}",
                              record_ids=[record.id])
        self._log(old_ids, "superseded", by, f"{reason} (successor {record.id})")
        return decision

    def consolidate(self, ids: Sequence[str], *, into: MemoryRecord | dict[str, Any],
                    by: str, reason: str) -> MemoryWriteDecision:
        """Replace duplicates with one record carrying ``derived_from`` lineage to them.

        ``into`` gets ``derived_from`` and ``supersedes`` set to ``ids`` (merged with its
        own), so the duplicates stop being active once it is effective.
        """
        if len(ids) < 2:
            raise ValidationError("consolidate needs at least two records", record_ids=ids)
        record = coerce_record(into)
        for i in ids:
            self.store.get(i)
        merged = record.model_dump()
        merged["derived_from"] = tuple(dict.fromkeys((*record.derived_from, *ids)))
        merged["supersedes"] = tuple(dict.fromkeys((*record.supersedes, *ids)))
        decision = self.supersede(ids, merged, by=by, reason=reason)
        self._log(ids, "consolidated", by, f"{reason} (into {record.id})")
        return decision

    def promote_procedure(self, episode_ids: Sequence[str], procedure: MemoryRecord |
                          dict[str, Any], *, by: str, reason: str) -> MemoryWriteDecision:
        """Promote episodes into a procedure once the bar is met (SPEC section 6).

        Raises:
            PolicyError: fewer than ``policy.min_verified_episodes`` verified episodes
                (unless the procedure's authority is human_instruction or higher).
        """
        record = coerce_record(procedure)
        if record.kind is not MemoryKind.PROCEDURAL:
            raise ValidationError("promote_procedure writes a procedural record",
                                  record_ids=[record.id])
        episodes = self.store.get_many(list(episode_ids))
        verified = verified_episodes(list(episodes.values()))
        if len(verified) < self.policy.min_verified_episodes:
            raise PolicyError(
                f"{len(verified)} verified episodes; the bar is "
                f"{self.policy.min_verified_episodes}", record_ids=list(episode_ids))
        merged = record.model_dump()
        merged["evidence_ids"] = tuple(dict.fromkeys((*record.evidence_ids, *episode_ids)))
        merged["derived_from"] = tuple(dict.fromkeys((*record.derived_from, *episode_ids)))
        decision = self.write(merged, by=by)
        if decision.disposition is not WriteDisposition.PERSIST:
            raise PolicyError(f"procedure not persisted: {decision.reason}",
                              record_ids=[record.id])
        self._log([record.id], "promoted_procedure", by, reason)
        return decision

    def _log(self, ids: Iterable[str], kind: str, by: str, reason: str) -> None:
        at = self.store.clock()

        def work(tx: ManagedTransaction) -> None:
            for i in ids:
                self.store.log_transition(tx, i, kind, by, reason, at)

        self.store.transaction(kind, work)

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
    ) -> Retrieval:
        """Trigger, query, eligible candidates, conflicts, rank, partners, budget, render.

        Args:
            state: the decision state (or a dict for :class:`DecisionState`).
            principal: the caller. now: aware UTC (default: the clock).
            budget_chars: the context budget, in characters of rendered memory.
            ranker: a :class:`Ranker` or a name (``bm25``, ``embedding``, ``hybrid``).
            k: how many ranked records (score > 0) to keep before partners and budget.

        Raises:
            AuthorizationError: the state's scope names a tenant the principal may not read
                (never an empty success). ValidationError: a malformed state.
        """
        if isinstance(state, dict):
            try:
                state = DecisionState.model_validate(state)
            except pydantic.ValidationError as exc:
                raise ValidationError(f"invalid decision state: {exc}") from None
        if budget_chars < 0 or k < 1:
            raise ValidationError("budget_chars must be >= 0 and k >= 1")
        at = self._now(now)
        ScopeQuery.build(principal, state.memory_scope, at)  # authorization first
        if state.event and not state.due_cue and self.due(
                state.event, principal=principal, scope=state.memory_scope, now=at):
            state = state.model_copy(update={"due_cue": True})  # a due intention is a trigger
        chosen_ranker = self._ranker(ranker)
        fired = triggers_fired(state)
        query = build_query(state)
        retrieval_id = f"ret-{uuid.uuid4().hex}"
        if not fired:
            trace = RetrievalTrace(retrieval_id, at, False, (), query, chosen_ranker.name,
                                   budget_chars=budget_chars,
                                   notes=("no trigger fired: prior information could not "
                                          "change this decision; nothing retrieved",))
            result = Retrieval((), (), "", trace)
            self._log_retrieval(result, principal, state)
            return result

        found: list[Candidate] = self.store.candidates(principal, state.memory_scope, at)
        records = [c.record for c in found]
        conflicts = detect_conflicts(records, {c.record.id: c.conflict_ids
                                                for c in found if c.conflict_ids})
        scores = chosen_ranker.score(query, records)
        ordered = order_by_score(records, scores)
        kept: list[RetrievedMemory] = []  # the first k with score > 0 (ordered is best first)
        for r, s in ordered:
            if s <= 0 or len(kept) == k:
                break
            kept.append(RetrievedMemory(r, s, f"{chosen_ranker.name} score {s:.3f}"))
        with_partners = preserve_conflict_partners(kept, records, conflicts)
        partner_ids = tuple(sorted({m.record.id for m in with_partners}
                                   - {m.record.id for m in kept}))
        chosen, over = fit_to_budget(with_partners, budget_chars=budget_chars,
                                     conflicts=conflicts)
        rendered = render_memories(chosen)
        trace = RetrievalTrace(
            retrieval_id, at, True, fired, query, chosen_ranker.name,
            candidate_ids=tuple(sorted(r.id for r in records)),
            ranked=tuple((r.id, s) for r, s in ordered),
            partner_ids=partner_ids, over_budget_ids=tuple(over),
            budget_chars=budget_chars, spent_chars=len(rendered),
        )
        result = Retrieval(tuple(chosen), tuple(conflicts), rendered, trace)
        self._log_retrieval(result, principal, state)
        return result

    def _ranker(self, ranker: Ranker | str | None) -> Ranker:
        """Rankers by name are kept per client, so their caches outlive one call."""
        if ranker is not None and not isinstance(ranker, str):
            return ranker
        name = ranker or "bm25"
        if name not in self._rankers:
            self._rankers[name] = get_ranker(name)
        return self._rankers[name]

    def _log_retrieval(self, result: Retrieval, principal: Principal, state: DecisionState
                       ) -> None:
        t = result.trace
        tenant = state.memory_scope["tenant"]
        digest = hashlib.sha256(json.dumps([tenant, *t.candidate_ids]).encode()).hexdigest()
        stored = digest in self._candidate_sets
        params = dict(
            id=t.retrieval_id, at=t.at, triggered=t.triggered,
            triggers=list(t.triggers), query=t.query, ranker=t.ranker, tenant=tenant,
            scope_json=json.dumps(state.memory_scope, sort_keys=True),
            tenants=sorted(principal.tenants), clearance=principal.clearance.value,
            candidate_digest=digest, candidate_count=len(t.candidate_ids),
            candidate_ids=None if stored else list(t.candidate_ids), selected_ids=result.ids,
            conflict_keys=[c.key for c in result.conflicts], budget_chars=t.budget_chars,
            selected=[{"id": m.record.id, "score": m.score, "reason": m.reason, "rank": i}
                      for i, m in enumerate(result.memories)],
        )

        def work(tx: ManagedTransaction) -> None:
            if self.store.run(tx, "retrieval_log", **params)[0]["incomplete"]:
                self.store.run(tx, "candidate_set_fill", digest=digest,
                               ids=list(t.candidate_ids))

        self.store.transaction("retrieval_log", work)
        if len(self._candidate_sets) >= 4096:
            self._candidate_sets.clear()
        self._candidate_sets.add(digest)

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
        self._log_attribution("exposure_log", retrieval_id, action_id, memory_ids, at)

    def record_use(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str], *,
                   helped: bool | None = None, at: datetime | None = None) -> None:
        """Log that an action used these memories; ``helped`` is tri-state (None: unmeasured).

        Raises:
            RecordNotFoundError: unknown retrieval. ValidationError: an id it did not select.
        """
        self._log_attribution("use_log", retrieval_id, action_id, memory_ids, at,
                              helped=helped)

    def _log_attribution(self, name: str, retrieval_id: str, action_id: str,
                         memory_ids: Sequence[str], at: datetime | None, **extra: Any) -> None:
        if not action_id:
            raise ValidationError("action_id must be non-empty")
        rows = self.store.read("retrieval_get", id=retrieval_id)
        if not rows:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        selected = set(rows[0]["retrieval"].get("selected_ids") or [])
        stray = sorted(set(memory_ids) - selected)
        if stray:
            raise ValidationError("these memories were not selected by that retrieval",
                                  record_ids=stray)
        self.store.write(name, retrieval_id=retrieval_id, action_id=action_id,
                         at=self._now(at, "at"), memory_ids=list(memory_ids), **extra)

    def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """A logged retrieval: its properties and selected records with scores and reasons."""
        rows = self.store.read("retrieval_get", id=retrieval_id)
        if not rows:
            raise RecordNotFoundError(f"no retrieval {retrieval_id!r}")
        return {"retrieval": rows[0]["retrieval"], "selected": rows[0]["selected"]}

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
                      *, requested_by: str, reason: str) -> DeletionPlan:
        """Plan a deletion from root ids or a subject scope; reads only (SPEC section 7).

        Raises:
            ValidationError: both or neither of roots/subject, a subject without tenant.
            DeletionError: a named root does not exist.
        """
        return plan_deletion(self.store, roots=roots, subject=subject,
                             redact_terms=redact_terms, requested_by=requested_by,
                             reason=reason)

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
