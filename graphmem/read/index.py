"""An exact BM25 index that follows a changing candidate set (issue 15: the read right after
a write).

BM25 scores depend on the whole corpus (the number of documents, each term's document
frequency, the mean document length), so a ranker that may only use the eligible records
must score over exactly the current candidate set. bm25s (the library the ranker used
alone before) computes every (document, term) score when it builds an index, with the
corpus statistics baked in: one new record changes those statistics, so every stored
score is stale and the whole index must be built again. Feeding bm25s pre-built token ids
with a persistent vocabulary does not help, because the score matrix, not the vocabulary,
is what costs (about 80% of a build; profiled on a 7,000-record scope, issue 15). Hence
:class:`IncrementalBM25`: postings (term -> document -> term frequency) and document
lengths, kept up to date by adding and removing documents, with scores computed at query
time for the query's terms only. The scores are those of a fresh bm25s build over the
current documents (its default ``lucene`` method: Lucene idf, Robertson term-frequency
component; query terms counted as often as they occur), in float64;
``tests/test_read_index.py`` checks them against bm25s on random corpora.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
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
        self._free: list[int] = []
        self._lengths = np.zeros(0, dtype=np.float64)
        self._total_length = 0
        self._postings: dict[str, dict[int, int]] = {}  # term -> slot -> frequency
        self._arrays: dict[str, tuple[Any, Any]] = {}  # term -> (slots, frequencies)

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, key: object) -> bool:
        return key in self._slots

    def keys(self) -> Iterable[Hashable]:
        """The keys of the documents held."""
        return self._slots.keys()

    def add(self, key: Hashable, tokens: Sequence[str]) -> None:
        """Hold the document ``key`` with these tokens (a key already held is ignored)."""
        if key in self._slots:
            return
        slot = self._free.pop() if self._free else len(self._counts)
        counts = Counter(tokens)
        if slot == len(self._counts):
            self._counts.append(counts)
            if slot >= len(self._lengths):
                grown = np.zeros(max(16, 2 * len(self._lengths)), dtype=np.float64)
                grown[:len(self._lengths)] = self._lengths
                self._lengths = grown
        else:
            self._counts[slot] = counts
        self._slots[key] = slot
        self._lengths[slot] = len(tokens)
        self._total_length += len(tokens)
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[slot] = tf
            self._arrays.pop(term, None)

    def remove(self, key: Hashable) -> None:
        """Stop holding the document ``key`` (a key not held is ignored)."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return
        counts = self._counts[slot]
        assert counts is not None
        for term in counts:
            posting = self._postings[term]
            del posting[slot]
            if not posting:
                del self._postings[term]
            self._arrays.pop(term, None)
        self._total_length -= int(self._lengths[slot])
        self._lengths[slot] = 0.0
        self._counts[slot] = None
        self._free.append(slot)

    def sync(self, keys: Sequence[Hashable], tokens: Any) -> int:
        """Hold exactly the documents ``keys``; ``tokens(key)`` gives a new one's tokens.

        Returns:
            How many documents were added or removed.
        """
        wanted = set(keys)
        gone = [k for k in self._slots if k not in wanted]
        for key in gone:
            self.remove(key)
        new = [k for k in keys if k not in self._slots]
        for key in new:
            self.add(key, tokens(key))
        return len(gone) + len(new)

    def scores(self, query_tokens: Sequence[str], keys: Sequence[Hashable]) -> Any:
        """BM25 score of each document in ``keys`` (all held) for the query, as a float64
        numpy array aligned with ``keys``; a query term occurring twice counts twice.

        Raises:
            KeyError: a key that is not held.
        """
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
        slots = self._slots
        return by_slot[np.fromiter((slots[k] for k in keys), dtype=np.intp, count=len(keys))]

    def _postings_array(self, term: str) -> tuple[Any, Any] | None:
        arrays = self._arrays.get(term)
        if arrays is None:
            posting = self._postings.get(term)
            if posting is None:
                return None
            arrays = (np.fromiter(posting.keys(), dtype=np.intp, count=len(posting)),
                      np.fromiter(posting.values(), dtype=np.float64, count=len(posting)))
            self._arrays[term] = arrays
        return arrays


class CandidateIndexes:
    """The BM25 indexes of one ranker, brought to each candidate set it is asked about.

    Args:
        k1, b: BM25 parameters. capacity: how many indexes to keep (one per candidate set
            seen lately, e.g. per scope; the one sharing most documents with a new set is
            brought up to date, so a write to a scope costs its change, not a rebuild).

    A document is a record's tokens keyed by ``(id, content)``; with ``window`` > 0 a second
    index holds each record's tokens together with its thread neighbours' (issue 16), keyed
    by the record's key and its neighbours' keys.
    """

    SAMPLE = 32

    def __init__(self, *, k1: float, b: float, capacity: int) -> None:
        self.k1 = k1
        self.b = b
        self.capacity = max(1, capacity)
        self._pairs: list[tuple[IncrementalBM25, IncrementalBM25]] = []  # most recent last

    def view(self, keys: Sequence[tuple[str, str]], near: Sequence[Sequence[int]],
             tokens: Any, expand: bool) -> tuple[Any, Any]:
        """Indexes held exactly at the candidate set ``keys`` (``(id, content)`` per record,
        in order; ``near``: each record's neighbour indices; ``tokens(key)``: a record's
        tokens). Returns ``(own, expanded)`` as score functions of the query tokens, each
        giving an array aligned with ``keys``; ``expanded`` is None unless ``expand``."""
        pair = self._closest(keys)
        own, wide = pair
        own.sync(keys, tokens)
        wide_keys: list[Hashable] = []
        if expand:
            wide_keys = [(key, tuple(keys[j] for j in near[i])) for i, key in enumerate(keys)]
            wide.sync(wide_keys, lambda wk: [t for k in (wk[0], *wk[1]) for t in tokens(k)])

        def own_scores(query: Sequence[str]) -> Any:
            return own.scores(query, keys)

        def wide_scores(query: Sequence[str]) -> Any:
            return wide.scores(query, wide_keys)

        return own_scores, (wide_scores if expand else None)

    def _closest(self, keys: Sequence[Hashable]) -> tuple[IncrementalBM25, IncrementalBM25]:
        """The kept pair that shares most of a sample of ``keys`` (a new one if none shares
        any and there is room), moved to most recent."""
        step = max(1, len(keys) // self.SAMPLE)
        sample = keys[::step]
        best, best_hits = -1, 0
        for i, (own, _) in enumerate(self._pairs):
            hits = sum(1 for k in sample if k in own)
            if hits > best_hits or (hits == best_hits and best >= 0 and hits
                                    and abs(len(own) - len(keys))
                                    < abs(len(self._pairs[best][0]) - len(keys))):
                best, best_hits = i, hits
        if best < 0:
            if len(self._pairs) >= self.capacity:
                self._pairs.pop(0)
            pair = (IncrementalBM25(k1=self.k1, b=self.b), IncrementalBM25(k1=self.k1, b=self.b))
        else:
            pair = self._pairs.pop(best)
        self._pairs.append(pair)
        return pair
