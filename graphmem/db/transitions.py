"""Declared lifecycle transitions on stored records (docs/spec/write-path.md): retract, expire,
quarantine and promote, each logged with who/why/when.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graphmem.db.base import StoreBase
from graphmem.db.codec import (
    require_aware,
)
from graphmem.errors import (
    PolicyError,
    RecordNotFoundError,
)


class Transitions(StoreBase):
    """Lifecycle transitions, each one transaction that changes the record and logs it."""

    def log_transition(
        self, tx: ManagedTransaction, record_id: str, kind: str, by: str, reason: str, at: datetime,
        successor: str | None = None, token: str | None = None,
    ) -> None:
        """Record a declared lifecycle transition inside ``tx``; ``successor``: the record
        that replaces ``record_id`` (its reason names it), kept apart so a caller who cannot
        read it is not told its id (docs/spec/eligibility.md#confinement); ``token``: the
        logging call's own random id, by which it knows its commit (:meth:`_transition`)."""
        self.run(tx, "transition_log", record_id=record_id, kind=kind, by=by, reason=reason, at=at,
                 successor=successor, token=token)

    def _transition(
        self, query_name: str, record_id: str, kind: str, *, by: str, reason: str,
        at: datetime, **params: Any,
    ) -> None:
        """Run ``query_name`` on the record and log the transition, in one transaction that
        knows its own commit: the transition is logged with this call's random token, so a
        commit whose acknowledgement was lost (``IncompleteCommit``) is recognised by the run
        of ``work`` again, which then changes nothing and the call returns as done, instead of
        :class:`~graphmem.errors.DatabaseUnavailableError` after which its repeat logged the
        transition twice, or was refused (a promote of a record no longer quarantined)."""
        self.limits.check_notes([record_id], by=by, reason=reason)
        at = require_aware(at, "at")
        token = uuid.uuid4().hex

        def work(tx: ManagedTransaction) -> None:
            if self.run(tx, "records/transition_ours", id=record_id, token=token)[0]["ours"]:
                return  # logged by an earlier run whose commit's acknowledgement was lost
            rows = self.run(tx, query_name, id=record_id, by=by, reason=reason, at=at, **params)
            if not rows:
                raise RecordNotFoundError(f"no record {record_id!r} (or it was erased)",
                                          record_ids=[record_id])
            if rows[0].get("changed", True):  # a retract of a retracted record: no change
                self.log_transition(tx, record_id, kind, by, reason, at, token=token)

        self.transaction(kind, work, knows_its_commit=True)

    def retract(self, record_id: str, *, by: str, reason: str, at: datetime | None = None) -> None:
        """Retract a record as a tombstone with who/why/when (docs/spec/records.md and
        docs/spec/write-path.md). A record retracted already keeps its first tombstone and
        nothing is logged: a repeated retract is the one made.

        Raises:
            RecordNotFoundError: no such record. ValidationError: empty by/reason.
            NaiveDatetimeError: ``at`` without timezone.
        """
        self._transition("records/retract", record_id, "retract", by=by, reason=reason,
                         at=at or self.clock())

    def expire(self, record_id: str, *, at: datetime, by: str, reason: str) -> None:
        """Declare that a record stops being active at ``at`` (docs/spec/write-path.md).

        Raises:
            PolicyError: ``at`` is not after the record's ``valid_from``.
            RecordNotFoundError, ValidationError, NaiveDatetimeError.
        """
        at = require_aware(at, "at")
        record = self.get(record_id)
        if record.valid_from is not None and at <= record.valid_from:
            raise PolicyError("expiry must be after valid_from", record_ids=[record_id])
        self._transition("records/expire", record_id, "expire", by=by, reason=reason, at=at)

    def set_quarantine(self, record_id: str, flag: bool, *, by: str, reason: str) -> None:
        """Quarantine a record or promote it out of quarantine, as a logged transition."""
        self._transition("records/set_quarantine", record_id,
                         "quarantine" if flag else "promote", by=by, reason=reason,
                         at=self.clock(), flag=flag)
