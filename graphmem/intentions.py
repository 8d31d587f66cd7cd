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

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pydantic
from neo4j import ManagedTransaction

from graphmem.db.access import OPERATOR, Access
from graphmem.db.codec import require_aware, scope_key, scope_pairs
from graphmem.db.eligibility import ScopeQuery
from graphmem.db.index_key import (
    INDEX_KEY,
    cached_key,
    cue_digest,
    index_key,
    read_key,
    redigest_cues,
)
from graphmem.db.store import Neo4jStore
from graphmem.errors import (
    AuthorizationError,
    ConstraintViolationError,
    NaiveDatetimeError,
    RecordConflictError,
    RecordNotFoundError,
    ValidationError,
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

    Raises:
        NaiveDatetimeError: ``created_at``/``expires_at`` without a timezone.
        ValidationError: any other invalid field (empty id/action/cue, scope without tenant).
    """
    if isinstance(intention, DeferredIntention):  # validated again: see coerce_record
        intention = dict(intention)
    try:
        return DeferredIntention.model_validate(dict(intention))
    except pydantic.ValidationError as exc:
        iid = intention.get("id")
        ids = [iid] if isinstance(iid, str) and iid else []
        summary = "; ".join(
            f"{'.'.join(str(x) for x in err['loc']) or 'intention'}: {err['msg']}"
            for err in exc.errors()
        )
        error = NaiveDatetimeError if "naive datetime" in str(exc) else ValidationError
        raise error(f"invalid intention: {summary}", record_ids=ids) from None


def _fingerprint(intention: DeferredIntention) -> str:
    """Hash of what defines an intention; ``status`` is left out because it changes later."""
    payload = intention.model_dump(mode="json", exclude={"status"})
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def intention_props(intention: DeferredIntention) -> dict[str, Any]:
    """Flat Neo4j properties of an intention (the scope as JSON, ``erased`` false)."""
    return {
        "id": intention.id,
        "tenant": intention.tenant,
        "action": intention.action,
        "trigger_kind": intention.trigger_kind,
        "trigger_value": intention.trigger_value,
        "status": intention.status.value,
        "created_at": intention.created_at,
        "expires_at": intention.expires_at,
        "scope_json": json.dumps(intention.scope, sort_keys=True, ensure_ascii=False),
        "sensitivity": intention.sensitivity.value,
        "sensitivity_rank": intention.sensitivity.rank,
        "erased": False,
        "fingerprint": _fingerprint(intention),
    }


def intention_from_props(props: Mapping[str, Any]) -> DeferredIntention:
    """The one place where a stored Intention row becomes a :class:`DeferredIntention`."""
    def native(value: Any) -> Any:
        return value.to_native() if hasattr(value, "to_native") else value

    return DeferredIntention.model_validate({
        "id": props["id"],
        "action": props["action"],
        "trigger_kind": props["trigger_kind"],
        "trigger_value": props["trigger_value"],
        "scope": json.loads(props["scope_json"]),
        "status": props["status"],
        "created_at": native(props["created_at"]),
        "expires_at": native(props.get("expires_at")),
        "sensitivity": props["sensitivity"],
    })


def event_cues(event: Mapping[str, str]) -> list[dict[str, str]]:
    """An event as the ``$cues`` parameter: ``[{"kind": k, "value": v}, ...]``, sorted.

    Args:
        event: what happened, e.g. ``{"migration_completed": "014"}``; keys and values
            are compared exactly (no trimming, no case folding).

    Raises:
        ValidationError: a key that is not a non-empty string, or a value that is not a string.
    """
    if not isinstance(event, Mapping):
        raise ValidationError("an event must be a mapping of cue kind to cue value")
    cues = []
    for kind, value in event.items():
        if not isinstance(kind, str) or not kind or not isinstance(value, str):
            raise ValidationError("event keys must be non-empty strings and values strings")
        cues.append({"kind": kind, "value": value})
    return sorted(cues, key=lambda c: (c["kind"], c["value"]))


@dataclass(frozen=True)
class IntentionTransition:
    """One declared transition of an intention: ``kind`` is ``fire`` or ``cancel``."""

    kind: str
    by: str
    reason: str
    at: datetime


class Intentions:
    """Deferred intentions in Neo4j (docs/spec/intentions.md). The client's facade delegates here.

    Args:
        store: the record store; intentions share its driver, database and Scope nodes.
        access: the caller's reach (default: the operator's, everything): an intention out
            of it is refused by every call that names one, with
            :class:`~graphmem.errors.OutOfReachError` (docs/spec/eligibility.md).
    """

    def __init__(self, store: Neo4jStore, access: Access = OPERATOR) -> None:
        self.store = store
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
        item = coerce_intention(intention)
        if self.access.principal is not None:
            item = item.model_copy(update={"scope": self.access.principal.confine(item.scope)})
            if not self.access.allows(item.tenant, item.sensitivity, item.scope, change=True):
                raise AuthorizationError("this intention is outside the caller's reach "
                                         "(tenant or clearance); nothing was written")
        self.store.limits.check_intention(item)
        props = intention_props(item)
        new_key: list[bytes] = []  # the index key, when this call's transaction made it

        def work(tx: ManagedTransaction) -> bool:
            new_key.clear()
            rows = self.store.run(tx, "intentions/existing", id=item.id)
            if rows:
                if rows[0]["fingerprint"] != props["fingerprint"]:
                    raise RecordConflictError(
                        "this intention id already exists with a different definition",
                        record_ids=[item.id])
                return False
            key, made = index_key(self.store, tx)
            if made:
                new_key.append(key)
            digest = cue_digest(key, item.tenant, item.trigger_kind, item.trigger_value)
            self.store.run(tx, "intentions/create", props={**props, "cue_digest": digest},
                           scope_key=scope_key(item.scope), tenant=item.tenant,
                           scope_pairs=scope_pairs(item.scope))
            return True

        try:
            created: bool = self.store.transaction("intend", work)
        except ConstraintViolationError:
            # a concurrent writer created this id first: decide again against what it wrote
            created = self.store.transaction("intend", work)
        if new_key:  # cues stored under a key that was gone get digests under this one
            redigest_cues(self.store, new_key[0])
        return created

    # -- reading ------------------------------------------------------------------

    def get(self, intention_id: str) -> DeferredIntention:
        """The intention with this id in its current status.

        Raises:
            RecordNotFoundError: no such intention, or it was erased by a deletion request.
        """
        self.access.check_ids(self.store, [intention_id], what="this intention id")
        rows = self.store.read("intentions/get", id=intention_id)
        if not rows:
            raise RecordNotFoundError(f"no intention {intention_id!r}", record_ids=[intention_id])
        props = rows[0]["intention"]
        if props.get("erased"):
            raise RecordNotFoundError(f"intention {intention_id!r} was erased",
                                      record_ids=[intention_id])
        return intention_from_props(props)

    def history(self, intention_id: str) -> list[IntentionTransition]:
        """Who fired or cancelled the intention, and when, oldest first.

        Raises:
            OutOfReachError: a bound caller named an intention out of its reach.
        """
        self.access.check_ids(self.store, [intention_id], what="this intention id")
        return [
            IntentionTransition(kind=row["kind"], by=row["by"], reason=row["reason"],
                                at=row["at"].to_native())
            for row in self.store.read("intentions/history", id=intention_id)
        ]

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
            AuthorizationError: ``scope["tenant"]`` is not one of ``principal.tenants``.
            ValidationError, NaiveDatetimeError: malformed event, scope or ``now``.
        """
        query = ScopeQuery.build(principal, scope, now, self.store.limits)
        self.store.limits.check_event(event)
        cues = event_cues(event)
        if not cues:
            return []
        key = cached_key(self.store)
        for _ in range(2):  # a key read before the database's key was replaced: read it again
            if key is None and (key := read_key(self.store)) is None:
                return []  # no key: no intention was stored with a cue digest
            tenant = query.scope["tenant"]
            digested = [{**cue, "digest": cue_digest(key, tenant, cue["kind"], cue["value"])}
                        for cue in cues]
            row = self.store.read("intentions/due", cues=digested, key=key.hex(),
                                  key_name=INDEX_KEY, **query.params())[0]
            if row["fresh"]:
                found = [intention_from_props(props) for props in row["intentions"]]
                return sorted(found, key=lambda i: (i.created_at, i.id))
            key = None
        return []

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
        self.store.limits.check_notes([intention_id], by=by, reason=reason)
        at = require_aware(now, "now")
        self.access.check_ids(self.store, [intention_id], change=True,
                              what="this intention id")
        token = uuid.uuid4().hex  # fixed outside the retried function: see intentions/fire

        def work(tx: ManagedTransaction) -> bool:
            if not self.store.run(tx, "intentions/lock", id=intention_id):
                raise RecordNotFoundError(f"no intention {intention_id!r}",
                                          record_ids=[intention_id])
            row = self.store.run(tx, "intentions/fire", id=intention_id, by=by, at=at,
                                 reason=reason, token=token)[0]
            fired_now = row["before"] == "pending" and not row["erased"] and not row["expired"]
            return fired_now or bool(row["ours"])

        result: bool = self.store.transaction("fire", work)
        return result

    def cancel(self, intention_id: str, *, by: str, reason: str, now: datetime) -> bool:
        """Cancel a pending intention; True if this call cancelled it, False if it was not
        pending any more (fired, cancelled). Locks before reading, like :meth:`fire`.

        Raises:
            RecordNotFoundError: no such intention. ValidationError: ``by`` or ``reason``
            not a non-empty string.
        """
        self.store.limits.check_notes([intention_id], by=by, reason=reason)
        at = require_aware(now, "now")
        self.access.check_ids(self.store, [intention_id], change=True,
                              what="this intention id")

        def work(tx: ManagedTransaction) -> bool:
            if not self.store.run(tx, "intentions/lock", id=intention_id):
                raise RecordNotFoundError(f"no intention {intention_id!r}",
                                          record_ids=[intention_id])
            row = self.store.run(tx, "intentions/cancel", id=intention_id, by=by, at=at,
                                 reason=reason)[0]
            return bool(row["before"] == IntentionStatus.PENDING.value)

        result: bool = self.store.transaction("cancel", work)
        return result

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
        fired = []
        for intention in self.due(event, principal=principal, scope=scope, now=now):
            if not self.access.allows(intention.tenant, intention.sensitivity,
                                      intention.scope, change=True):
                continue  # due for a confined caller, but not its to fire (tenant-wide)
            cue = f"{intention.trigger_kind}={intention.trigger_value}"
            if self.fire(intention.id, by=by, now=now, reason=f"event cue {cue}"):
                fired.append(intention.model_copy(update={"status": IntentionStatus.FIRED}))
        return fired
