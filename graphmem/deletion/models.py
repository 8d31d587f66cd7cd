"""The deletion vocabulary (docs/spec/deletion.md): dispositions, the reviewable
:class:`DeletionPlan` and the audit :class:`DeletionReport`.

Pydantic models with no database methods, JSON round-trippable so that a plan can be saved,
reviewed and applied later (``graphmem delete plan -o`` / ``graphmem delete apply``).
:mod:`graphmem.deletion` builds and applies them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Annotated, Literal

import pydantic
from pydantic import (
    BaseModel,
    ConfigDict,
    FailFast,
    Field,
    PrivateAttr,
    StringConstraints,
    model_validator,
)

from graphmem.deletion.columns import (
    Disposition,
    NodeType,
    PlanColumns,
    PlanEntry,
    Strings,
    TextMap,
    Via,
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
    "PlanColumns",
    "PlanEntry",
    "PlanReach",
    "ReportEntry",
    "RetrievalHit",
    "Verification",
    "Via",
    "counts_of",
]

PLAN_VERSION: Literal[5] = 5
"""The version plans are made with: 5 holds its entries as columns (:class:`PlanColumns`,
docs/spec/deletion.md#plan-format) and reads terms as 4 does, with diacritics and typographic
apostrophes, hyphens and tatweel folded (``docs/deletion-terms.md``). Versions 2-4 hold a list
of entries, and their digest is that list's JSON, as they were made; their ``term_checks``
are checked as they were made (:attr:`DeletionPlan.term_scheme`): version 2 with accents
counting, version 3 with diacritics folded and punctuation as written."""


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
    scope: TextMap = Field(default_factory=dict)


class Citation(BaseModel):
    """A surviving record that cites deleted records in ``evidence_ids`` (dangling once applied)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    record_id: str
    cites: Strings


class RetrievalHit(BaseModel):
    """A logged retrieval that selected deleted records or whose query holds a term."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retrieval_id: str
    selected_ids: Strings = ()
    query_holds_terms: bool = False


TermSalt = Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{2})*$")]


class _PlanHead(BaseModel):
    """The fields a plan of every version begins with, in the order its JSON gives them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: Literal[2, 3, 4, 5] = PLAN_VERSION
    request_id: Identifier
    requested_by: NonEmptyStr
    reason: NonEmptyStr
    subject: TextMap | None = None
    roots: Strings
    missing_roots: Strings = ()
    #: hex, as :func:`graphmem.deletion.terms.term_check` reads it
    term_salt: TermSalt = ""
    term_checks: Strings = ()
    tenants: Strings = ()
    planned_at: AwareDatetime


class _ListedPlan(_PlanHead):
    """A plan with its entries listed, as a reviewer reads it and as a version 2-4 plan was
    saved: such a plan's JSON and digest are made from this shape, field for field, so that
    a plan saved then still loads, checks and applies (built unvalidated, from a plan)."""

    entries: tuple[PlanEntry, ...]
    dangling_citations: Annotated[tuple[Citation, ...], FailFast()] = ()
    retrievals: Annotated[tuple[RetrievalHit, ...], FailFast()] = ()
    reach: PlanReach | None = None
    digest: str = ""


class DeletionPlan(_PlanHead):
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

    The entries are held as ``columns`` (:class:`PlanColumns`,
    docs/spec/deletion.md#plan-format); :attr:`entries` builds them as :class:`PlanEntry`
    objects on first use. A plan may be made (or loaded) with ``entries=`` a list of entries
    instead: a version 2-4 plan's JSON has them so, and keeps its JSON and digest so.

    Raises:
        DeletionError: (from :meth:`from_json`) malformed JSON, an unknown version, a digest
            that does not match the content, repeated ids, or dispositions that contradict
            the lineage the plan itself records.
        pydantic.ValidationError: (when made) the same rules broken, or both ``entries`` and
            ``columns`` given.
    """

    columns: PlanColumns = Field(default_factory=PlanColumns)
    #: the entries as a list (a version 2-4 plan's JSON); moved into ``columns`` when made
    listed: Annotated[tuple[PlanEntry, ...] | None, FailFast()] = Field(
        default=None, alias="entries", exclude=True)
    dangling_citations: Annotated[tuple[Citation, ...], FailFast()] = ()
    retrievals: Annotated[tuple[RetrievalHit, ...], FailFast()] = ()
    reach: PlanReach | None = None
    digest: str = ""
    _terms: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _consistent(self) -> DeletionPlan:
        if self.listed is not None:
            if "columns" in self.model_fields_set:
                raise ValueError("a plan holds its entries as a list or as columns, not both")
            object.__setattr__(self, "columns", PlanColumns.from_entries(self.listed))
            object.__setattr__(self, "listed", None)
        self.columns.check(len(self.term_checks), self.roots)
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

    def _listed(self) -> _ListedPlan:
        fields = {k: getattr(self, k) for k in _ListedPlan.model_fields if k != "entries"}
        return _ListedPlan.model_construct(**fields, entries=self.entries)

    def compute_digest(self) -> str:
        """SHA-256 of the plan's canonical JSON without the digest field (nor ``reach``
        when it is None: a plan saved before plans had a reach keeps its digest): a version
        5 plan's JSON holds its columns, a version 2-4 plan's its list of entries, as it was
        made (docs/spec/deletion.md#plan-format)."""
        exclude = {"digest"} | ({"reach"} if self.reach is None else set())
        made = self._listed() if self.version < 5 else self
        payload = made.model_dump_json(exclude=exclude)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def to_json(self, *, indent: int | None = 2) -> str:
        """The plan as its reviewer reads it (what ``graphmem delete plan -o`` writes, and
        the MCP ``plan_deletion`` tool returns): every entry listed as an object with its id,
        disposition and reason, whatever the version. :meth:`from_json` reads it back to the
        same plan; a version 5 plan's digest is over its columns
        (docs/spec/deletion.md#plan-format), which :meth:`from_json` also reads."""
        return self._listed().model_dump_json(indent=indent)

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

    @property
    def entries(self) -> tuple[PlanEntry, ...]:
        """Every entry in plan order, as :class:`PlanEntry` objects (built from the columns
        on first use, then kept: a loop over a large plan reads :attr:`columns`)."""
        return self.columns.entries()

    @property
    def entry_count(self) -> int:
        """How many entries the plan has."""
        return self.columns.size

    def first_entries(self, limit: int) -> tuple[PlanEntry, ...]:
        """The first ``limit`` entries (a review's table), without building the others."""
        return tuple(self.columns.entry(i) for i in range(min(limit, self.columns.size)))

    def ids(self, disposition: Disposition | None = None) -> list[str]:
        """Entry ids in plan order, optionally only those with ``disposition``."""
        if disposition is None:
            return list(self.columns.ids)
        return self.columns.ids_with(disposition)

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
        version 4 or 5 one with typographic apostrophes, hyphens and tatweel folded too."""
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
        return self.columns.disposition_of(node_id)

    def counts(self) -> dict[str, int]:
        """How many entries get each disposition (every disposition present, zeros too)."""
        return self.columns.counts()


class ReportEntry(BaseModel):
    """One node a deletion request disposed of, as stored on its ``DISPOSED`` edge.
    ``late``: not in the plan, a record or intention written after planning that held a
    term, redacted by the apply's last scan (REDACT, docs/spec/deletion.md#apply)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    node: NodeType
    kind: str | None = None
    disposition: Disposition
    at: AwareDatetime | None = None
    changed: bool
    root: bool = False
    late: bool = False


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
