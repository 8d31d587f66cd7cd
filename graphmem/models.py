"""Typed, immutable records: the vocabulary every other module speaks (docs/spec/records.md).

Records carry no database methods; only :mod:`graphmem.store` talks to Neo4j, and rows
become records in one place (:meth:`MemoryRecord.model_validate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from graphmem.errors import AuthorizationError
from graphmem.fields import (
    MAX_INT64,
    MAX_METADATA_DEPTH,
    AwareDatetime,
    Identifier,
    NonEmptyStr,
    canonical_value,
    check_name_size,
    check_scope,
    metadata_depth,
    reject_lone_surrogates,
)

__all__ = [
    "Authority",
    "Clearance",
    "DeferredIntention",
    "Explanation",
    "IntentionStatus",
    "MemoryKind",
    "MemoryRecord",
    "Principal",
    "Sensitivity",
    "Status",
]


@cache
def _ranks(cls: type[StrEnum]) -> dict[StrEnum, int]:
    """Declaration order of an enum's members (computed once per enum class)."""
    return {member: i for i, member in enumerate(cls)}


class _Ordered(StrEnum):
    """A string enum whose members are ordered by declaration."""

    @property
    def rank(self) -> int:
        return _ranks(type(self))[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self.rank >= other.rank


class MemoryKind(StrEnum):
    """The four contracts of docs/spec/records.md / chapter section 3."""

    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"


class Authority(_Ordered):
    """How much a record may be trusted, lowest first (docs/spec/records.md)."""

    UNTRUSTED = "untrusted"
    MODEL_INFERRED = "model_inferred"
    HUMAN_INSTRUCTION = "human_instruction"
    VERIFIED_OUTCOME = "verified_outcome"
    AUTHORITATIVE_SOURCE = "authoritative_source"


class Sensitivity(_Ordered):
    """How sensitive a record's content is, lowest first; compared with a clearance."""

    NORMAL = "normal"
    CONFIDENTIAL = "confidential"
    RESTRICTED = "restricted"

    @classmethod
    def from_rank(cls, rank: object) -> Sensitivity:
        """The sensitivity of a stored rank; an unknown rank counts as the highest."""
        members = list(cls)
        if isinstance(rank, int) and 0 <= rank < len(members):
            return members[rank]
        return cls.RESTRICTED


Clearance = Sensitivity


class Status(StrEnum):
    """Why a record is or is not retrievable (docs/spec/eligibility.md#eligible-and-active),
    declared in precedence order: a record's status is the first that applies (docs/status.md). The
    first two depend on the caller; ``cypher/parts/record_status.cypher`` states the rest in Cypher
    (same order)."""

    UNAUTHORIZED = "UNAUTHORIZED"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    ERASED = "ERASED"
    QUARANTINED = "QUARANTINED"
    PENDING_RECOMPUTE = "PENDING_RECOMPUTE"
    RETRACTED = "RETRACTED"
    NOT_YET_VALID = "NOT_YET_VALID"
    EXPIRED = "EXPIRED"
    SUPERSEDED = "SUPERSEDED"
    ACTIVE = "ACTIVE"
    #: not a record: the write policy discarded the proposal of this id (docs/spec/write-path.md)
    DISCARDED = "DISCARDED"


class IntentionStatus(StrEnum):
    """Lifecycle of a deferred intention (docs/spec/records.md#intentions, prospective memory)."""

    PENDING = "pending"
    FIRED = "fired"
    CANCELLED = "cancelled"


class Principal(BaseModel):
    """Who is asking: the tenants they may read, their clearance and their confinement
    (docs/spec/eligibility.md).

    A record is *within reach* of a principal (:meth:`reaches`) when its tenant is one of
    ``tenants``, its sensitivity is at most ``clearance`` and its scope does not contradict
    ``scope`` (for every confinement pair the record's scope lacks the key or has the same
    value): some query scope holding the confinement lets it through (rule 3), so a
    tenant-wide record is readable by a principal confined to one user, another user's is
    not. Changing or erasing a record also needs it to *belong* to the confinement
    (:meth:`may_change`: its scope holds every pair of ``scope``). Query scopes are confined
    by :meth:`confine`. These methods are the one home of the rule; every client, adapter
    and deletion path asks them.

    Args:
        tenants: tenant names this caller may read (at least one).
        clearance: the highest sensitivity this caller may see.
        scope: the confinement, e.g. ``{"user": "u-17"}``: non-empty string pairs (default
            empty: the whole of its tenants). A ``tenant`` key, if given, must be one of
            ``tenants`` and confines the principal to that tenant.

    Raises:
        pydantic.ValidationError: no tenant, an empty scope key or value, a scope tenant
            outside ``tenants``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenants: frozenset[NonEmptyStr] = Field(min_length=1)
    clearance: Sensitivity = Sensitivity.NORMAL
    scope: dict[str, str] = Field(default_factory=dict)

    @field_validator("scope", mode="before")
    @classmethod
    def _confinement(cls, value: object) -> dict[str, str]:
        return check_scope(value, what="a principal's scope", tenant=False, max_bytes=None,
                           error=ValueError)

    @model_validator(mode="after")
    def _scope_tenant(self) -> Principal:
        if "tenant" in self.scope and self.scope["tenant"] not in self.tenants:
            raise ValueError("the principal's scope names a tenant outside its tenants")
        return self

    def __hash__(self) -> int:
        return hash((self.tenants, self.clearance, tuple(self.scope.items())))

    @property
    def confined(self) -> bool:
        """True when the principal is confined to less than the whole of its tenants."""
        return bool(self.scope)

    def reaches(self, tenant: str, sensitivity: Sensitivity, scope: Mapping[str, str]
                ) -> bool:
        """True if a record (or intention) of ``tenant`` at ``sensitivity`` with ``scope``
        is within reach: readable by this principal under some query scope (see above)."""
        return (tenant in self.tenants and sensitivity <= self.clearance
                and all(scope.get(k, v) == v for k, v in self.scope.items()))

    def may_change(self, tenant: str, sensitivity: Sensitivity, scope: Mapping[str, str]
                   ) -> bool:
        """True if such a record is within reach and belongs to the confinement (its scope
        holds every pair of :attr:`scope`): the principal may change or erase it."""
        return (self.reaches(tenant, sensitivity, scope)
                and all(scope.get(k) == v for k, v in self.scope.items()))

    def confine(self, scope: Mapping[str, str]) -> dict[str, str]:
        """A query or subject scope confined to this principal: the confinement's pairs
        added, sorted.

        Raises:
            AuthorizationError: ``scope`` gives a confined key another value (say
                ``user=u-99`` to a principal confined to ``user=u-17``).
        """
        clash = sorted(k for k, v in self.scope.items() if scope.get(k, v) != v)
        if clash:
            raise AuthorizationError(
                f"the scope contradicts this principal's confinement on {', '.join(clash)}: "
                "a confined caller may add scope keys, not change the confined ones")
        return dict(sorted({**scope, **self.scope}.items()))

    def covers(self, other: Principal) -> bool:
        """True if ``other`` reaches nothing this principal does not: its tenants among
        these, its clearance at most this one, and confined at least as tightly."""
        return (other.tenants <= self.tenants and other.clearance <= self.clearance
                and all(other.scope.get(k) == v for k, v in self.scope.items()
                        if k != "tenant")
                and ("tenant" not in self.scope
                     or other.tenants == {self.scope["tenant"]}
                     or other.scope.get("tenant") == self.scope["tenant"]))


class MemoryRecord(BaseModel):
    """One memory: typed, scoped, with provenance and authority (docs/spec/records.md).

    Immutable. ``id`` follows :func:`id_problem` (no whitespace, control or invisible format
    characters, at most 256 characters). Times are aware datetimes normalised to UTC; naive ones are
    rejected. ``scope`` must contain ``tenant``. ``asserted_value`` is canonicalised at
    construction. ``thread`` and ``position`` (given together, 0 <= position < 2**63) place an
    episode in an ordered thread of its tenant (a conversation, run or ticket): the store links
    neighbouring positions with ``NEXT`` and rejects a second record at a taken position. Ids in
    ``supersedes``, ``derived_from`` and ``evidence_ids`` must exist in the store when the record is
    written (checked by the store).

    Raises:
        pydantic.ValidationError: on construction with invalid fields; the store and
            client re-raise it as :class:`graphmem.errors.ValidationError`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Identifier
    kind: MemoryKind
    content: str = Field(min_length=1)
    created_at: AwareDatetime
    scope: dict[str, str]
    provenance: dict[str, str] = Field(default_factory=dict)
    authority: Authority = Authority.MODEL_INFERRED
    asserts: str | None = None
    asserted_value: str | None = None
    valid_from: AwareDatetime | None = None
    expires_at: AwareDatetime | None = None
    supersedes: tuple[NonEmptyStr, ...] = ()
    retracted: bool = False
    evidence_ids: tuple[NonEmptyStr, ...] = ()
    derived_from: tuple[NonEmptyStr, ...] = ()
    sensitivity: Sensitivity = Sensitivity.NORMAL
    metadata: dict[str, Any] = Field(default_factory=dict)
    thread: NonEmptyStr | None = None
    #: at most :data:`~graphmem.fields.MAX_INT64` (a larger one made the driver raise a bare
    #: OverflowError while packing the write)
    position: int | None = Field(default=None, ge=0, le=MAX_INT64)

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> dict[str, str]:
        # before pydantic's coercion: the one rule judges what the caller gave (bytes are
        # not a string here, as they are not in a query scope)
        return check_scope(value, error=ValueError)

    @field_validator("provenance")
    @classmethod
    def _provenance(cls, value: dict[str, str]) -> dict[str, str]:
        for key, val in value.items():
            if not key or not isinstance(val, str):
                raise ValueError("provenance must map non-empty keys to strings")
        return dict(sorted(value.items()))

    @field_validator("asserts")
    @classmethod
    def _asserts(cls, value: str | None) -> str | None:
        if value is None:
            return None
        canon = canonical_value(value)
        if not canon:
            raise ValueError("asserts must not be blank")
        return check_name_size("asserts", canon)

    @field_validator("thread")
    @classmethod
    def _thread(cls, value: str | None) -> str | None:
        return check_name_size("thread", value)

    @field_validator("asserted_value")
    @classmethod
    def _asserted_value(cls, value: str | None) -> str | None:
        if value is None:
            return None
        canon = canonical_value(value)
        if not canon:
            raise ValueError("asserted_value must not be blank")
        return canon

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        depth = metadata_depth(value)
        if depth > MAX_METADATA_DEPTH:
            raise ValueError(f"metadata is nested {depth} levels deep; the maximum is "
                             f"{MAX_METADATA_DEPTH}")
        try:
            json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=False
                       ).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("metadata strings must be valid Unicode (no lone surrogates)"
                             ) from None
        except (TypeError, ValueError) as exc:
            raise ValueError(f"metadata must be JSON-serialisable: {exc}") from None
        return value

    @model_validator(mode="after")
    def _cross_field(self) -> MemoryRecord:
        # scope and metadata were checked for lone surrogates by their own validators;
        # text that is all ASCII has none (one test over the joined fields, the usual case)
        if not "".join((self.id, self.content, *self.provenance, *self.provenance.values(),
                        self.asserts or "", self.asserted_value or "", *self.supersedes,
                        *self.evidence_ids, *self.derived_from, self.thread or "")).isascii():
            for name in ("id", "content", "provenance", "asserts", "asserted_value",
                         "supersedes", "evidence_ids", "derived_from", "thread"):
                reject_lone_surrogates(name, getattr(self, name))
        if self.asserted_value is not None and self.asserts is None:
            raise ValueError("asserted_value requires asserts")
        if (self.thread is None) != (self.position is None):
            raise ValueError("thread and position go together: give both or neither")
        if (
            self.valid_from is not None
            and self.expires_at is not None
            and self.expires_at <= self.valid_from
        ):
            raise ValueError("expires_at must be after valid_from")
        refs = [("supersedes", self.supersedes), ("derived_from", self.derived_from),
                ("evidence_ids", self.evidence_ids)]
        for name, ids in refs:
            if self.id in ids:
                raise ValueError(f"{name} must not name the record itself")
            if len(set(ids)) != len(ids):
                raise ValueError(f"{name} must not repeat ids")
        return self

    @property
    def tenant(self) -> str:
        """The tenant that owns this record."""
        return self.scope["tenant"]

    def fingerprint_payload(self) -> str:
        """Canonical JSON of every field, used to tell an identical re-write from a conflict.

        A record outside any thread leaves ``thread``/``position`` out, so records written
        before threads existed keep their fingerprints.
        """
        payload = self.model_dump(mode="json")
        if self.thread is None:
            del payload["thread"], payload["position"]
        return json.dumps(payload, sort_keys=True, separators=(",", ":"))


