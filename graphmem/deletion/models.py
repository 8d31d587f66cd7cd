"""The deletion vocabulary (docs/spec/deletion.md): dispositions, the reviewable
:class:`DeletionPlan` and the audit :class:`DeletionReport`.

Pydantic models with no database methods, JSON round-trippable so that a plan can be saved,
reviewed and applied later (``graphmem delete plan -o`` / ``graphmem delete apply``).
:mod:`graphmem.deletion` builds and applies them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Literal

import pydantic
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    model_validator,
)

from graphmem.deletion.disk import DiskResidue
from graphmem.deletion.fold import SCHEME_FOLDED, SCHEME_PLAIN, SCHEME_TYPOGRAPHIC
from graphmem.errors import DeletionError
from graphmem.fields import AwareDatetime, Identifier, NonEmptyStr
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Sensitivity

__all__ = [
    "PLAN_VERSION",
    "Citation",
    "DeletionPlan",
    "DeletionReport",
    "DeletionRequestInfo",
    "Disposition",
    "NodeType",
    "PlanEntry",
    "PlanReach",
    "ReportEntry",
    "RetrievalHit",
    "Verification",
    "Via",
    "counts_of",
]

PLAN_VERSION: Literal[4] = 4
"""The version plans are made with: 4 reads terms with diacritics and typographic
apostrophes, hyphens and tatweel folded (``docs/deletion-terms.md``). Older plans' ``term_checks``
are checked as they were made (:attr:`DeletionPlan.term_scheme`): version 2 with accents
counting, version 3 with diacritics folded and punctuation as written."""


class Disposition(StrEnum):
    """What a deletion does to one node (docs/spec/deletion.md)."""

    DELETE = "DELETE"
    RECOMPUTE = "RECOMPUTE"
    REDACT = "REDACT"
    QUARANTINE = "QUARANTINE"


class NodeType(StrEnum):
    """The label of a planned node."""

    RECORD = "record"
    INTENTION = "intention"


Via = Literal["root", "lineage", "citation", "mention"]


class PlanEntry(BaseModel):
    """One node of a deletion plan.

    Attributes:
        id: the record or intention id.
        node: ``record`` or ``intention``.
        kind: the record kind (None for intentions).
        disposition: what applying does to it.
        reason: why, naming ids only (never content).
        via: ``root`` (named or in the subject's scope), ``lineage`` (a DERIVED_FROM
            descendant), ``citation`` (a procedure citing deleted evidence) or ``mention``
            (holds a redaction term, with no lineage to the roots).
        depth: shortest DERIVED_FROM distance below a root (0 for roots and non-lineage).
        parents: the record's DERIVED_FROM parents (lineage entries only).
        erased_parents: those of ``parents`` an earlier request already erased.
        terms: the numbers (0-based, in the plan's ``term_checks`` order) of the redaction
            terms it holds (redacted on apply unless DELETE); never the terms themselves.
        already_erased: an earlier request erased it; it stays a tombstone (DELETE).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: NonEmptyStr
    node: NodeType = NodeType.RECORD
    kind: str | None = None
    disposition: Disposition
    reason: str
    via: Via
    depth: int = Field(default=0, ge=0)
    parents: tuple[str, ...] = ()
    erased_parents: tuple[str, ...] = ()
    terms: tuple[int, ...] = ()
    already_erased: bool = False


class PlanReach(BaseModel):
    """How far a deletion made by a bound principal reaches (docs/spec/eligibility.md and
    docs/spec/deletion.md): the records and intentions of the plan's tenants at most ``clearance``
    whose scope holds every pair of ``scope`` (the ones the principal may change), and the
    retrievals made within it (tenant, clearance at most ``clearance``, query scope holding
    ``scope``). Its redaction terms are looked for, redacted and verified there only; a plan without
    a reach (the operator's, or a tenant-wide principal of the highest clearance) covers the whole
    of its tenants' graph.

    Attributes:
        clearance: the principal's clearance. scope: its confinement (may be empty).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    clearance: Sensitivity
    scope: dict[str, str] = Field(default_factory=dict)


class Citation(BaseModel):
    """A surviving record that cites deleted records in ``evidence_ids`` (dangling once applied)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    record_id: str
    cites: tuple[str, ...]


class RetrievalHit(BaseModel):
    """A logged retrieval that selected deleted records or whose query holds a term."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retrieval_id: str
    selected_ids: tuple[str, ...] = ()
    query_holds_terms: bool = False


class DeletionPlan(BaseModel):
    """A reviewed-before-applied deletion (docs/spec/deletion.md), JSON round-trippable.

    Build one with :func:`plan_deletion`; save it with :meth:`to_json`, load it with
    :meth:`from_json` (which checks the digest). Entries hold ids, kinds and reasons, never
    record content, and the plan never holds a redaction term in clear: ``term_checks`` are
    scrypt digests (salted with ``term_salt``) of each normalised term, so a plan is applied
    with its terms given again and checked against them (``docs/deletion-terms.md``). The
    plan :func:`plan_deletion` returns keeps its terms in memory (not in its JSON), so
    ``apply_deletion(plan)`` needs them only for a plan loaded from a file.
    ``missing_roots``: named roots that named nothing (planned with ``allow_missing``).
    ``reach``: set when a bound principal made it (:class:`PlanReach`): what it lists and
    redacts is limited to that reach; None: the whole of its tenants.

    Raises:
        DeletionError: (from :meth:`from_json`) malformed JSON, an unknown version, a digest
            that does not match the content, repeated ids, or dispositions that contradict
            the lineage the plan itself records.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[2, 3, 4] = PLAN_VERSION
    request_id: Identifier
    requested_by: NonEmptyStr
    reason: NonEmptyStr
    subject: dict[str, str] | None = None
    roots: tuple[str, ...]
    missing_roots: tuple[str, ...] = ()
    #: hex, as :func:`graphmem.deletion.terms.term_check` reads it
    term_salt: Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{2})*$")] = ""
    term_checks: tuple[str, ...] = ()
    tenants: tuple[str, ...] = ()
    planned_at: AwareDatetime
    entries: tuple[PlanEntry, ...]
    dangling_citations: tuple[Citation, ...] = ()
    retrievals: tuple[RetrievalHit, ...] = ()
    reach: PlanReach | None = None
    digest: str = ""
    _terms: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _consistent(self) -> DeletionPlan:
        terms = len(self.term_checks)
        ids: set[str] = set()
        deleted: set[str] = set()
        checked: list[PlanEntry] = []  # lineage DELETE entries whose parents must be gone
        delete = Disposition.DELETE
        for e in self.entries:  # one pass: a plan may hold 10^6 entries
            ids.add(e.id)
            if e.terms and max(e.terms) >= terms:
                raise ValueError(f"{e.id!r} names a term the plan does not have")
            if e.disposition is delete:
                deleted.add(e.id)
                if e.via == "lineage" and not e.already_erased:
                    checked.append(e)
        if len(ids) != len(self.entries):
            raise ValueError("a plan names the same id twice")
        for root in self.roots:
            if root not in deleted:
                raise ValueError(f"root {root!r} is not planned as DELETE")
        for e in checked:
            if not deleted.issuperset(e.parents) and not all(
                    p in deleted or p in e.erased_parents for p in e.parents):
                raise ValueError(f"{e.id!r} is DELETE although a parent survives")
        return self

    def __eq__(self, other: object) -> bool:
        """Plans are equal when their fields are (the terms kept in memory do not count: a
        plan loaded from its JSON is the plan)."""
        if not isinstance(other, DeletionPlan):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash(self.compute_digest())

    # -- digest and JSON --------------------------------------------------------------

    def compute_digest(self) -> str:
        """SHA-256 of the plan's canonical JSON without the digest field (nor ``reach``
        when it is None: a plan saved before plans had a reach keeps its digest)."""
        payload = self.model_dump_json(
            exclude={"digest"} | ({"reach"} if self.reach is None else set()))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def to_json(self, *, indent: int | None = 2) -> str:
        """The plan as JSON (what ``graphmem delete plan -o`` writes)."""
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes, limits: InputLimits = DEFAULT_LIMITS
                  ) -> DeletionPlan:
        """Load and check a saved plan.

        Args:
            text: the plan's JSON. limits: ``plan_bytes``, ``json_depth`` and
                ``number_chars`` bound it before it is parsed.

        Raises:
            DeletionError: see the class docstring.
            ValidationError: over a bound (:meth:`InputLimits.check_document`).
        """
        text = limits.check_document("deletion plan", text, "plan_bytes")
        try:
            plan = cls.model_validate_json(text)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "plan"
            raise DeletionError(
                f"malformed deletion plan ({exc.error_count()} problem"
                f"{'s' if exc.error_count() != 1 else ''}; first at {where}: "
                f"{first['msg']})"
            ) from None
        if plan.digest != plan.compute_digest():
            raise DeletionError(
                "the plan's digest does not match its content: it was edited after planning; "
                "plan again instead", record_ids=[plan.request_id],
            )
        return plan

    # -- views ------------------------------------------------------------------------

    def ids(self, disposition: Disposition | None = None) -> list[str]:
        """Entry ids in plan order, optionally only those with ``disposition``."""
        return [e.id for e in self.entries if disposition is None or e.disposition is disposition]

    @property
    def matches_nothing(self) -> bool:
        """True when the subject or roots matched no record or intention, or a
        named root named nothing (``missing_roots``).

        Usually a typo in the subject (``user=u-71``) or an id; ``graphmem delete plan``
        exits 1 for it unless ``--allow-empty``. Records that only hold a redaction term do
        not count: the request's subject still matched nothing.
        """
        return not self.roots or bool(self.missing_roots)

    @property
    def term_scheme(self) -> int:
        """How the plan's ``term_checks`` read a term (:mod:`graphmem.deletion.fold`): a
        version 2 plan with accents counting, a version 3 one with diacritics folded, a
        version 4 one with typographic apostrophes, hyphens and tatweel folded too."""
        return {2: SCHEME_PLAIN, 3: SCHEME_FOLDED}.get(self.version, SCHEME_TYPOGRAPHIC)

    @property
    def term_count(self) -> int:
        """How many redaction terms the request names."""
        return len(self.term_checks)

    @property
    def clear_terms(self) -> tuple[str, ...]:
        """The terms as given to :func:`plan_deletion`, kept in memory only (empty for a plan
        loaded from JSON)."""
        return self._terms

    def with_terms(self, terms: tuple[str, ...]) -> DeletionPlan:
        """A copy that keeps ``terms`` in memory (checked by the caller against
        ``term_checks``); its JSON and digest are this plan's."""
        copy = self.model_copy()
        copy._terms = terms
        return copy

    def disposition_of(self, node_id: str) -> Disposition | None:
        """The disposition planned for ``node_id``, or None when the plan leaves it alone."""
        for e in self.entries:
            if e.id == node_id:
                return e.disposition
        return None

    def counts(self) -> dict[str, int]:
        """How many entries get each disposition (every disposition present, zeros too)."""
        return counts_of(e.disposition for e in self.entries)


