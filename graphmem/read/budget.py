"""The context budget (docs/spec/read-path.md, steps 7-8): which memories fit, conflict groups
whole, and the notes that tell the model about conflicts (:mod:`graphmem.read.notes`), all within
``budget_chars`` characters of rendered text. Pure functions, no database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.read.notes import conflict_note, omitted_note
from graphmem.read.steps import (
    SEPARATOR,
    MemoryConflict,
    RetrievedMemory,
    conflict_components,
    render_memory,
)

__all__ = ["ContextFit", "fit_context", "fit_to_budget"]


@dataclass(frozen=True)
class ContextFit:
    """What fits the context budget (docs/spec/read-path.md#budget) and the text the model is shown
    (step 8).

    Attributes:
        chosen: the chosen memories in score order (conflict components whole).
        over: ids of the memories left out over budget.
        blocks: the rendered text's blocks, in order: each chosen memory
            (:func:`render_memory`), each shown conflict's note after its group
            (:func:`graphmem.read.notes.conflict_note`), and where a conflict group was left
            out, the note saying so (:func:`graphmem.read.notes.omitted_note`) when it fit.
    """

    chosen: tuple[RetrievedMemory, ...]
    over: tuple[str, ...]
    blocks: tuple[str, ...]

    @property
    def rendered(self) -> str:
        """The blocks as shown, blank-line separated (at most the budget, in characters)."""
        return SEPARATOR.join(self.blocks)


def fit_context(
    memories: Sequence[RetrievedMemory],
    *,
    budget_chars: int,
    conflicts: Sequence[MemoryConflict],
) -> ContextFit:
    """Greedy by score; a conflict component is all in or all out (docs/spec/read-path.md#budget),
    with the notes that tell the model about conflicts (step 8).

    Cost is the rendered length of each block plus the separator between blocks, so the
    rendered text never exceeds ``budget_chars`` characters. A shown conflict group costs
    its memories and one note per conflict key ("Conflict on `k`: m1 says 500, m2 says
    1000 ..."). A group that does not fit is skipped and the next one tried, and each of its
    conflict keys gets a note that an unresolved conflict on the key was left out, in its
    place. Those notes come first: room for the note of every conflict key among
    ``memories`` is held back before any memory is placed (groups in score order, as long
    as notes fit), and a group's room is given back when the group is shown. So when the
    budget holds all the notes, no conflict is left out without a word.

    Args:
        memories: the ranked memories with their conflict partners.
        budget_chars: the budget, in characters (>= 0).
        conflicts: every conflict among the candidates.
    """
    components = conflict_components(conflicts)
    of_record: dict[str, list[MemoryConflict]] = defaultdict(list)
    for c in conflicts:
        for rid in c.record_ids:
            of_record[rid].append(c)
    by_id = {m.record.id: m for m in memories}
    ordered = sorted(memories, key=lambda m: (-m.score, m.record.id))
    groups: list[tuple[list[RetrievedMemory], list[MemoryConflict]]] = []
    placed: set[str] = set()
    for item in ordered:
        if item.record.id in placed:
            continue
        group_ids = components.get(item.record.id, frozenset({item.record.id}))
        group = sorted((by_id[g] for g in group_ids if g in by_id),
                       key=lambda m: (-m.score, m.record.id))
        placed.update(m.record.id for m in group)
        groups.append((group, sorted({c for m in group for c in of_record.get(m.record.id, ())},
                                     key=lambda c: c.key)))
    # Every block costs its length and one separator; the text is that sum less one
    # separator, so it fits when the sum is at most the budget plus one separator.
    room = budget_chars + len(SEPARATOR)

    def cost(texts: Sequence[str]) -> int:
        return sum(len(t) + len(SEPARATOR) for t in texts)

    held: dict[str, int] = {}  # conflict key -> room held back for its left-out note
    for _, keyed in groups:
        for c in keyed:
            need = cost([omitted_note(c.key)])
            if sum(held.values()) + need <= room:
                held[c.key] = need
    chosen: list[RetrievedMemory] = []
    skipped: list[str] = []
    blocks: list[str] = []
    spent = 0
    for group, keyed in groups:
        own = sum(held.get(c.key, 0) for c in keyed)
        texts = [render_memory(m) for m in group]
        texts += [conflict_note(c.key, [(m.record.id, m.record.asserted_value) for m in group
                                        if m.record.id in c.record_ids
                                        and m.record.asserted_value is not None])
                  for c in keyed]
        if spent + sum(held.values()) - own + cost(texts) <= room:
            chosen.extend(group)
            blocks.extend(texts)
            spent += cost(texts)
            for c in keyed:
                held.pop(c.key, None)
            continue
        skipped.extend(m.record.id for m in group)
        for c in keyed:
            note = omitted_note(c.key)
            if c.key in held or spent + sum(held.values()) + cost([note]) <= room:
                held.pop(c.key, None)
                blocks.append(note)
                spent += cost([note])
    return ContextFit(tuple(chosen), tuple(skipped), tuple(blocks))


def fit_to_budget(
    memories: Sequence[RetrievedMemory],
    *,
    budget_chars: int,
    conflicts: Sequence[MemoryConflict],
) -> tuple[list[RetrievedMemory], list[str]]:
    """The memories :func:`fit_context` chooses, and the ids it leaves out
    (docs/spec/read-path.md#budget): ``(chosen, over_budget_ids)``, chosen in score order. The
    conflict notes count in the budget, so ``render_memories(chosen)`` never exceeds
    ``budget_chars`` characters."""
    fit = fit_context(memories, budget_chars=budget_chars, conflicts=conflicts)
    return list(fit.chosen), list(fit.over)
