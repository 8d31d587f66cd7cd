"""A deletion plan's entries as parallel columns (docs/spec/deletion.md#plan-format).

A plan of 10^6 descendants holds no Python object per descendant: :class:`PlanColumns` keeps
one tuple (or one string of one-letter codes) per field of :class:`PlanEntry`, in plan order,
and builds a :class:`PlanEntry` only when one is asked for. The plan's digest and JSON are
those of the columns; the codes and the one derived reason are described in
docs/spec/deletion.md#plan-format.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from itertools import chain, compress
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    FailFast,
    Field,
    PrivateAttr,
    StringConstraints,
)

from graphmem.fields import NonEmptyStr

__all__ = ["DISPOSITION_CODES", "NODE_CODES", "VIA_CODES", "Disposition", "NodeType",
           "PlanColumns", "PlanEntry", "Via", "deleted_reason", "id_list"]


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


#: A sequence of a plan is judged to its first bad item only, so a plan of millions of bad
#: items (a broken or hostile file within ``InputLimits.plan_bytes``) is one problem, not an
#: error object per item (docs/spec/deletion.md#plan-format).
Strings = Annotated[tuple[str, ...], FailFast()]
Counts = Annotated[tuple[Annotated[int, Field(ge=0)], ...], FailFast()]


def _text_map(value: object) -> object:
    """A mapping of strings (a subject, a reach's scope) judged as one: any other is one
    problem, not one per key (as :data:`Strings`)."""
    if isinstance(value, dict) and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError("must map strings to strings")
    return value


#: a plan's mapping of strings, judged as one (see :func:`_text_map`)
TextMap = Annotated[dict[str, str], BeforeValidator(_text_map)]


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
    parents: Strings = ()
    erased_parents: Strings = ()
    terms: Annotated[tuple[int, ...], FailFast()] = ()
    already_erased: bool = False


#: one letter per entry in :attr:`PlanColumns.nodes`, ``dispositions`` and ``vias``
NODE_CODES: dict[str, NodeType] = {"r": NodeType.RECORD, "i": NodeType.INTENTION}
DISPOSITION_CODES: dict[str, Disposition] = {
    "D": Disposition.DELETE, "C": Disposition.RECOMPUTE, "R": Disposition.REDACT,
    "Q": Disposition.QUARANTINE}
VIA_CODES: dict[str, Via] = {"r": "root", "l": "lineage", "c": "citation", "m": "mention"}
_NODE_LETTER = {v: k for k, v in NODE_CODES.items()}
_DISPOSITION_LETTER = {v: k for k, v in DISPOSITION_CODES.items()}
_VIA_LETTER = {v: k for k, v in VIA_CODES.items()}


def id_list(ids: Sequence[str], limit: int = 3) -> str:
    """``a, b, c and 4 more``: the first ``limit`` ids, as a plan's reasons name them."""
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def deleted_reason(parents: Sequence[str], erased_parents: Sequence[str]) -> str:
    """The reason of a lineage descendant planned DELETE because every parent goes (the one
    reason the columns derive instead of holding: docs/spec/deletion.md#plan-format)."""
    already = " or already erased" if erased_parents else ""
    return f"every parent is being deleted{already} ({id_list(parents)})"


NodeCodes = Annotated[str, StringConstraints(pattern=r"^[ri]*$")]
DispositionCodes = Annotated[str, StringConstraints(pattern=r"^[DCRQ]*$")]
ViaCodes = Annotated[str, StringConstraints(pattern=r"^[rlcm]*$")]
FlagCodes = Annotated[str, StringConstraints(pattern=r"^[01]*$")]


_IS_DELETE = bytes.maketrans(b"DCRQ", b"\1\0\0\0")
_IS_LINEAGE = bytes.maketrans(b"rlcm", b"\0\1\0\0")
_IS_LIVE = bytes.maketrans(b"01", b"\1\0")
_IS_QUARANTINE = bytes.maketrans(b"DCRQ", b"\0\0\0\1")
_IS_REDACT = bytes.maketrans(b"DCRQ", b"\0\0\1\0")


def _bits(codes: str, table: bytes) -> int:
    """A code string (checked to hold codes only) as an integer of 0/1 bytes, in C."""
    return int.from_bytes(codes.encode("ascii").translate(table), "big")


def _lineage_deletes(dispositions: str, vias: str, already_erased: str) -> bytes:
    """One byte per entry, 1 for a lineage DELETE entry not already erased: the three code
    strings made 0/1 bytes and ANDed as integers, in C."""
    n = len(dispositions)
    return (_bits(dispositions, _IS_DELETE) & _bits(vias, _IS_LINEAGE)
            & _bits(already_erased, _IS_LIVE)).to_bytes(n, "big")


#: (the vias, the dispositions those vias allow) as 0/1 byte tables: a root is DELETE, a
#: citing record QUARANTINE and a mentioning one REDACT; DELETE is a root's or a lineage
#: descendant's only (docs/spec/deletion.md#dispositions)
_VIA_RULES = (
    (bytes.maketrans(b"rlcm", b"\1\0\0\0"), _IS_DELETE),
    (bytes.maketrans(b"rlcm", b"\0\0\1\0"), bytes.maketrans(b"DCRQ", b"\0\0\0\1")),
    (bytes.maketrans(b"rlcm", b"\0\0\0\1"), bytes.maketrans(b"DCRQ", b"\0\0\1\0")),
)
_IS_ROOT_OR_LINEAGE = bytes.maketrans(b"rlcm", b"\1\1\0\0")


def _check_dispositions(columns: PlanColumns) -> None:
    """The dispositions agree with the ways the plan records
    (docs/spec/deletion.md#dispositions): a root is DELETE, a citing record QUARANTINE, a
    mentioning one REDACT; DELETE is only a root's or a lineage descendant's (whose parents
    :meth:`PlanColumns.check` judges); QUARANTINE only a procedure's; REDACT only an entry's
    that holds a term. In C over the columns.

    Raises:
        ValueError: one does not.
    """
    d, v = columns.dispositions, columns.vias
    for via_table, allowed in _VIA_RULES:
        if _bits(v, via_table) & ~_bits(d, allowed):
            raise ValueError("a root, citing or mentioning entry has another disposition "
                             "than its way gives it")
    if _bits(d, _IS_DELETE) & ~_bits(v, _IS_ROOT_OR_LINEAGE):
        raise ValueError("only a root or a lineage descendant is DELETE")
    quarantined = bytes(d.encode("ascii").translate(_IS_QUARANTINE))
    if list(compress(columns.kinds, quarantined)).count("procedural") != d.count("Q"):
        raise ValueError("only a procedure is QUARANTINE")
    if not all(compress(columns.terms, d.encode("ascii").translate(_IS_REDACT))):
        raise ValueError("a REDACT entry holds no term")


class PlanColumns(BaseModel):
    """A plan's entries, one column per :class:`PlanEntry` field, all of one length, in plan
    order (docs/spec/deletion.md#plan-format).

    Attributes:
        ids, kinds, depths, parents, erased_parents, terms: as the entries' fields.
        nodes: one letter per entry, ``r`` record or ``i`` intention.
        dispositions: ``D`` DELETE, ``C`` RECOMPUTE, ``R`` REDACT, ``Q`` QUARANTINE.
        vias: ``r`` root, ``l`` lineage, ``c`` citation, ``m`` mention.
        already_erased: ``1`` or ``0``.
        reasons: the entry's reason, or None for a lineage DELETE entry not already erased
            whose reason is :func:`deleted_reason` of its parents (the only one it may be).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ids: Strings = ()
    nodes: NodeCodes = ""
    kinds: Annotated[tuple[str | None, ...], FailFast()] = ()
    dispositions: DispositionCodes = ""
    vias: ViaCodes = ""
    depths: Counts = ()
    parents: Annotated[tuple[Strings, ...], FailFast()] = ()
    erased_parents: Annotated[tuple[Strings, ...], FailFast()] = ()
    terms: Annotated[tuple[Counts, ...], FailFast()] = ()
    already_erased: FlagCodes = ""
    reasons: Annotated[tuple[str | None, ...], FailFast()] = ()
    _entries: tuple[PlanEntry, ...] | None = PrivateAttr(default=None)

    # -- building ---------------------------------------------------------------------

    @classmethod
    def build(cls, *, ids: Sequence[str], nodes: str, kinds: Sequence[str | None],
              dispositions: str, vias: str, depths: Sequence[int],
              parents: Sequence[tuple[str, ...]], erased_parents: Sequence[tuple[str, ...]],
              terms: Sequence[tuple[int, ...]], already_erased: str,
              reasons: Sequence[str | None]) -> PlanColumns:
        """Columns made by the planner, taken as they are (:meth:`check` judges them when
        the plan is made): each sequence becomes a tuple, nothing is validated per entry."""
        return cls.model_construct(
            ids=tuple(ids), nodes=nodes, kinds=tuple(kinds), dispositions=dispositions,
            vias=vias, depths=tuple(depths), parents=tuple(parents),
            erased_parents=tuple(erased_parents), terms=tuple(terms),
            already_erased=already_erased, reasons=tuple(reasons))

    @classmethod
    def from_entries(cls, entries: Sequence[PlanEntry]) -> PlanColumns:
        """The columns of validated entries (a plan given entries, or a version 2-4 plan's
        JSON); a derivable reason is held as None, so the same entries always make the same
        columns."""
        reasons: list[str | None] = []
        for e in entries:
            derivable = (e.via == "lineage" and e.disposition is Disposition.DELETE
                         and not e.already_erased
                         and e.reason == deleted_reason(e.parents, e.erased_parents))
            reasons.append(None if derivable else e.reason)
        made = cls.build(
            ids=[e.id for e in entries], nodes="".join(_NODE_LETTER[e.node] for e in entries),
            kinds=[e.kind for e in entries],
            dispositions="".join(_DISPOSITION_LETTER[e.disposition] for e in entries),
            vias="".join(_VIA_LETTER[e.via] for e in entries), depths=[e.depth for e in entries],
            parents=[e.parents for e in entries],
            erased_parents=[e.erased_parents for e in entries],
            terms=[e.terms for e in entries],
            already_erased="".join("1" if e.already_erased else "0" for e in entries),
            reasons=reasons)
        made._entries = tuple(entries)
        return made

    def slice(self, start: int, stop: int) -> PlanColumns:
        """Entries ``start`` to ``stop`` (positions, as a tuple slice takes them): an apply's
        batch."""
        return PlanColumns.model_construct(**{
            name: getattr(self, name)[start:stop] for name in PlanColumns.model_fields})

    # -- entries ----------------------------------------------------------------------

    @property
    def size(self) -> int:
        """How many entries."""
        return len(self.ids)

    def entry(self, i: int) -> PlanEntry:
        """The ``i``-th entry (``0 <= i < size``, as for a tuple) as a :class:`PlanEntry`
        (built, not validated: the columns were)."""
        parents, erased = self.parents[i], self.erased_parents[i]
        reason = self.reasons[i]
        return PlanEntry.model_construct(
            id=self.ids[i], node=NODE_CODES[self.nodes[i]], kind=self.kinds[i],
            disposition=DISPOSITION_CODES[self.dispositions[i]],
            reason=deleted_reason(parents, erased) if reason is None else reason,
            via=VIA_CODES[self.vias[i]], depth=self.depths[i], parents=parents,
            erased_parents=erased, terms=self.terms[i],
            already_erased=self.already_erased[i] == "1")

    def entries(self) -> tuple[PlanEntry, ...]:
        """Every entry as a :class:`PlanEntry`, built on first use and kept."""
        if self._entries is None:
            self._entries = tuple(self.entry(i) for i in range(len(self.ids)))
        return self._entries

    def ids_with(self, disposition: Disposition) -> list[str]:
        """The ids planned ``disposition``, in plan order."""
        return list(compress(self.ids, map(_DISPOSITION_LETTER[disposition].__eq__,
                                           self.dispositions)))

    def ids_via(self, via: Via, node: NodeType | None = None) -> list[str]:
        """The ids reached ``via`` (and of ``node`` when given), in plan order."""
        letter, kind = _VIA_LETTER[via], None if node is None else _NODE_LETTER[node]
        return [i for i, v, n in zip(self.ids, self.vias, self.nodes, strict=True)
                if v == letter and (kind is None or n == kind)]

    def counts(self) -> dict[str, int]:
        """How many entries get each disposition (every disposition present, zeros too)."""
        return {d.value: self.dispositions.count(c) for c, d in DISPOSITION_CODES.items()}

    def disposition_of(self, node_id: str) -> Disposition | None:
        """The disposition planned for ``node_id``, or None when the plan leaves it alone."""
        try:
            return DISPOSITION_CODES[self.dispositions[self.ids.index(node_id)]]
        except ValueError:
            return None

    # -- consistency ------------------------------------------------------------------

    def check(self, term_count: int, roots: Sequence[str]) -> None:
        """The rules every plan keeps (docs/spec/deletion.md#plan-format), over the columns.

        Raises:
            ValueError: columns of different lengths, an empty id or an unknown code (columns
                taken as built), a reason left to derive on an entry that has none to derive,
                a term the plan does not have, an id twice, a root not planned as DELETE, or
                a lineage DELETE entry (not already erased) with a parent that survives.
        """
        n = len(self.ids)
        if any(len(c) != n for c in (self.nodes, self.kinds, self.dispositions, self.vias,
                                     self.depths, self.parents, self.erased_parents,
                                     self.terms, self.already_erased, self.reasons)):
            raise ValueError("a plan's columns differ in length")
        if not all(self.ids) or not set(self.nodes) <= NODE_CODES.keys() \
                or not set(self.dispositions) <= DISPOSITION_CODES.keys() \
                or not set(self.vias) <= VIA_CODES.keys() or not set(self.already_erased) <= {
                    "0", "1"}:
            raise ValueError("a plan's columns hold an empty id or an unknown code")
        # lineage DELETE entries not already erased: the only ones whose reason may be left
        # to derive, and whose parents must all be gone (every step in C: 10^6 entries)
        checked = _lineage_deletes(self.dispositions, self.vias, self.already_erased)
        if list(compress(self.reasons, checked)).count(None) != self.reasons.count(None):
            raise ValueError("only a lineage DELETE entry's reason is left to derive")
        if any(self.terms):
            used = [max(t) for t in self.terms if t]
            if max(used) >= term_count:
                at = next(i for i, t in enumerate(self.terms) if t and max(t) >= term_count)
                raise ValueError(f"{self.ids[at]!r} names a term the plan does not have")
        unique = set(self.ids)
        if len(unique) != n:
            raise ValueError("a plan names the same id twice")
        deleted = unique if self.dispositions.count("D") == n else set(
            compress(self.ids, map("D".__eq__, self.dispositions)))
        for root in roots:
            if root not in deleted:
                raise ValueError(f"root {root!r} is not planned as DELETE")
        _check_dispositions(self)
        # every parent of every checked entry is gone iff each entry's parents are: one
        # set test over the parents chained (in C), not one call per entry; else find the
        # entry at fault
        if deleted.issuperset(chain.from_iterable(compress(self.parents, checked))):
            return
        for i in compress(range(n), checked):
            erased = self.erased_parents[i]
            if not all(p in deleted or p in erased for p in self.parents[i]):
                raise ValueError(f"{self.ids[i]!r} is DELETE although a parent survives")