class ReportEntry(BaseModel):
    """One node a deletion request disposed of, as stored on its ``DISPOSED`` edge."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    node: NodeType
    kind: str | None = None
    disposition: Disposition
    at: AwareDatetime | None = None
    changed: bool
    root: bool = False


class Verification(BaseModel):
    """The verification query's result: what proves the deletion held (docs/spec/deletion.md).

    ``passed`` is true iff every planned node was disposed of, no DELETE node holds content
    (or is not erased), every erased intention is cancelled, no RECOMPUTE record became
    eligible without being recomputed, and (when terms were checked) no text of the
    request's tenants' graph holds a term: every string and list-of-strings property of every
    node and relationship is scanned (docs/spec/deletion.md), except log nodes written after
    the request finished. Findings are grouped: record text (``retrievable_with_terms``;
    ``stored_with_terms`` for quarantined or pending records), intention actions, retrieval
    queries, and any other property as ``"Label owner.key"`` (``text_with_terms``).
    ``identifiers_with_terms`` (ids, scopes, enum values and digests, which are never
    redacted: :data:`graphmem.deletion.redaction.STRUCTURAL_KEYS`) and
    ``quarantine_released`` (promoted by a later review) are reported without failing.
    ``terms_requested`` is how many terms the request named, ``terms_checked`` how many this
    verification checked (from the request's own digests, without being given them); it
    never passes with fewer checked than requested.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: bool
    checked_at: AwareDatetime
    state: str
    planned: int
    disposed: int
    deleted_with_content: tuple[str, ...] = ()
    intentions_not_cancelled: tuple[str, ...] = ()
    recompute_not_pending: tuple[str, ...] = ()
    quarantine_released: tuple[str, ...] = ()
    terms_requested: int = 0
    terms_checked: int = 0
    retrievable_with_terms: tuple[str, ...] = ()
    stored_with_terms: tuple[str, ...] = ()
    intentions_with_terms: tuple[str, ...] = ()
    retrievals_with_terms: tuple[str, ...] = ()
    text_with_terms: tuple[str, ...] = ()
    identifiers_with_terms: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


class DeletionRequestInfo(BaseModel):
    """The request as the graph keeps it (no redaction terms: only their count and digests);
    ``reach``: its plan's (:class:`PlanReach`; None: the whole of its tenants)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    state: str
    requested_by: str
    reason: str
    subject: dict[str, str] | None = None
    tenants: tuple[str, ...] = ()
    redact_term_count: int = 0
    planned_at: AwareDatetime | None = None
    started_at: AwareDatetime | None = None
    finished_at: AwareDatetime | None = None
    digest: str
    reach: PlanReach | None = None


class DeletionReport(BaseModel):
    """The audit report of a deletion request: every id with its disposition, counts,
    timestamps, the request, dangling citations, touched retrievals and the verification.
    ``already_applied``: the apply that returned it found the request applied before and
    changed nothing (``changed`` and the entries' ``changed`` tell what the first apply did).
    ``disk``: what the apply did to the server's files and what stays outside graphmem's
    reach (a verification shows what the apply recorded; None when it was not settled)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: DeletionRequestInfo
    entries: tuple[ReportEntry, ...]
    counts: dict[str, int]
    changed: int
    dangling_citations: tuple[Citation, ...] = ()
    retrievals: tuple[RetrievalHit, ...] = ()
    verification: Verification
    generated_at: AwareDatetime
    already_applied: bool = False
    disk: DiskResidue | None = None

    def disposition_of(self, node_id: str) -> Disposition | None:
        """The disposition the request gave ``node_id``, or None."""
        for e in self.entries:
            if e.id == node_id:
                return e.disposition
        return None


def counts_of(dispositions: Iterable[Disposition]) -> dict[str, int]:
    """How many of each disposition (every disposition present, zeros too)."""
    counts = dict.fromkeys((d.value for d in Disposition), 0)
    for d in dispositions:
        counts[d.value] += 1
    return counts
