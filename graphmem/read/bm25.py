"""BM25 over a candidate set that changes by a few records at a time
(docs/spec/read-path.md#rank): postings and document lengths updated by the documents added
and removed, scored at query time for the query's terms only. :mod:`graphmem.read.index`
keeps these indexes for the candidate sets of recent reads.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import compress, count
from operator import not_
from typing import Any

import numpy as np

__all__ = ["IncrementalBM25"]


class IncrementalBM25:
    """BM25 over a set of documents that changes by a few documents at a time.

    Args:
        k1, b: the usual BM25 parameters (as for ``bm25s.BM25``).

    Documents are identified by hashable keys (a key must change when the document's
    tokens change). :meth:`sync` makes the index hold exactly the given documents;
    :meth:`scores` scores the query against them. Scores depend only on the documents
    held, never on the order in which they were added or removed. Not thread-safe: the
    caller holds a lock around :meth:`sync` and :meth:`scores`.
    """

    def __init__(self, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._slots: dict[Hashable, int] = {}
        self._counts: list[Counter[str] | None] = []  # per slot; None: free
        self._owners: list[object] = []  # per slot: what the caller asked to keep alive
        self._free: list[int] = []
        self._lengths = np.zeros(0, dtype=np.float64)
        self._total_length = 0
        self._postings: dict[str, dict[int, int]] = {}  # term -> slot -> frequency
        self._arrays: dict[str, _Posting] = {}  # term -> its slots and frequencies, in numpy
        #: bumped by every change (callers check that what they prepared still holds)
        self.version = 0

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, key: object) -> bool:
        return key in self._slots

    def keys(self) -> Iterable[Hashable]:
        """The keys of the documents held."""
        return self._slots.keys()

    def add(self, key: Hashable, tokens: Sequence[str], owner: object = None) -> None:
        """Hold the document ``key`` with these tokens (a key already held is ignored),
        keeping ``owner`` referenced while it is held (e.g. the object whose ``id`` is the
        key, so that the identity cannot be reused)."""
        if key in self._slots:
            return
        slot = self._free.pop() if self._free else len(self._counts)
        counts = Counter(tokens)
        if slot == len(self._counts):
            self._counts.append(counts)
            self._owners.append(owner)
            if slot >= len(self._lengths):
                grown = np.zeros(max(16, 2 * len(self._lengths)), dtype=np.float64)
                grown[:len(self._lengths)] = self._lengths
                self._lengths = grown
        else:
            self._counts[slot] = counts
            self._owners[slot] = owner
        self._slots[key] = slot
        self.version += 1
        self._lengths[slot] = len(tokens)
        self._total_length += len(tokens)
        arrays = self._arrays
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[slot] = tf
            held = arrays.get(term)
            if held is not None:  # extended in place, not copied: a common term's is long
                held.append(slot, tf)

    def remove(self, key: Hashable) -> None:
        """Stop holding the document ``key`` (a key not held is ignored)."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return
        self.version += 1
        counts = self._counts[slot]
        assert counts is not None
        arrays = self._arrays
        for term in counts:
            posting = self._postings[term]
            del posting[slot]
            if not posting:
                del self._postings[term]
                arrays.pop(term, None)
            elif (held := arrays.get(term)) is not None:
                held.drop(slot)
        self._total_length -= int(self._lengths[slot])
        self._lengths[slot] = 0.0
        self._counts[slot] = None
        self._owners[slot] = None
        self._free.append(slot)

    def sync(self, keys: Sequence[Hashable],
             document: Callable[[int], tuple[Sequence[str], object]]) -> int:
        """Hold exactly the documents ``keys`` (distinct); ``document(i)`` gives the tokens
        and owner (see :meth:`add`) of ``keys[i]`` when it is new.

        A set that only grew (an agent's loop: a write, then a read) is brought up to date
        in one pass over ``keys``, without building a set of them.

        Returns:
            How many documents were added or removed.
        """
        slots = self._slots
        new = list(compress(count(), map(not_, map(slots.__contains__, keys))))
        gone: Iterable[Hashable] = ()
        if len(keys) - len(new) != len(slots):  # some held key is no longer wanted
            gone = slots.keys() - set(keys)
        removed = 0
        for key in list(gone):
            self.remove(key)
            removed += 1
        for i in new:
            self.add(keys[i], *document(i))
        return removed + len(new)

    def positions(self, keys: Sequence[Hashable]) -> Any:
        """The slots of ``keys`` (all held), as a numpy index array for :meth:`scores` and
        :meth:`mentions`; valid until the index changes (:attr:`version`).

        Raises:
            KeyError: a key that is not held.
        """
        return np.fromiter(map(self._slots.__getitem__, keys), dtype=np.intp, count=len(keys))

    def scores(self, query_tokens: Sequence[str], at: Any) -> Any:
        """BM25 score of each document at the slots ``at`` (:meth:`positions`) for the query,
        as a float64 numpy array aligned with ``at``; a query term occurring twice counts
        twice."""
        n = len(self._slots)
        by_slot = np.zeros(len(self._lengths), dtype=np.float64)
        if n:
            avg = self._total_length / n
            for term, times in Counter(query_tokens).items():
                arrays = self._postings_array(term)
                if arrays is None:
                    continue
                slots, tf = arrays
                df = len(slots)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                norm = self.k1 * ((1 - self.b) + self.b * self._lengths[slots] / avg)
                by_slot[slots] += times * idf * (tf / (norm + tf))
        return by_slot[at]

    def mentions(self, terms: Sequence[str], at: Any) -> Any:
        """For each document at the slots ``at`` (:meth:`positions`), the fraction of the
        distinct ``terms`` it contains (0 for none, 1 for all; 0 everywhere when ``terms``
        is empty), as a float64 numpy array aligned with ``at``."""
        distinct = set(terms)
        found = np.zeros(len(self._lengths), dtype=np.float64)
        for term in distinct:
            arrays = self._postings_array(term)
            if arrays is not None:
                found[arrays[0]] += 1.0
        return found[at] / len(distinct) if distinct else found[at]

    def _postings_array(self, term: str) -> tuple[Any, Any] | None:
        held = self._arrays.get(term)
        if held is None:
            posting = self._postings.get(term)
            if posting is None:
                return None
            held = self._arrays[term] = _Posting(
                np.fromiter(posting.keys(), dtype=np.intp, count=len(posting)),
                np.fromiter(posting.values(), dtype=np.float64, count=len(posting)))
        return held.arrays()


