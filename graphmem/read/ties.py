"""The tie order of a candidate set (higher authority, newer ``created_at``, then id:
docs/spec/read-path.md), kept for the last few sets and brought to the next by what changed,
so that a query sorts by score alone (:func:`graphmem.read.rankers.score_order`).
"""

from __future__ import annotations

import threading
from bisect import bisect_left, insort
from collections.abc import Sequence
from operator import is_
from typing import Any

import numpy as np

from graphmem.db.chunked import held
from graphmem.models import MemoryRecord

__all__ = ["tie_order"]


_TIE_LOCK = threading.Lock()
# (records, their identities in tie order, the order as indices, the records' token or None)
# for the last few sets
_TIE_ORDERS: list[tuple[Sequence[MemoryRecord], Any, Any, int | None]] = []  # most recent last


def _tie_key(r: MemoryRecord) -> tuple[int, float, str]:
    return (-r.authority.rank, -r.created_at.timestamp(), r.id)


def tie_order(records: Sequence[MemoryRecord]) -> Any:
    """Indices of ``records`` (distinct records) by (authority desc, created_at desc, id
    asc), as a numpy array.

    The orders of the last few candidate sets are kept: an identical set (the same record objects)
    reuses its order; a set that differs from the last one by a few records is ordered from it,
    dropping the records that left and inserting the new ones by bisection, which gives exactly the
    order a full sort gives. The records both sets hold are matched by identity in numpy (a kept
    record is alive, so its identity is its own).
    """
    with _TIE_LOCK:
        kept = list(_TIE_ORDERS)
    token = getattr(records, "token", None)
    for prev, before, ties, prev_token in reversed(kept):
        if len(prev) == len(records) and (
                (token is not None and token == prev_token) or all(map(is_, prev, records))):
            if token != prev_token:  # the same records under another name
                _keep_ties(records, before, ties, token)
            return ties
    edit = getattr(records, "edit", None)
    for prev, before, ties, prev_token in reversed(kept):
        if edit is not None and prev_token is not None and edit[0] == prev_token:
            return _edited_ties(records, prev, before, ties, edit, token)
    n = len(records)
    identities = np.fromiter(map(id, records), dtype=np.intp, count=n)
    order: list[int] | None = None
    if kept and n:
        sorter = np.argsort(identities)
        ranked = identities[sorter]
        before = kept[-1][1]  # the last set's identities, in its tie order
        at = np.minimum(np.searchsorted(ranked, before), n - 1)
        found = sorter[at[ranked[at] == before]]  # still here, in the last tie order
        if 4 * (n - len(found)) <= n:
            order = found.tolist()
            new = np.ones(n, dtype=bool)
            new[found] = False
            for j in np.flatnonzero(new).tolist():
                insort(order, j, key=lambda i: _tie_key(records[i]))
    if order is None:
        order = sorted(range(n), key=lambda i: _tie_key(records[i]))
    ties = np.asarray(order, dtype=np.intp)
    _keep_ties(records, identities[ties], ties, token)
    return ties


def _keep_ties(records: Sequence[MemoryRecord], identities: Any, ties: Any,
               token: int | None) -> None:
    with _TIE_LOCK:
        _TIE_ORDERS.append((held(records), identities, ties, token))
        if len(_TIE_ORDERS) > 8:
            _TIE_ORDERS.pop(0)


def _edited_ties(records: Sequence[MemoryRecord], prev: Sequence[MemoryRecord], before: Any,
                 ties: Any, edit: tuple[int, Sequence[int], Sequence[int]],
                 token: int | None) -> Any:
    """The tie order of ``records``, made from ``prev``'s (``before``: its identities in tie
    order; ``ties``: the order as indices) by ``records.edit`` (positions removed from
    ``prev``, positions inserted in ``records``): the kept records keep their relative order,
    renumbered in numpy, and the inserted ones are placed by bisection, which gives exactly
    the order a full sort gives."""
    _, removed, inserted = edit
    n, m = len(records), len(prev)
    kept = np.ones(m, dtype=bool)
    kept[np.asarray(removed, dtype=np.intp)] = False
    free = np.ones(n, dtype=bool)
    free[np.asarray(inserted, dtype=np.intp)] = False
    renumber = np.zeros(m, dtype=np.intp)  # a kept record's position in ``records``
    renumber[kept] = np.flatnonzero(free)
    survivors = ties[kept[ties]]
    order = renumber[survivors]

    def key(i: int) -> tuple[int, float, str]:
        return _tie_key(records[i])

    joining = sorted(inserted, key=key)  # placed in the kept order by bisection, in numpy
    new_ties = np.insert(order, [bisect_left(order, key(j), key=key) for j in joining],
                         np.asarray(joining, dtype=np.intp))
    identities = np.zeros(n, dtype=np.intp)  # by position, then in tie order
    identities[renumber[survivors]] = before[kept[ties]]
    identities[list(inserted)] = [id(records[j]) for j in inserted]
    _keep_ties(records, identities[new_ties], new_ties, token)
    return new_ties