class DeferredIntention(BaseModel):
    """A prospective memory: an action to take when an exact cue arrives (docs/spec/intentions.md).

    ``trigger_kind`` names the event key; the intention is due when
    ``event[trigger_kind] == trigger_value`` exactly, in scope, pending and not expired.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Identifier
    action: str = Field(min_length=1)
    trigger_kind: NonEmptyStr
    trigger_value: NonEmptyStr
    scope: dict[str, str]
    status: IntentionStatus = IntentionStatus.PENDING
    created_at: AwareDatetime
    expires_at: AwareDatetime | None = None
    sensitivity: Sensitivity = Sensitivity.NORMAL

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> dict[str, str]:
        # before pydantic's coercion: the one rule judges what the caller gave (bytes are
        # not a string here, as they are not in a query scope)
        return check_scope(value, error=ValueError)

    @field_validator("trigger_kind", "trigger_value")
    @classmethod
    def _cue(cls, value: str) -> str:
        check_name_size("the intention's cue", value)
        return value

    @model_validator(mode="after")
    def _unicode(self) -> DeferredIntention:
        for name in ("id", "action", "trigger_kind", "trigger_value", "scope"):
            reject_lone_surrogates(name, getattr(self, name))
        return self

    @property
    def tenant(self) -> str:
        """The tenant that owns this intention."""
        return self.scope["tenant"]


class Explanation(BaseModel):
    """Why a record is (or is not) retrievable for one caller at one time (docs/spec/status.md).

    Attributes:
        record_id: the record explained.
        status: the first status that applies, in :class:`Status` order (docs/status.md).
        successor_ids: for SUPERSEDED, the eligible effective successors.
        detail: a human-readable sentence (no record content).
        write_decision: for DISCARDED and QUARANTINED, the disposition of the proposal's
            latest write decision (its reason is in ``detail``).
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    status: Status
    successor_ids: tuple[str, ...] = ()
    detail: str = ""
    write_decision: str | None = None
