"""An exact BM25 index that follows a changing candidate set (the read right after a write).

BM25 scores depend on the whole corpus (the number of documents, each term's document
frequency, the mean document length), so a ranker that may only use the eligible records
must score over exactly the current candidate set. bm25s (the library the ranker used alone
before) computes every (document, term) score when it builds an index, with the corpus
statistics baked in: one new record changes those statistics, so every stored score is stale
and the whole index must be built again. Feeding bm25s pre-built token ids with a persistent
vocabulary does not help, because the score matrix, not the vocabulary, is what costs (about
80% of a build; profiled on a 7,000-record scope). Hence
:class:`~graphmem.read.bm25.IncrementalBM25`: postings (term -> document -> term frequency)
and document lengths, kept up to date by adding and removing documents, with scores computed
at query time for the query's terms only. The scores are those of a fresh bm25s build over
the current documents (its default ``lucene`` method: Lucene idf, Robertson term-frequency
component; query terms counted as often as they occur), in float64;
``tests/unit/read/test_index.py`` checks them against bm25s on random corpora.

:class:`CandidateIndexes` brings a ranker's indexes to each candidate set it is asked
about (an unchanged set reuses everything); :func:`tie_order` and
:func:`thread_neighbours` are the other per-candidate-set work of a read, updated or made
cheap the same way. Rankings depend only on the current candidate set, never on what was
cached before (a warm ranker ranks as a fresh one: ``tests/unit/read/test_index.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from itertools import chain, compress, count, repeat
from operator import attrgetter, is_, is_not
from typing import Any

import numpy as np

from graphmem.db.chunked import held
from graphmem.models import MemoryRecord
from graphmem.read.bm25 import IncrementalBM25
from graphmem.read.ties import tie_order  # kept here too, where the rankers find it

__all__ = ["CandidateIndexes", "IncrementalBM25", "Prepared", "thread_neighbours", "tie_order"]


def thread_neighbours(records: Sequence[MemoryRecord], window: int) -> dict[int, list[int]]:
    """The neighbours :func:`graphmem.read.threads.neighbours` gives, for the records that
    have any (index -> neighbour indices, earlier ones first: BM25 and the best-neighbour
    score do not depend on the order), from one sort of tuples instead of a keyed sort per
    thread (computed again after every write)."""
    threads = list(map(attrgetter("thread"), records))  # most records have none: skip them
    threaded = sorted((records[i].tenant, threads[i], records[i].position or 0, records[i].id,
                       i) for i in compress(count(), map(is_not, threads, repeat(None))))
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
    each record's tokens together with its thread neighbours', keyed by the
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
                and last.sourced == (sources is not None) and last.versions == last.current()):
            token = getattr(records, "token", None)
            if len(last.records) == len(records) and (
                    (last.token is not None and last.token == token)
                    or all(map(is_, last.records, records))):
                if last.token != token:  # the same records under another name
                    self._last = last = replace(last, token=token)
                return last  # the same candidate set as the last call, indexes untouched since
            edited = self._edited(last, records, tokens, window, sources)
            if edited is not None:
                return edited
        near = thread_neighbours(records, window)
        wanted = expand and bool(near)
        keys: list[Hashable] = list(map(id, records))
        own, wide, about = self._closest(keys)
        own.sync(keys, lambda i: (tokens(records[i]), records[i]))
        about_at = None
        if sources is not None:
            about.sync(keys, lambda i: (sources(records[i]), records[i]))
            about_at = about.positions(keys)

        def wide_document(i: int) -> tuple[list[str], object]:
            if i not in near:
                return tokens(records[i]), records[i]
            members = [records[i], *map(records.__getitem__, near[i])]
            return [t for r in members for t in tokens(r)], members

        wide_at = None
        if wanted:  # a record without neighbours is its own document, keyed as alone
            wide_keys: list[Hashable] = list(keys)
            for i, n in near.items():
                wide_keys[i] = (keys[i], tuple(map(keys.__getitem__, n)))
            wide.sync(wide_keys, wide_document)
            wide_at = wide.positions(wide_keys)
        owners = np.fromiter(chain.from_iterable(repeat(i, len(n)) for i, n in near.items()),
                             dtype=np.intp)
        members = np.fromiter(chain.from_iterable(near.values()), dtype=np.intp)
        self._last = Prepared(held(records), window, expand, sources is not None,
                              own.positions(keys), wide_at, about_at, (owners, members), own,
                              wide, about, (own.version, wide.version, about.version),
                              getattr(records, "token", None))
        return self._last

    def _edited(self, last: Prepared, records: Sequence[MemoryRecord],
                tokens: Callable[[MemoryRecord], Any], window: int,
                sources: Callable[[MemoryRecord], Any] | None) -> Prepared | None:
        """``last`` brought to ``records`` by the edit they carry (``records.edit``: the token
        of the records ``last`` was prepared for, the positions removed from those, the
        positions of the records inserted: :class:`graphmem.db.eligibility.CandidateRecords`),
        at a cost proportional to the change: the removed records leave the indexes, the
        inserted ones join them, and the slot arrays are edited in numpy. None (prepare in
        full) when ``records`` were not made from ``last``'s, or when thread neighbours are
        involved (a set with neighbours, or an inserted threaded record)."""
        edit = getattr(records, "edit", None)
        if edit is None or last.token is None or edit[0] != last.token or len(last.pairs[0]):
            return None
        base, (_, removed, inserted) = last.records, edit
        if len(base) - len(removed) + len(inserted) != len(records) or (
                window > 0 and any(records[i].thread is not None for i in inserted)):
            return None
        own, about = last.own, last.about
        for at in removed:
            own.remove(id(base[at]))
            if sources is not None:
                about.remove(id(base[at]))
        for i in inserted:
            own.add(id(records[i]), tokens(records[i]), records[i])
            if sources is not None:
                about.add(id(records[i]), sources(records[i]), records[i])
        gone = np.asarray(removed, dtype=np.intp)
        # np.insert places each value before an index of the array it is given (the kept
        # slots): the j-th inserted record, at position p of the new set, goes before p - j
        before = np.asarray(inserted, dtype=np.intp) - np.arange(len(inserted), dtype=np.intp)
        added = [id(records[i]) for i in inserted]
        own_at = np.insert(np.delete(last.own_at, gone), before, own.positions(added))
        about_at = (None if sources is None else
                    np.insert(np.delete(last.about_at, gone), before, about.positions(added)))
        self._last = Prepared(
            held(records), window, last.asked, last.sourced, own_at, None, about_at,
            last.pairs, own, last.wide, about,
            (own.version, last.wide.version, about.version), getattr(records, "token", None))
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
    """A candidate set made ready for scoring: its records, the slots of each record in
    the indexes (alone; with its neighbours, None when that index is not held; its
    provenance, None when not held), each record's neighbours (as index pairs), and the
    indexes with the versions they had (the slots hold while the versions do)."""

    records: Sequence[MemoryRecord]  # a tuple, or a list of its own
    window: int
    asked: bool  # whether the expanded index was asked for
    sourced: bool  # whether the provenance index is held
    own_at: Any
    wide_at: Any
    about_at: Any
    pairs: tuple[Any, Any]  # (record, neighbour) index pairs, as two arrays
    own: IncrementalBM25
    wide: IncrementalBM25
    about: IncrementalBM25
    versions: tuple[int, int, int]
    token: int | None = None  # the records' token, when they have one (CandidateRecords)

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
        scores = self.own.scores(query, self.own_at)
        if self.wide_at is not None:
            scores = scores + context_weight * self.wide.scores(query, self.wide_at)
        owners, members = self.pairs
        if propagate > 0 and len(owners):
            best = np.zeros(len(scores))
            np.maximum.at(best, owners, scores[members])
            scores = scores + propagate * best
        mention, source = boosts
        if entities and (mention > 0 or (source > 0 and self.sourced)):
            factor = 1.0 + mention * self.own.mentions(entities, self.own_at)
            if source > 0 and self.sourced:
                factor = factor + source * self.about.mentions(entities, self.about_at)
            scores = scores * factor
        return scores
