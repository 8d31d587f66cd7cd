"""Resolving a conflict on metadata, never on prose (docs/spec/read-path.md, chapter section 8).

Filters applied in order, each keeping the best of what is left, stopping as soon as
one asserted value remains:

1. explicit supersession (a record superseded by another side is out);
2. authority (authoritative source > verified outcome > human instruction > model
   inference > untrusted), the chapter's precedence of evidence;
3. later effective date (``valid_from``, else ``created_at``);
4. more specific scope (more scope keys matched).

Whatever still disagrees is a genuine ambiguity: it is reported, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from graphmem.errors import ValidationError
from graphmem.models import MemoryRecord
from graphmem.read.steps import MemoryConflict

__all__ = ["ConflictResolution", "record_pool", "resolve_conflict"]


@dataclass(frozen=True)
class ConflictResolution:
    """The outcome of :func:`resolve_conflict`.

    Attributes:
        key: the conflicting ``asserts`` key.
        value: the surviving value, or None when the conflict is a genuine ambiguity.
        winner_ids: the records that assert the surviving value (or every remaining side).
        decided_by: the rule that settled it (``supersession``, ``authority``,
            ``effective_date``, ``scope_specificity``) or ``ambiguous``.
    """

    key: str
    value: str | None
    winner_ids: tuple[str, ...]
    decided_by: str

    @property
    def ambiguous(self) -> bool:
        """True when metadata could not settle the conflict."""
        return self.value is None


def _effective(r: MemoryRecord) -> float:
    return (r.valid_from or r.created_at).timestamp()


def resolve_conflict(
    conflict: MemoryConflict, records: Mapping[str, MemoryRecord]
) -> ConflictResolution:
    """Settle ``conflict`` on metadata, or report it as a genuine ambiguity.

    Args:
        conflict: a conflict from the read path.
        records: at least the records named in ``conflict.record_ids``, by id.

    Raises:
        ValidationError: ``records`` holds none of the records the conflict names.
    """
    pool = [records[i] for i in conflict.record_ids if i in records]
    if not pool:
        raise ValidationError("no record the conflict names was given or found",
                              record_ids=conflict.record_ids)
    superseded = {old for r in pool for old in r.supersedes}
    rules: list[tuple[str, Callable[[MemoryRecord], float]]] = [
        ("supersession", lambda r: 0.0 if r.id in superseded else 1.0),
        ("authority", lambda r: float(r.authority.rank)),
        ("effective_date", _effective),
        ("scope_specificity", lambda r: float(len(r.scope))),
    ]
    for name, measure in rules:
        best = max(measure(r) for r in pool)
        narrowed = [r for r in pool if measure(r) == best]
        if len(narrowed) < len(pool):
            pool = narrowed
        values = {r.asserted_value for r in pool}
        if len(values) == 1:
            return ConflictResolution(conflict.key, values.pop(),
                                      tuple(sorted(r.id for r in pool)), name)
    return ConflictResolution(conflict.key, None, tuple(sorted(r.id for r in pool)), "ambiguous")


def record_pool(records: Iterable[MemoryRecord]) -> dict[str, MemoryRecord]:
    """``records`` (read once) by id, for :func:`resolve_conflict`.

    Raises:
        ValidationError: an item is not a :class:`MemoryRecord`.
    """
    pool: dict[str, MemoryRecord] = {}
    for record in records:
        if not isinstance(record, MemoryRecord):
            raise ValidationError(f"records must hold MemoryRecord items, not "
                                  f"{type(record).__name__}")
        pool[record.id] = record
    return pool