class _Posting:
    """A term's posting in numpy: the slots holding it and its frequency in each, in
    buffers with room to grow, so that a document added extends them in place (amortised
    O(1)) instead of copying a posting that holds a large share of the documents."""

    __slots__ = ("_n", "_slots", "_tfs")

    def __init__(self, slots: Any, tfs: Any) -> None:
        self._slots, self._tfs, self._n = slots, tfs, len(slots)

    def arrays(self) -> tuple[Any, Any]:
        """(slots, frequencies) as views of the held entries: read them before the next
        change (a later :meth:`append` never writes inside them; :meth:`drop` makes new
        buffers)."""
        return self._slots[:self._n], self._tfs[:self._n]

    def append(self, slot: int, tf: int) -> None:
        """Hold ``slot`` (not held yet) with frequency ``tf``."""
        n = self._n
        if n == len(self._slots):
            room = max(8, 2 * n)
            slots = np.empty(room, dtype=np.intp)
            tfs = np.empty(room, dtype=np.float64)
            slots[:n] = self._slots[:n]
            tfs[:n] = self._tfs[:n]
            self._slots, self._tfs = slots, tfs
        self._slots[n] = slot
        self._tfs[n] = tf
        self._n = n + 1

    def drop(self, slot: int) -> None:
        """Stop holding ``slot``: new buffers of the other entries."""
        slots, tfs = self.arrays()
        other = slots != slot
        self._slots, self._tfs = slots[other], tfs[other]
        self._n = len(self._slots)
