"""Deferred intentions' operations (docs/spec/intentions.md): storing one, reading one and its
transitions, the intentions an event makes due, firing and cancelling exactly once.

:class:`IntentionOps` is what :class:`graphmem.intentions.Intentions` needs of the store;
:class:`Neo4jIntentions` runs it on a :class:`~graphmem.db.store.Neo4jStore`. Also the one
mapping between a :class:`~graphmem.models.DeferredIntention` and its stored properties
(:func:`intention_props`, :func:`intention_from_props`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol, TypedDict

from neo4j import ManagedTransaction

from graphmem.db.access import Reader, ScopeQuery
from graphmem.db.codec import scope_key, scope_pairs
from graphmem.db.index_key import (
    INDEX_KEY,
    cached_key,
    cue_digest,
    index_key,
    read_key,
    redigest_cues,
)
from graphmem.db.store import Neo4jStore
from graphmem.errors import ConstraintViolationError, RecordConflictError, RecordNotFoundError
from graphmem.limits import InputLimits
from graphmem.models import DeferredIntention, IntentionStatus

__all__ = ["Cue", "IntentionOps", "IntentionTransition", "Neo4jIntentions", "StoredIntention",
           "intention_from_props", "intention_props"]


class Cue(TypedDict):
    """One cue of an event: ``event[kind] == value``."""

    kind: str
    value: str


@dataclass(frozen=True)
class IntentionTransition:
    """One declared transition of an intention: ``kind`` is ``fire`` or ``cancel``; ``at``
    is aware UTC."""

    kind: str
    by: str
    reason: str
    at: datetime


class StoredIntention(NamedTuple):
    """An intention as stored: None with ``erased`` True when a deletion request erased it."""

    intention: DeferredIntention | None
    erased: bool


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


class IntentionOps(Protocol):
    """What deferred intentions need of the store."""

    @property
    def limits(self) -> InputLimits:
        """The bounds of user-supplied values."""

    @property
    def reach(self) -> Reader:
        """What :class:`~graphmem.db.access.Access` checks ids against."""

    def create(self, intention: DeferredIntention) -> bool:
        """Store ``intention``; True if created, False when the id is stored with the same
        definition (``status`` aside).

        Raises:
            RecordConflictError: the id is stored with a different definition.
        """

    def create_unless_pending(self, intention: DeferredIntention, *, now: datetime
                              ) -> tuple[str, bool]:
        """As :meth:`create`, unless an intention of the same scope, action, cue, sensitivity
        and expiry is pending (and unexpired at ``now``): then that one's id and False.
        Decided under the scope's lock, so concurrent calls store it once.

        Raises:
            RecordConflictError: the id is stored with a different definition.
        """

    def get(self, intention_id: str) -> StoredIntention | None:
        """The intention with this id (None: no such intention)."""

    def history(self, intention_id: str) -> list[IntentionTransition]:
        """Its fire and cancel transitions, oldest first."""

    def due(self, reach: ScopeQuery, cues: Sequence[Cue]) -> list[DeferredIntention]:
        """Pending, unerased, unexpired intentions eligible within ``reach`` whose cue is
        one of ``cues`` exactly (docs/spec/intentions.md), in no particular order."""

    def fire(self, intention_id: str, *, by: str, at: datetime, reason: str, token: str
             ) -> bool:
        """Fire it unless fired, cancelled, erased or expired at ``at``, after taking its
        lock; True when this call (``token``, fixed across retries) fired it.

        Raises:
            RecordNotFoundError: no such intention.
        """

    def cancel(self, intention_id: str, *, by: str, at: datetime, reason: str) -> bool:
        """Cancel it if pending, after taking its lock; True when it was pending.

        Raises:
            RecordNotFoundError: no such intention.
        """


class Neo4jIntentions:
    """:class:`IntentionOps` on a Neo4j store (intentions share its Scope nodes).

    Args:
        store: the store.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self._store = store

    @property
    def limits(self) -> InputLimits:
        """The store's input limits."""
        return self._store.limits

    @property
    def reach(self) -> Reader:
        """The store (``records/reach``)."""
        return self._store

    def create(self, intention: DeferredIntention) -> bool:
        """See :meth:`IntentionOps.create`. The intention is stored with this call's own
        token, by which a run of the call again after its commit's acknowledgement was lost
        knows it created it (:meth:`~graphmem.db.base.StoreBase.transaction`)."""
        return self._create(intention, None)[1]

    def create_unless_pending(self, intention: DeferredIntention, *, now: datetime
                              ) -> tuple[str, bool]:
        """See :meth:`IntentionOps.create_unless_pending` (``intentions/lock_scope``, then
        ``intentions/pending_same``, in the creating transaction)."""
        return self._create(intention, now)

    def _create(self, intention: DeferredIntention, pending_at: datetime | None
                ) -> tuple[str, bool]:
        """Store ``intention`` (with ``pending_at``: unless the same is pending then); the id
        stored or found, and whether this call stored it."""
        store = self._store
        token = uuid.uuid4().hex
        props = {**intention_props(intention), "create_token": token}
        new_key: list[bytes] = []  # the index key, when this call's transaction made it
        where = {"scope_key": scope_key(intention.scope),
                 "scope_pairs": scope_pairs(intention.scope)}

        def work(tx: ManagedTransaction) -> tuple[str, bool]:
            new_key.clear()
            rows = store.run(tx, "intentions/existing", id=intention.id)
            if rows:
                if rows[0]["fingerprint"] != props["fingerprint"]:
                    raise RecordConflictError(
                        "this intention id already exists with a different definition",
                        record_ids=[intention.id])
                # True: this call's commit landed
                return intention.id, bool(rows[0]["token"] == token)
            if pending_at is not None:
                store.run(tx, "intentions/lock_scope", scope_key=where["scope_key"],
                          tenant=intention.tenant, scope_pairs=where["scope_pairs"])
                same = store.run(tx, "intentions/pending_same", scope_key=where["scope_key"],
                                 now=pending_at, action=intention.action,
                                 trigger_kind=intention.trigger_kind,
                                 trigger_value=intention.trigger_value,
                                 sensitivity=intention.sensitivity.value,
                                 expires_at=intention.expires_at)
                if same:
                    return str(same[0]["id"]), False
            key, made = index_key(store, tx)
            if made:
                new_key.append(key)
            digest = cue_digest(key, intention.tenant, intention.trigger_kind,
                                intention.trigger_value)
            store.run(tx, "intentions/create", props={**props, "cue_digest": digest},
                      tenant=intention.tenant, **where)
            return intention.id, True

        try:
            done: tuple[str, bool] = store.transaction("intend", work, knows_its_commit=True)
        except ConstraintViolationError:
            # a concurrent writer created this id first: decide again against what it wrote
            done = store.transaction("intend", work, knows_its_commit=True)
        if new_key:  # cues stored under a key that was gone get digests under this one
            redigest_cues(store, new_key[0])
        return done

    def get(self, intention_id: str) -> StoredIntention | None:
        """See :meth:`IntentionOps.get`."""
        rows = self._store.read("intentions/get", id=intention_id)
        if not rows:
            return None
        props = rows[0]["intention"]
        if props.get("erased"):
            return StoredIntention(None, True)
        return StoredIntention(intention_from_props(props), False)

    def history(self, intention_id: str) -> list[IntentionTransition]:
        """See :meth:`IntentionOps.history`."""
        return [
            IntentionTransition(kind=row["kind"], by=row["by"], reason=row["reason"],
                                at=row["at"].to_native())
            for row in self._store.read("intentions/history", id=intention_id)
        ]

    def due(self, reach: ScopeQuery, cues: Sequence[Cue]) -> list[DeferredIntention]:
        """See :meth:`IntentionOps.due`. The cues are sought by their keyed digests
        (:mod:`graphmem.db.index_key`); a key replaced since it was read is read again."""
        key = cached_key(self._store)
        for _ in range(2):  # a key read before the database's key was replaced: read it again
            if key is None and (key := read_key(self._store)) is None:
                return []  # no key: no intention was stored with a cue digest
            tenant = reach.scope["tenant"]
            digested = [{**cue, "digest": cue_digest(key, tenant, cue["kind"], cue["value"])}
                        for cue in cues]
            row = self._store.read("intentions/due", cues=digested, key=key.hex(),
                                   key_name=INDEX_KEY, **reach.params())[0]
            if row["fresh"]:
                return [intention_from_props(props) for props in row["intentions"]]
            key = None
        return []

    def fire(self, intention_id: str, *, by: str, at: datetime, reason: str, token: str
             ) -> bool:
        """See :meth:`IntentionOps.fire`."""
        store = self._store

        def work(tx: ManagedTransaction) -> bool:
            if not store.run(tx, "intentions/lock", id=intention_id):
                raise RecordNotFoundError(f"no intention {intention_id!r}",
                                          record_ids=[intention_id])
            row = store.run(tx, "intentions/fire", id=intention_id, by=by, at=at,
                            reason=reason, token=token)[0]
            fired_now = row["before"] == "pending" and not row["erased"] and not row["expired"]
            return fired_now or bool(row["ours"])

        result: bool = store.transaction("fire", work, knows_its_commit=True)
        return result

    def cancel(self, intention_id: str, *, by: str, at: datetime, reason: str) -> bool:
        """See :meth:`IntentionOps.cancel`. The cancellation keeps this call's own token, as
        a firing does (``intentions/cancel``)."""
        store = self._store
        token = uuid.uuid4().hex

        def work(tx: ManagedTransaction) -> bool:
            if not store.run(tx, "intentions/lock", id=intention_id):
                raise RecordNotFoundError(f"no intention {intention_id!r}",
                                          record_ids=[intention_id])
            row = store.run(tx, "intentions/cancel", id=intention_id, by=by, at=at,
                            reason=reason, token=token)[0]
            return bool(row["before"] == IntentionStatus.PENDING.value or row["ours"])

        result: bool = store.transaction("cancel", work, knows_its_commit=True)
        return result
