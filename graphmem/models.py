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

import regex
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
    "Identifier",
    "IntentionStatus",
    "MemoryKind",
    "MemoryRecord",
    "Principal",
    "Sensitivity",
    "Status",
    "canonical_value",
    "duplicate_text",
    "id_problem",
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
    return value.astimezone(UTC)


AwareDatetime = Annotated[datetime, AfterValidator(_aware_utc)]


def _reject_lone_surrogates(name: str, value: Any) -> None:
    """Raise ValueError if ``value`` (a string, or one nested in dicts and sequences) holds a
    lone surrogate such as ``"\\ud800"``: JSON can spell one, but it has no UTF-8 form, and
    Neo4j stores UTF-8 (issue 11: a bad import line is rejected, naming its line)."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"{name} holds a lone surrogate (not valid Unicode text)"
                                 ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_lone_surrogates(name, key)
            _reject_lone_surrogates(name, item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _reject_lone_surrogates(name, item)


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

#: The longest id accepted (SPEC section 2), in characters (code points).
MAX_ID_CHARS = 256
# Unicode categories never allowed in an id: space, line and paragraph separators, controls,
# format characters (zero-width space and joiners, BOM, bidi marks and embeddings, soft
# hyphen, ...), surrogates; and the Hangul fillers, letters that render as nothing.
_ID_FORBIDDEN_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs"})
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a valid id (SPEC section 2), or None when it is.

    An id is non-empty, at most :data:`MAX_ID_CHARS` characters, and holds no whitespace,
    control or invisible format character (Unicode categories Zs, Zl, Zp, Cc, Cf, Cs, and
    the Hangul fillers). The message names the id (``repr``: invisible characters show as
    escapes) and the first bad character
    as ``U+XXXX (NAME)``.
    """
    if not value:
        return "an id must be a non-empty string"
    shown = repr(value) if len(value) <= 80 else repr(value[:77]) + "..."
    if len(value) > MAX_ID_CHARS:
        return f"id {shown} has {len(value)} characters; at most {MAX_ID_CHARS} are allowed"
    for i, ch in enumerate(value):
        category = unicodedata.category(ch)
        if category in _ID_FORBIDDEN_CATEGORIES or ch in _INVISIBLE_LETTERS:
            name = unicodedata.name(ch, f"a {category} character")
            return (f"id {shown} contains U+{ord(ch):04X} ({name}) at index {i}: ids may not "
                    "hold whitespace, control or invisible format characters")
    return None


def _check_id(value: str) -> str:
    problem = id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


#: A record, intention or deletion request id (SPEC section 2): see :func:`id_problem`.
Identifier = Annotated[str, AfterValidator(_check_id)]


def canonical_value(value: str) -> str:
    """Canonical form of an asserted value: NFC, trimmed, inner whitespace collapsed.

    Applied once at write time (SPEC section 2: never at read time), so that two
    records asserting the same value compare equal in Cypher and in Python.
    """
    return " ".join(unicodedata.normalize("NFC", value).split())


# A trailing run of sentence-final punctuation (the Unicode Sentence_Terminal property, which
# covers . ! ? and their CJK, fullwidth, Arabic, Devanagari, Ethiopic... forms) or ellipses
# (U+2026, U+22EF midline, U+FE19 vertical), with any whitespace between them.
_TRAILING_TERMINALS = regex.compile(r"[\s\p{Sentence_Terminal}\u2026\u22ef\ufe19]+\Z")


def duplicate_text(content: str) -> str:
    """The normalised text duplicate detection compares (SPEC section 6), for every script.

    Unicode NFC, case-folded (and NFC again: folding can leave a sequence unnormalised),
    runs of whitespace collapsed to one space, leading/trailing whitespace and a trailing run
    of sentence punctuation removed ("Prefers dark mode." == "prefers  dark mode",
    "好的。" == "好的", "Café" composed == decomposed). Text that is nothing but punctuation
    keeps it, so "?" and "!" stay different. The empty string means blank content.
    """
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", content).casefold())
    collapsed = " ".join(folded.split())
    stripped = _TRAILING_TERMINALS.sub("", collapsed)
    return stripped or collapsed


def _check_scope(scope: dict[str, str]) -> dict[str, str]:
    for key, val in scope.items():
        if not isinstance(key, str) or not key:
            raise ValueError("scope keys must be non-empty strings")
        if not isinstance(val, str) or not val:
            raise ValueError(f"scope value for {key!r} must be a non-empty string")
    if "tenant" not in scope:
        raise ValueError("scope must contain 'tenant'")
    return dict(sorted(scope.items()))


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

    Immutable. ``id`` follows :func:`id_problem` (no whitespace, control or invisible
    format characters, at most 256 characters). Times are aware datetimes normalised to
    UTC; naive ones are rejected.
    ``scope`` must contain ``tenant``. ``asserted_value`` is canonicalised at
    construction. ``thread`` and ``position`` (given together, position >= 0) place an
    episode in an ordered thread of its tenant (a conversation, run or ticket; issue 16):
    the store links neighbouring positions with ``NEXT`` and rejects a second record at a
    taken position. Ids in ``supersedes``, ``derived_from`` and ``evidence_ids`` must
    exist in the store when the record is written (checked by the store).

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
    position: int | None = Field(default=None, ge=0)

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
        try:
            json.dumps(value, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"metadata must be JSON-serialisable: {exc}") from None
        return value

    @model_validator(mode="after")
    def _cross_field(self) -> MemoryRecord:
        for name in ("id", "content", "scope", "provenance", "asserts", "asserted_value",
                     "supersedes", "evidence_ids", "derived_from", "metadata"):
            _reject_lone_surrogates(name, getattr(self, name))
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
    """A prospective memory: an action to take when an exact cue arrives (SPEC section 8).

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

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_scope(value)

    @model_validator(mode="after")
    def _unicode(self) -> DeferredIntention:
        for name in ("id", "action", "trigger_kind", "trigger_value", "scope"):
            _reject_lone_surrogates(name, getattr(self, name))
        return self

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
