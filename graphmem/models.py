"""Typed, immutable records: the vocabulary every other module speaks (SPEC section 2).

Records carry no database methods; only :mod:`graphmem.store` talks to Neo4j, and rows
become records in one place (:meth:`MemoryRecord.model_validate`).
"""

from __future__ import annotations

import json
import unicodedata
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
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
    "canonical_value",
    "utc_now",
]


def utc_now() -> datetime:
    """The current time as an aware UTC datetime (the default clock)."""
    return datetime.now(UTC)


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(
            "naive datetime: graphmem needs timezone-aware datetimes (use UTC, e.g. "
            "datetime(..., tzinfo=timezone.utc) or an ISO string ending in +00:00)"
        )
    try:
        return value.astimezone(UTC)
    except OverflowError:  # e.g. datetime.max at UTC-14:00 (issue 17)
        raise ValueError("outside the range of UTC datetimes (years 1-9999)") from None


AwareDatetime = Annotated[datetime, AfterValidator(_aware_utc)]


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
    """The four contracts of SPEC section 2 / chapter section 3."""

    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"


class Authority(_Ordered):
    """How much a record may be trusted, lowest first (SPEC section 2)."""

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


Clearance = Sensitivity


class Status(StrEnum):
    """Why a record is or is not retrievable (SPEC sections 3-4, in precedence order)."""

    UNAUTHORIZED = "UNAUTHORIZED"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    QUARANTINED = "QUARANTINED"
    PENDING_RECOMPUTE = "PENDING_RECOMPUTE"
    ERASED = "ERASED"
    RETRACTED = "RETRACTED"
    NOT_YET_VALID = "NOT_YET_VALID"
    EXPIRED = "EXPIRED"
    SUPERSEDED = "SUPERSEDED"
    ACTIVE = "ACTIVE"


class IntentionStatus(StrEnum):
    """Lifecycle of a deferred intention (SPEC section 2, prospective memory)."""

    PENDING = "pending"
    FIRED = "fired"
    CANCELLED = "cancelled"


def _non_empty_str(value: str) -> str:
    if not value:
        raise ValueError("must be a non-empty string")
    return value


NonEmptyStr = Annotated[str, AfterValidator(_non_empty_str)]


def canonical_value(value: str) -> str:
    """Canonical form of an asserted value: NFC, trimmed, inner whitespace collapsed.

    Applied once at write time (SPEC section 2: never at read time), so that two
    records asserting the same value compare equal in Cypher and in Python.
    """
    return " ".join(unicodedata.normalize("NFC", value).split())


def _check_scope(scope: dict[str, str]) -> dict[str, str]:
    for key, val in scope.items():
        if not isinstance(key, str) or not key:
            raise ValueError("scope keys must be non-empty strings")
        if not isinstance(val, str) or not val:
            raise ValueError(f"scope value for {key!r} must be a non-empty string")
    if "tenant" not in scope:
        raise ValueError("scope must contain 'tenant'")
    return dict(sorted(scope.items()))


MAX_METADATA_DEPTH = 64
"""Deepest nesting of lists and maps accepted in ``MemoryRecord.metadata`` (issue 17: deeper
input used to escape as a raw ``RecursionError`` from the JSON encoder)."""


def _depth(value: Any) -> int:
    """Nesting depth of lists and dicts in ``value`` (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, level)
            if level > MAX_METADATA_DEPTH:
                break
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


class Principal(BaseModel):
    """Who is asking: the tenants they may read and their clearance (SPEC section 3).

    Args:
        tenants: tenant names this caller may read (at least one).
        clearance: the highest sensitivity this caller may see.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenants: frozenset[NonEmptyStr] = Field(min_length=1)
    clearance: Sensitivity = Sensitivity.NORMAL


class MemoryRecord(BaseModel):
    """One memory: typed, scoped, with provenance and authority (SPEC section 2).

    Immutable. Times are aware datetimes normalised to UTC; naive ones are rejected.
    ``scope`` must contain ``tenant``. ``asserted_value`` is canonicalised at
    construction. Ids in ``supersedes``, ``derived_from`` and ``evidence_ids`` must
    exist in the store when the record is written (checked by the store).

    Raises:
        pydantic.ValidationError: on construction with invalid fields; the store and
            client re-raise it as :class:`graphmem.errors.ValidationError`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: NonEmptyStr
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

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_scope(value)

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
        return canon

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
        depth = _depth(value)
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
        if self.asserted_value is not None and self.asserts is None:
            raise ValueError("asserted_value requires asserts")
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
        """Canonical JSON of every field, used to tell an identical re-write from a conflict."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


class DeferredIntention(BaseModel):
    """A prospective memory: an action to take when an exact cue arrives (SPEC section 8).

    ``trigger_kind`` names the event key; the intention is due when
    ``event[trigger_kind] == trigger_value`` exactly, in scope, pending and not expired.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: NonEmptyStr
    action: str = Field(min_length=1)
    trigger_kind: NonEmptyStr
    trigger_value: NonEmptyStr
    scope: dict[str, str]
    status: IntentionStatus = IntentionStatus.PENDING
    created_at: AwareDatetime
    expires_at: AwareDatetime | None = None
    sensitivity: Sensitivity = Sensitivity.NORMAL

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_scope(value)

    @property
    def tenant(self) -> str:
        """The tenant that owns this intention."""
        return self.scope["tenant"]


class Explanation(BaseModel):
    """Why a record is (or is not) retrievable for one caller at one time (SPEC section 4).

    Attributes:
        record_id: the record explained.
        status: the first status that applies, in SPEC order.
        successor_ids: for SUPERSEDED, the eligible effective successors.
        detail: a human-readable sentence (no record content).
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    status: Status
    successor_ids: tuple[str, ...] = ()
    detail: str = ""
