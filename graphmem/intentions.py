"""Prospective memory: deferred intentions that fire on an exact cue (docs/spec/intentions.md).

An intention is not recalled, it fires (chapter section 3). Graph model::

    (:Intention {id, tenant, action, trigger_kind, trigger_value, cue_digest, status,
                 created_at, expires_at, scope_json, sensitivity, sensitivity_rank, erased,
                 fingerprint, fired_at, fired_by, cancelled_at, cancelled_by})
        -[:IN_SCOPE]->(:Scope {key, tenant, pairs})        the Scope nodes records use
    (:Transition {intention_id, kind: fire|cancel, by, reason, at})-[:ON]->(:Intention)

Due means: pending, not erased, not expired (``now >= expires_at`` is expired), eligible
for the caller exactly as a record is (tenant readable, sensitivity within clearance,
every scope pair in the query scope) and ``event[trigger_kind] == trigger_value``
exactly. The cue match runs in Cypher through the ``intention_cue_digest`` index, which
holds a keyed digest of each cue (``cue_digest``: :mod:`graphmem.db.index_key`) and never its
text, so an erased cue leaves no copy in an index file; the clear cue is compared after the
seek, so a prefix, a similar string or another tenant's identical cue can never fire.

Firing is exactly once: the firing transaction first takes the intention's write lock
(``cypher/intentions/lock.cypher``) and only then re-reads its status
(``cypher/intentions/fire.cypher``). Concurrent callers queue on the lock; the first one
to commit flips ``pending`` to ``fired`` and every later one sees ``fired``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import pydantic

from graphmem.db.access import OPERATOR, Access, ScopeQuery
from graphmem.db.codec import require_aware
from graphmem.db.ops.intentions import (
    Cue,
    IntentionOps,
    IntentionTransition,
    intention_from_props,
    intention_props,
)
from graphmem.errors import (
    AuthorizationError,
    NaiveDatetimeError,
    RecordNotFoundError,
    ValidationError,
    typed_calls,
)
from graphmem.models import DeferredIntention, IntentionStatus, Principal

__all__ = [
    "IntentionTransition",
    "Intentions",
    "coerce_intention",
    "event_cues",
    "intention_from_props",
    "intention_props",
]


def coerce_intention(intention: DeferredIntention | Mapping[str, Any]) -> DeferredIntention:
    """Validate a mapping into a :class:`DeferredIntention`, with graphmem's own errors.

    An intention whose ``expires_at`` is not after its ``created_at`` could never fire: it
    is refused, not stored as a reminder that lapsed when it was made
    (docs/spec/records.md#intentions). The rule is a write's, not the model's, so an
    intention stored before it still reads.

    Raises:
        NaiveDatetimeError: ``created_at``/``expires_at`` without a timezone.
        ValidationError: any other invalid field (empty id/action/cue, scope without tenant,
            ``expires_at <= created_at``).
    """
    if isinstance(intention, DeferredIntention):  # validated again: see coerce_record
        intention = dict(intention)
    try:
        item = DeferredIntention.model_validate(dict(intention))
    except pydantic.ValidationError as exc:
        iid = intention.get("id")
        ids = [iid] if isinstance(iid, str) and iid else []
        summary = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'intention'}: {err['msg']}"
            for err in exc.errors()
        )
        error = NaiveDatetimeError if "naive datetime" in str(exc) else ValidationError
        raise error(f"invalid intention: {summary}", record_ids=ids) from None
    if item.expires_at is not None and item.expires_at <= item.created_at:
        raise ValidationError("invalid intention: expires_at must be after created_at (an "
                              "intention expired when it is made never fires)",
                              record_ids=[item.id])
    return item


def event_cues(event: Mapping[str, str]) -> list[Cue]:
    """An event as the ``$cues`` parameter: ``[{"kind": k, "value": v}, ...]``, sorted.

    Args:
        event: what happened, e.g. ``{"migration_completed": "014"}``; keys and values
            are compared exactly (no trimming, no case folding).

    Raises:
        ValidationError: a key that is not a non-empty string, or a value that is not a string.
    """
    if not isinstance(event, Mapping):
        raise ValidationError("an event must be a mapping of cue kind to cue value")
    cues: list[Cue] = []
    for kind, value in event.items():
        if not isinstance(kind, str) or not kind or not isinstance(value, str):
            raise ValidationError("event keys must be non-empty strings and values strings")
        cues.append(Cue(kind=kind, value=value))
    return sorted(cues, key=lambda c: (c["kind"], c["value"]))


@typed_calls
class Intentions:
    """Deferred intentions in Neo4j (docs/spec/intentions.md). The client's facade delegates here.

    Args:
        ops: the store's intention operations (:class:`~graphmem.db.ops.intentions.
            Neo4jIntentions` on Neo4j).
        access: the caller's reach (default: the operator's, everything): an intention out
            of it is refused by every call that names one, with
            :class:`~graphmem.errors.OutOfReachError` (docs/spec/eligibility.md).
    """

    def __init__(self, ops: IntentionOps, access: Access = OPERATOR) -> None:
        self.ops = ops
        self.access = access

    # -- writing ------------------------------------------------------------------

    def intend(self, intention: DeferredIntention | Mapping[str, Any]) -> bool:
        """Store an intention. True if created; an identical re-write is a no-op (False).

        Identity ignores ``status``: re-writing the definition of an intention that has
        fired since is still a no-op and does not re-arm it.

        Raises:
            RecordConflictError: the id exists with a different definition.
            ValidationError, NaiveDatetimeError: an invalid intention; nothing is written.
        """
        return self.ops.create(self._admitted(intention))

    def intend_unless_pending(self, intention: DeferredIntention | Mapping[str, Any], *,
                              now: datetime) -> tuple[str, bool]:
        """Store an intention unless the same one is pending: a retry of a call that stores a
        new intention each time (the MCP ``intend`` tool names it afresh), so that neither
        a retry nor a concurrent duplicate makes a second intention firing on the same event
        (docs/spec/intentions.md#exactly-once).

        Args:
            intention: as for :meth:`intend`. now: aware time; an intention expired at it
                (``expires_at <= now``) is not pending.

        Returns:
            ``(id, created)``: the id of the oldest intention of the same scope, action, cue
            (kind and value), sensitivity and expiry that is pending, with False; else
            ``intention``'s id, with True when this call stored it. Concurrent calls are
            decided one after the other (under the scope's lock), so they store it once.

        Raises:
            as :meth:`intend`; NaiveDatetimeError: ``now`` without timezone.
        """
        at = require_aware(now, "now")
        return self.ops.create_unless_pending(self._admitted(intention), now=at)

    def _admitted(self, intention: DeferredIntention | Mapping[str, Any]) -> DeferredIntention:
        """The intention validated, confined to a bound caller's scope and within bounds.

        Raises:
            AuthorizationError: outside the caller's reach.
            ValidationError, NaiveDatetimeError: an invalid intention or one over a bound.
        """
        item = coerce_intention(intention)
        if self.access.principal is not None:
            item = item.model_copy(update={"scope": self.access.principal.confine(item.scope)})
            if not self.access.allows(item.tenant, item.sensitivity, item.scope, change=True):
                raise AuthorizationError("this intention is outside the caller's reach "
                                         "(tenant or clearance); nothing was written")
        self.ops.limits.check_intention(item)
        return item

    # -- reading ------------------------------------------------------------------

    def get(self, intention_id: str) -> DeferredIntention:
        """The intention with this id in its current status.

        Raises:
            RecordNotFoundError: no such intention, or it was erased by a deletion request.
        """
        self.access.check_ids(self.ops.reach, [intention_id], node="intention",
                              what="this intention id")
        found = self.ops.get(intention_id)
        if found is None:
            raise RecordNotFoundError(f"no intention {intention_id!r}", record_ids=[intention_id])
        if found.intention is None:
            raise RecordNotFoundError(f"intention {intention_id!r} was erased",
                                      record_ids=[intention_id])
        return found.intention

    def history(self, intention_id: str) -> list[IntentionTransition]:
        """Who fired or cancelled the intention, and when, oldest first.

        Raises:
            OutOfReachError: a bound caller named an intention out of its reach.
        """
        self.access.check_ids(self.ops.reach, [intention_id], node="intention",
                              what="this intention id")
        return self.ops.history(intention_id)

    def due(
        self, event: Mapping[str, str], *, principal: Principal, scope: dict[str, str],
        now: datetime,
    ) -> list[DeferredIntention]:
        """Intentions the event makes due for this caller (docs/spec/intentions.md), oldest first.

        Args:
            event: cue kind -> cue value, matched exactly against each intention's
                ``trigger_kind``/``trigger_value``.
            principal: the caller; scope: the query scope (must contain ``tenant``).
            now: aware time; an intention with ``expires_at <= now`` is never due.

        Raises:
            AuthorizationError: ``scope["tenant"]`` is not one of ``principal.tenants``, or
                ``principal`` reaches beyond the one this object's client is bound to.
            ValidationError, NaiveDatetimeError: malformed event, scope or ``now``.
        """
        return self.due_within(event, self.access.authorize(principal, scope, now,
                                                            self.ops.limits))

    def due_within(self, event: Mapping[str, str], reach: ScopeQuery
                   ) -> list[DeferredIntention]:
        """As :meth:`due`, for a caller already authorized: ``reach`` is its principal,
        confined query scope and time (the read path's one authorization).

        Raises:
            ValidationError: a malformed event.
            AuthorizationError: ``reach`` is a principal's beyond the one this object's
                client is bound to (a bound client's reach is only ever narrowed).
        """
        if not isinstance(reach, ScopeQuery):
            raise ValidationError(f"reach must be a ScopeQuery, got {type(reach).__name__}")
        self.access.check_within(reach.principal)
        self.ops.limits.check_event(event)
        cues = event_cues(event)
        if not cues:
            return []
        return sorted(self.ops.due(reach, cues), key=lambda i: (i.created_at, i.id))

    # -- transitions --------------------------------------------------------------

    def fire(self, intention_id: str, *, by: str, now: datetime, reason: str = "cue matched"
             ) -> bool:
        """Fire an intention exactly once. True for the one call that fired it.

        The transaction locks the intention node before reading its status, so when many
        workers fire at the same moment exactly one returns True; the rest (and any later
        call) get False. An erased, cancelled or expired (``now >= expires_at``) intention
        is never fired. The winner is logged as a ``fire`` transition with ``by`` and ``now``.

        Raises:
            RecordNotFoundError: no such intention. ValidationError: ``by`` or ``reason``
            not a non-empty string.
            NaiveDatetimeError: ``now`` without timezone.
        """
        self.ops.limits.check_notes([intention_id], by=by, reason=reason)
        at = require_aware(now, "now")
        self.access.check_ids(self.ops.reach, [intention_id], node="intention", change=True,
                              what="this intention id")
        return self._fire_allowed(intention_id, by=by, at=at, reason=reason)

    def _fire_allowed(self, intention_id: str, *, by: str, at: datetime, reason: str) -> bool:
        """:meth:`fire` once the caller's reach over ``intention_id`` has been decided."""
        token = uuid.uuid4().hex  # fixed outside the retried function: see intentions/fire
        return self.ops.fire(intention_id, by=by, at=at, reason=reason, token=token)

    def cancel(self, intention_id: str, *, by: str, reason: str, now: datetime) -> bool:
        """Cancel a pending intention; True if this call cancelled it, False if it was not
        pending any more (fired, cancelled). Locks before reading, like :meth:`fire`.

        Raises:
            RecordNotFoundError: no such intention. ValidationError: ``by`` or ``reason``
            not a non-empty string.
        """
        self.ops.limits.check_notes([intention_id], by=by, reason=reason)
        at = require_aware(now, "now")
        self.access.check_ids(self.ops.reach, [intention_id], node="intention", change=True,
                              what="this intention id")
        return self.ops.cancel(intention_id, by=by, at=at, reason=reason)

    def process_event(
        self, event: Mapping[str, str], *, principal: Principal, scope: dict[str, str],
        by: str, now: datetime,
    ) -> list[DeferredIntention]:
        """Fire every intention the event makes due, once; return those this call fired.

        Workers that process the same event concurrently split the due intentions between
        them: each intention is in exactly one worker's result. A bound caller fires only
        the intentions it may change (those belonging to its confinement).

        Raises:
            AuthorizationError, ValidationError, NaiveDatetimeError: as :meth:`due`.
        """
        self.ops.limits.check_notes([], by=by)
        at = require_aware(now, "now")
        fired = []
        for intention in self.due(event, principal=principal, scope=scope, now=at):
            if not self.access.allows(intention.tenant, intention.sensitivity,
                                      intention.scope, change=True):
                continue  # due for a confined caller, but not its to fire (tenant-wide)
            # the reach just decided is the one check: firing does not ask the store again
            reason = f"event cue {intention.trigger_kind}={intention.trigger_value}"
            self.ops.limits.check_notes([intention.id], reason=reason)
            if self._fire_allowed(intention.id, by=by, at=at, reason=reason):
                fired.append(intention.model_copy(update={"status": IntentionStatus.FIRED}))
        return fired
