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

:class:`CandidateIndexes` brings a ranker's indexes to each candidate set it is asked
about (an unchanged set reuses everything); :func:`tie_order` and
:func:`thread_neighbours` are the other per-candidate-set work of a read, updated or made
cheap the same way. Rankings depend only on the current candidate set, never on what was
cached before (a warm ranker ranks as a fresh one: ``tests/test_read_index.py``).
"""

from __future__ import annotations

import math
import threading
from bisect import insort
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat
from operator import is_, is_not
from typing import Any

import numpy as np

from graphmem.models import MemoryRecord

__all__ = ["CandidateIndexes", "IncrementalBM25", "Prepared", "thread_neighbours", "tie_order"]


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
        self._arrays: dict[str, tuple[Any, Any]] = {}  # term -> (slots, frequencies)
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
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[slot] = tf
            self._arrays.pop(term, None)

    def remove(self, key: Hashable) -> None:
        """Stop holding the document ``key`` (a key not held is ignored)."""
        slot = self._slots.pop(key, None)
        if slot is None:
            return
        self.version += 1
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
        self._owners[slot] = None
        self._free.append(slot)

    def sync(self, keys: Sequence[Hashable],
             document: Callable[[Hashable], tuple[Sequence[str], object]]) -> int:
        """Hold exactly the documents ``keys``; ``document(key)`` gives a new one's tokens
        and owner (see :meth:`add`).

        Returns:
            How many documents were added or removed.
        """
        wanted = set(keys)
        gone = self._slots.keys() - wanted
        for key in gone:
            self.remove(key)
        new = wanted - self._slots.keys()
        for key in new:
            self.add(key, *document(key))
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
        return by_slot[np.fromiter(map(slots.__getitem__, keys), dtype=np.intp, count=len(keys))]

    def mentions(self, terms: Sequence[str], keys: Sequence[Hashable]) -> Any:
        """For each document in ``keys`` (all held), the fraction of the distinct ``terms``
        it contains (0 for none, 1 for all; 0 everywhere when ``terms`` is empty), as a
        float64 numpy array aligned with ``keys``.

        Raises:
            KeyError: a key that is not held.
        """
        distinct = set(terms)
        found = np.zeros(len(self._lengths), dtype=np.float64)
        for term in distinct:
            arrays = self._postings_array(term)
            if arrays is not None:
                found[arrays[0]] += 1.0
        slots = self._slots
        at = np.fromiter(map(slots.__getitem__, keys), dtype=np.intp, count=len(keys))
        return found[at] / len(distinct) if distinct else found[at]

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


def thread_neighbours(records: Sequence[MemoryRecord], window: int) -> dict[int, list[int]]:
    """The neighbours :func:`graphmem.read.threads.neighbours` gives, for the records that
    have any (index -> neighbour indices, earlier ones first: BM25 and the best-neighbour
    score do not depend on the order), from one sort of tuples instead of a keyed sort per
    thread (issue 15: computed again after every write)."""
    threaded = sorted((r.tenant, r.thread, r.position or 0, r.id, i)
                      for i, r in enumerate(records) if r.thread is not None)
    found: dict[int, list[int]] = {}
    start = 0
    while start < len(threaded):
        end = start + 1
        while end < len(threaded) and threaded[end][:2] == threaded[start][:2]:
            end += 1
        members = [t[4] for t in threaded[start:end]]
        if len(members) > 1 and window > 0:
            for at, i in enumerate(members):
                found[i] = members[max(0, at - window):at] + members[at + 1:at + 1 + window]
        start = end
    return found


#: the indexes kept for one candidate set: own terms, with neighbours', provenance terms
Indexes = tuple[IncrementalBM25, IncrementalBM25, IncrementalBM25]


class CandidateIndexes:
    """The BM25 indexes of one ranker, brought to each candidate set it is asked about.

    Args:
        k1, b: BM25 parameters. capacity: how many indexes to keep (one per candidate set
            seen lately, e.g. per scope; the one sharing most documents with a new set is
            brought up to date, so a write to a scope costs its change, not a rebuild).

    A document is a record's tokens, keyed by the record object (records are immutable; a
    held key keeps its record alive, so identities are never reused); a second index holds
    each record's tokens together with its thread neighbours' (issue 16), keyed by the
    record and its neighbours; a third, when asked, the terms of each record's provenance
    (who or what produced it), keyed like the first, for :meth:`Prepared.scores` to see
    which records a query's entities produced. Not thread-safe: the ranker holds a lock.
    """

    SAMPLE = 32

    def __init__(self, *, k1: float, b: float, capacity: int) -> None:
        self.k1 = k1
        self.b = b
        self.capacity = max(1, capacity)
        self._sets: list[Indexes] = []  # most recent last
        self._last: Prepared | None = None

    def prepare(self, records: Sequence[MemoryRecord], tokens: Callable[[MemoryRecord], Any],
                window: int, expand: bool,
                sources: Callable[[MemoryRecord], Any] | None = None) -> Prepared:
        """Indexes held exactly at the candidate set ``records`` (``tokens(record)``: its
        tokens; ``window``: thread neighbours on each side; ``expand``: whether to hold the
        neighbour-expanded index too, when any record has neighbours; ``sources(record)``:
        the terms of its provenance, held when given)."""
        last = self._last
        if (last is not None and last.asked == expand and last.window == window
                and last.sourced == (sources is not None)
                and len(last.records) == len(records) and all(map(is_, last.records, records))
                and last.versions == last.current()):
            return last  # the same candidate set as the last call, indexes untouched since
        near = thread_neighbours(records, window)
        wanted = expand and bool(near)
        keys: list[Hashable] = list(map(id, records))
        by_key = dict(zip(keys, records, strict=True))
        own, wide, about = self._closest(keys)
        own.sync(keys, lambda k: (tokens(by_key[k]), by_key[k]))
        if sources is not None:
            about.sync(keys, lambda k: (sources(by_key[k]), by_key[k]))

        def wide_document(key: Hashable) -> tuple[list[str], object]:
            if not isinstance(key, tuple):
                return tokens(by_key[key]), by_key[key]
            members = [by_key[key[0]], *(by_key[k] for k in key[1])]
            return [t for r in members for t in tokens(r)], members

        wide_keys: list[Hashable] = []
        if wanted:  # a record without neighbours is its own document, keyed as alone
            wide_keys = list(keys)
            for i, n in near.items():
                wide_keys[i] = (keys[i], tuple(map(keys.__getitem__, n)))
            wide.sync(wide_keys, wide_document)
        owners = np.fromiter(chain.from_iterable(repeat(i, len(n)) for i, n in near.items()),
                             dtype=np.intp)
        members = np.fromiter(chain.from_iterable(near.values()), dtype=np.intp)
        self._last = Prepared(list(records), window, expand, wanted, sources is not None, keys,
                              wide_keys, (owners, members), own, wide, about,
                              (own.version, wide.version, about.version))
        return self._last

    def _closest(self, keys: Sequence[Hashable]) -> Indexes:
        """The kept indexes that share most of a sample of ``keys`` (new ones if none share
        any), moved to most recent."""
        step = max(1, len(keys) // self.SAMPLE)
        sample = keys[::step]
        best, best_hits = -1, 0
        for i, (own, _, _) in enumerate(self._sets):
            hits = sum(1 for k in sample if k in own)
            if hits > best_hits:
                best, best_hits = i, hits
        if best < 0:
            if len(self._sets) >= self.capacity:
                self._sets.pop(0)
            new = (IncrementalBM25(k1=self.k1, b=self.b), IncrementalBM25(k1=self.k1, b=self.b),
                   IncrementalBM25(k1=self.k1, b=self.b))
        else:
            new = self._sets.pop(best)
        self._sets.append(new)
        return new


@dataclass(frozen=True)
class Prepared:
    """A candidate set made ready for scoring: its records, the index keys of each record
    (alone and with its neighbours), each record's neighbours (as index pairs), and the
    indexes with the versions they had."""

    records: list[MemoryRecord]
    window: int
    asked: bool  # whether the expanded index was asked for
    expand: bool  # whether it is held (asked, and some record has neighbours)
    sourced: bool  # whether the provenance index is held
    keys: list[Hashable]
    wide_keys: list[Hashable]
    pairs: tuple[Any, Any]  # (record, neighbour) index pairs, as two arrays
    own: IncrementalBM25
    wide: IncrementalBM25
    about: IncrementalBM25
    versions: tuple[int, int, int]

    def current(self) -> tuple[int, int, int]:
        """The versions the indexes have now (equal to ``versions`` while untouched)."""
        return (self.own.version, self.wide.version, self.about.version)

    def scores(self, query: Sequence[str], context_weight: float, propagate: float,
               entities: Sequence[str] = (), boosts: tuple[float, float] = (0.0, 0.0)) -> Any:
        """BM25 of each record for the query tokens, plus ``context_weight`` times the
        neighbour-expanded BM25 (when held), plus ``propagate`` times the best neighbour's
        score (scores are >= 0, so an absent neighbour counts as 0); then, for the query's
        ``entities`` (terms), multiplied by ``1 + boosts[0] * m + boosts[1] * p``, where
        ``m`` is the fraction of them the record's own terms mention and ``p`` the fraction
        its provenance names (when held); float64, aligned."""
        scores = self.own.scores(query, self.keys)
        if self.expand:
            scores = scores + context_weight * self.wide.scores(query, self.wide_keys)
        owners, members = self.pairs
        if propagate > 0 and len(owners):
            best = np.zeros(len(scores))
            np.maximum.at(best, owners, scores[members])
            scores = scores + propagate * best
        mention, source = boosts
        if entities and (mention > 0 or (source > 0 and self.sourced)):
            factor = 1.0 + mention * self.own.mentions(entities, self.keys)
            if source > 0 and self.sourced:
                factor = factor + source * self.about.mentions(entities, self.keys)
            scores = scores * factor
        return scores


_TIE_LOCK = threading.Lock()
# (records, their identities in tie order, the order as indices) for the last few sets
_TIE_ORDERS: list[tuple[list[MemoryRecord], list[int], Any]] = []  # most recent last


def _tie_key(r: MemoryRecord) -> tuple[int, float, str]:
    return (-r.authority.rank, -r.created_at.timestamp(), r.id)


def tie_order(records: Sequence[MemoryRecord]) -> Any:
    """Indices of ``records`` (distinct ids) by (authority desc, created_at desc, id asc),
    as a numpy array.

    The orders of the last few candidate sets are kept: an identical set (the same record
    objects) reuses its order; a set that differs from the last one by a few records is
    ordered from it, dropping the records that left and inserting the new ones by bisection
    (issue 15), which gives exactly the order a full sort gives.
    """
    with _TIE_LOCK:
        kept = list(_TIE_ORDERS)
    for prev, _, ties in reversed(kept):
        if len(prev) == len(records) and all(map(is_, prev, records)):
            return ties
    n = len(records)
    order: list[int] | None = None
    if kept:
        where = dict(zip(map(id, records), range(n), strict=True))  # all alive: ids unique
        found: Iterable[Any] = filter(partial(is_not, None), map(where.get, kept[-1][1]))
        order = list(found)
        if 4 * (n - len(order)) > n:
            order = None  # mostly new: a full sort is cheaper
        else:
            for j in sorted(set(range(n)).difference(order)):
                insort(order, j, key=lambda i: _tie_key(records[i]))
    if order is None:
        order = sorted(range(n), key=lambda i: _tie_key(records[i]))
    ties = np.asarray(order, dtype=np.intp)
    with _TIE_LOCK:
        _TIE_ORDERS.append((list(records), list(map(id, map(records.__getitem__, order))),
                            ties))
        if len(_TIE_ORDERS) > 8:
            _TIE_ORDERS.pop(0)
    return ties
