"""Thread context on the read path (episodes in sequence): when the budget
allows, a chosen memory's thread neighbours are shown beside it.

A turn of a conversation or a step of a run often makes sense only with the turn before or
after it ("Yes, in Sweden" answers the question above it). After ranking, conflict partners
and the budget (docs/spec/read-path.md, steps 5-7), :func:`thread_context` adds the nearest eligible
neighbours of each chosen memory, best hit first, as long as the whole rendered block stays
within the budget. Neighbours come only from the eligible candidates
(:func:`graphmem.read.threads.neighbours`), so context never shows a record the caller may
not see; a record in a conflict is never added as context (conflict components stay whole).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from graphmem.models import MemoryRecord
from graphmem.read.steps import SEPARATOR, RetrievedMemory, render_memory
from graphmem.read.threads import neighbours

__all__ = ["thread_context"]


def thread_context(
    chosen: Sequence[RetrievedMemory],
    candidates: Sequence[MemoryRecord],
    *,
    budget_chars: int,
    spent_chars: int,
    window: int = 1,
    exclude: Collection[str] = (),
) -> list[RetrievedMemory]:
    """The thread neighbours of ``chosen`` that fit in what is left of the budget.

    Args:
        chosen: the memories already chosen, best first.
        candidates: every eligible candidate (neighbours are found among these only).
        budget_chars: the context budget in characters; spent_chars: characters of the
            rendered block so far (``len(render_memories(chosen))``).
        window: neighbours on each side of a hit (0: none).
        exclude: ids never added (records in a conflict, those left out over budget).

    Returns:
        Memories to append, in order: for each hit (best first) its neighbours, nearest
        first; each has score 0.0 and the reason ``"thread context of <hit id>"``. A
        neighbour that does not fit is skipped and the next one is tried.
    """
    if window < 1 or not chosen:
        return []
    threads = {(m.record.tenant, m.record.thread) for m in chosen if m.record.thread}
    if not threads:
        return []
    # only the hits' threads matter: neighbours within a thread depend on its members alone
    candidates = [r for r in candidates
                  if r.thread is not None and (r.tenant, r.thread) in threads]
    index = {r.id: i for i, r in enumerate(candidates)}
    near = neighbours(candidates, window)
    taken = {m.record.id for m in chosen} | set(exclude)
    added: list[RetrievedMemory] = []
    spent = spent_chars
    for hit in chosen:
        at = index.get(hit.record.id)
        if at is None:
            continue
        for j in near[at]:
            record = candidates[j]
            if record.id in taken:
                continue
            memory = RetrievedMemory(record, 0.0, f"thread context of {hit.record.id}")
            cost = len(render_memory(memory)) + (len(SEPARATOR) if spent else 0)
            if spent + cost > budget_chars:
                continue
            taken.add(record.id)
            added.append(memory)
            spent += cost
    return added
