"""Episodes in sequence on the read path: which candidates are neighbours.

A record with ``thread``/``position`` sits in an ordered thread of its tenant; the store
links neighbouring positions with ``NEXT``. Ranking sees only the eligible candidates, so
neighbours are found among them: the nearest eligible records before and after a record
in its thread (what ``NEXT`` reaches once ineligible records are stepped over). Text of a
record the caller may not see never reaches the ranker.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from graphmem.models import MemoryRecord

__all__ = ["neighbours"]


def neighbours(records: Sequence[MemoryRecord], window: int = 1) -> list[list[int]]:
    """For each record, the indices of its thread neighbours among ``records``.

    Args:
        records: the candidate set. window: how many neighbours on each side (>= 0).

    Returns:
        One list per record (same order), nearest first, earlier before later at equal
        distance; empty for records outside any thread.
    """
    threads: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        if r.thread is not None:
            threads[(r.tenant, r.thread)].append(i)
    found: list[list[int]] = [[] for _ in records]
    for members in threads.values():
        members.sort(key=lambda i: (records[i].position or 0, records[i].id))
        for at, i in enumerate(members):
            near = found[i]
            for d in range(1, window + 1):
                if at - d >= 0:
                    near.append(members[at - d])
                if at + d < len(members):
                    near.append(members[at + d])
    return found
