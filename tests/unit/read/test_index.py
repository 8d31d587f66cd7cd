"""The incremental BM25 index: exactly the scores of a fresh bm25s build over the
current documents, whatever the history of additions and removals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import bm25s
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.eligibility import CandidateList
from graphmem.models import Authority, MemoryKind, MemoryRecord
from graphmem.read import index
from graphmem.read.dates import date_terms
from graphmem.read.index import IncrementalBM25, thread_neighbours, tie_order
from graphmem.read.rankers import BM25_DEFAULTS, BM25Ranker, order_by_score
from graphmem.read.steps import Ranking, RetrievalTrace
from graphmem.read.threads import neighbours
from graphmem.read.tokens import entity_terms, tokenize, tokenize_many
from tests.support.sizes import size

T0 = datetime(2026, 1, 1, tzinfo=UTC)
VOCAB = [f"w{i}" for i in range(12)]
docs = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=9)


def fresh_bm25s(corpus: list[list[str]], query: list[str], k1: float = 1.5,
                b: float = 0.75) -> Any:
    """What a fresh bm25s (float64) build over ``corpus`` scores for ``query``."""
    retriever = bm25s.BM25(k1=k1, b=b, dtype="float64")
    retriever.index(corpus, show_progress=False)
    known = [t for t in query if t in retriever.vocab_dict]
    if not known:
        return np.zeros(len(corpus))
    return np.asarray(retriever.get_scores(known), dtype=float)


@settings(max_examples=size(60, 150), deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 14), docs), min_size=1, max_size=40),
       st.lists(st.sampled_from([*VOCAB, "unknown"]), min_size=1, max_size=6),
       st.floats(0.5, 2.0), st.floats(0.0, 1.0))
def test_incremental_scores_equal_a_fresh_bm25s_build(
        ops: list[tuple[bool, int, list[str]]], query: list[str], k1: float,
        b: float) -> None:
    index = IncrementalBM25(k1=k1, b=b)
    held: dict[str, list[str]] = {}
    for add, n, tokens in ops:  # documents come and go; a key's tokens never change
        key = f"d{n}-{' '.join(tokens)}"
        if add:
            index.add(key, tokens)
            held.setdefault(key, tokens)
        else:
            victim = sorted(held)[n % len(held)] if held else key
            index.remove(victim)
            held.pop(victim, None)
    keys = sorted(held)
    if not keys or not any(held.values()):
        return  # bm25s cannot index a corpus without a single token
    got = index.scores(query, index.positions(keys))
    want = fresh_bm25s([held[k] for k in keys], query, k1, b)
    assert np.allclose(got, want, rtol=0, atol=1e-9)
    again = IncrementalBM25(k1=k1, b=b)
    again.sync(keys, lambda i: (held[keys[i]], None))
    assert again.scores(query, again.positions(keys)).tolist() == got.tolist()  # no history


@settings(max_examples=size(60, 150), deadline=None)
@given(st.lists(st.lists(st.integers(0, 20), unique=True, max_size=15), min_size=1,
                max_size=6),
       st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4))
def test_sync_holds_exactly_the_documents_asked_for(
        sets: list[list[int]], query: list[str]) -> None:
    """Sets that grow (the agent loop's fast path), shrink or both, in any key order: the
    index holds exactly the last set, scoring as an index built from it alone."""
    words = {i: [VOCAB[(i * 7 + j) % len(VOCAB)] for j in range(1 + i % 4)] for i in range(21)}
    index = IncrementalBM25(k1=1.5, b=0.75)
    held: set[int] = set()
    for keys in sets:
        documents = [(words[k], None) for k in keys]
        changed = index.sync(keys, documents.__getitem__)
        assert changed == len(held.symmetric_difference(keys))
        held = set(keys)
        assert set(index.keys()) == held
        fresh = IncrementalBM25(k1=1.5, b=0.75)
        for k in keys:
            fresh.add(k, words[k])
        assert np.allclose(index.scores(query, index.positions(keys)),
                           fresh.scores(query, fresh.positions(keys)), rtol=0, atol=1e-12)


SPEAKERS = ("Ada", "Refund bot", "Grace")


def record(i: int, words: list[str], thread: int | None) -> MemoryRecord:
    return MemoryRecord(id=f"r{i:03d}", kind=MemoryKind.EPISODIC, content=" ".join(words) or "x",
                        created_at=T0 + timedelta(minutes=i), scope={"tenant": "t"},
                        provenance={"source": "test", "speaker": SPEAKERS[i % 3]},
                        thread=None if thread is None else f"th{thread}",
                        position=None if thread is None else i)


words = st.lists(st.sampled_from(["refund", "deploy", "token", "queue", "build", "cache"]),
                 min_size=1, max_size=6)
pool = st.lists(st.tuples(words, st.one_of(st.none(), st.integers(0, 2))), min_size=2,
                max_size=30)


@settings(max_examples=size(30, 60), deadline=None)
@given(pool, st.lists(st.sets(st.integers(0, 29), min_size=1), min_size=1, max_size=6),
       st.sampled_from(["refund deploy", "token", "cache cache build", "queue refund token",
                        "What did Ada deploy?", "Refund token Cache", "Grace queue"]))
def test_a_warm_ranker_ranks_as_a_fresh_one(
        items: list[tuple[list[str], int | None]], subsets: list[set[int]],
        query: str) -> None:
    """Candidate sets that grow, shrink and change under one ranker; each answer equals a
    fresh ranker's (scores and ranking), and a fresh ranker equals bm25s over the set."""
    records = [record(i, w, th) for i, (w, th) in enumerate(items)]
    edited = [record(i, [*w[1:], "token"], th) for i, (w, th) in enumerate(items)]
    warm = BM25Ranker(**BM25_DEFAULTS)
    for n, subset in enumerate(subsets):  # an odd round sees some records edited
        chosen = [(edited if n % 2 and i % 3 == 0 else records)[i] for i in sorted(subset)
                  if i < len(records)]
        if not chosen:
            continue
        got = warm.score(query, chosen)
        fresh = BM25Ranker(**BM25_DEFAULTS).score(query, chosen)
        assert got == fresh
        assert ([r.id for r, _ in order_by_score(chosen, got)]
                == [r.id for r, _ in order_by_score(chosen, fresh)])
        assert np.allclose(got, reference(query, chosen), rtol=0, atol=1e-9)


def reference(query: str, records: list[MemoryRecord]) -> Any:
    """The shipped ranker as it was, on bm25s alone (float64): own terms (and date terms),
    neighbours' terms weighted, part of the best neighbour's score passed on, then records
    mentioning the query's entities, or produced by them, ranked up."""
    own = tokenize_many([r.content for r in records])
    if BM25_DEFAULTS.get("dates"):  # the record's date as people say it, beside its terms
        own = [terms + date_terms(r.created_at) for terms, r in zip(own, records, strict=True)]
    q = tokenize_many([query])[0]
    near = neighbours(records, BM25_DEFAULTS["window"])
    scores = fresh_bm25s(own, q)
    if any(near):
        wide = [own[i] + [t for j in near[i] for t in own[j]] for i in range(len(own))]
        scores = scores + BM25_DEFAULTS["context_weight"] * fresh_bm25s(wide, q)
        scores = scores + BM25_DEFAULTS["propagate"] * np.asarray(
            [max((scores[j] for j in n), default=0.0) for n in near])
    entities = set(entity_terms(query))
    if entities:
        sources = [set(tokenize(" ".join(r.provenance.values()))) for r in records]
        scores = scores * np.asarray([
            1 + BM25_DEFAULTS.get("entity_boost", 0.0) * len(entities & set(terms)) / len(entities)
            + BM25_DEFAULTS.get("source_boost", 0.0) * len(entities & by) / len(entities)
            for terms, by in zip(own, sources, strict=True)])
    return scores


@settings(max_examples=size(50, 100), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4),
                          st.sampled_from([Authority.MODEL_INFERRED, Authority.VERIFIED_OUTCOME])),
                min_size=1, max_size=40),
       st.lists(st.sets(st.integers(0, 39)), min_size=1, max_size=5))
def test_tie_order_updated_by_a_change_equals_a_full_sort(
        items: list[tuple[int, int, Authority]], subsets: list[set[int]]) -> None:
    records = [MemoryRecord(id=f"r{(i * 7) % 41:02d}", kind=MemoryKind.EPISODIC,
                            content="x", created_at=T0 + timedelta(hours=h),
                            scope={"tenant": "t"}, provenance={"source": "test"},
                            authority=a) for i, (_, h, a) in enumerate(items)]
    for subset in subsets:
        chosen = [records[i] for i in sorted(subset) if i < len(records)]
        want = sorted(range(len(chosen)), key=lambda i: chosen[i].id)
        want.sort(key=lambda i: (chosen[i].authority.rank, chosen[i].created_at.timestamp()),
                  reverse=True)
        assert tie_order(chosen).tolist() == want


def test_tie_order_of_a_set_one_write_apart_is_bisected_exactly() -> None:
    records = [MemoryRecord(id=f"r{i:02d}", kind=MemoryKind.EPISODIC, content="x",
                            created_at=T0 + timedelta(hours=i % 3), scope={"tenant": "t"},
                            provenance={"source": "test"},
                            authority=(Authority.MODEL_INFERRED, Authority.VERIFIED_OUTCOME)[i % 2])
               for i in range(30)]
    tie_order(records[:20])
    changed = [*records[:5], *records[6:20], records[25]]  # one left, one came
    want = sorted(range(len(changed)), key=lambda i: (-changed[i].authority.rank,
                                                      -changed[i].created_at.timestamp(),
                                                      changed[i].id))
    assert tie_order(changed).tolist() == want
    assert tie_order(changed).tolist() == want  # reused


@settings(max_examples=size(50, 100), deadline=None)
@given(pool, st.integers(0, 3))
def test_thread_neighbours_are_those_of_threads_module(
        items: list[tuple[list[str], int | None]], window: int) -> None:
    records = [record(i, w, th) for i, (w, th) in enumerate(items)]
    want = {i: sorted(n) for i, n in enumerate(neighbours(records, window)) if n}
    assert {i: sorted(n) for i, n in thread_neighbours(records, window).items()} == want


@settings(max_examples=size(50, 100), deadline=None)
@given(st.lists(st.floats(0, 10, allow_nan=False), max_size=30), st.randoms(),
       st.integers(-35, 35), st.integers(-35, 35))
def test_a_ranking_is_the_tuple_of_its_pairs(scores: list[float], rnd: Any, a: int,
                                             b: int) -> None:
    """A trace's ranking (pairs made when asked for) reads, slices, compares and
    hashes as the tuple of (id, score) pairs it stands for."""
    ids = [f"r{i:02d}" for i in range(len(scores))]
    order = list(range(len(scores)))
    rnd.shuffle(order)
    want = tuple((ids[i], s) for i, s in zip(order, scores, strict=True))
    got = Ranking(ids, order, scores)
    assert len(got) == len(want) and tuple(got) == want and list(got) == list(want)
    assert got == want and want == got and got == Ranking(list(ids), list(order), scores)
    arrays = Ranking(ids, np.asarray(order, dtype=np.intp), np.asarray(scores))  # as read
    assert arrays == want and arrays[a:b] == want[a:b] and hash(arrays) == hash(want)
    assert all(type(i) is str and type(s) is float for i, s in arrays)
    assert got[a:b] == want[a:b] and got[::2] == want[::2]
    if want:
        assert got[a % len(want)] == want[a % len(want)] and got[-1] == want[-1]
    assert hash(got) == hash(want)
    trace = RetrievalTrace("q", T0, True, (), "", "bm25", ranked=got)
    assert trace == RetrievalTrace("q", T0, True, (), "", "bm25", ranked=want)
    if want:
        assert got != want[:-1] and got != (*want[:-1], (want[-1][0], want[-1][1] + 1))


@settings(max_examples=60, deadline=None)
@given(pool, st.lists(st.dictionaries(st.integers(0, 29), st.booleans(), min_size=1,
                                      max_size=4), min_size=1, max_size=6),
       st.sampled_from(["refund deploy", "token", "What did Ada deploy?", "Grace queue"]))
def test_a_ranker_follows_answers_changed_by_deltas_as_a_fresh_one(
        items: list[tuple[list[str], int | None]], changes: list[dict[int, bool]],
        query: str) -> None:
    """Candidate answers each made from the last by a delta (records leaving, joining, or
    changed): the warm ranker, which brings its indexes and tie order to each by the change
    the answer carries, scores and orders as a fresh ranker does, and passes over every
    record again (thread neighbours) only when threaded records are involved."""
    records = {i: record(i, w, th) for i, (w, th) in enumerate(items)}
    current = dict(list(records.items())[::2])
    answer = CandidateList.of(list(current.values()))
    warm = BM25Ranker(**BM25_DEFAULTS)
    warm.score(query, answer.records)
    scored = answer.records.token  # the last answer the warm ranker saw
    threaded = any(r.thread is not None for r in answer.records)
    passes = []
    original = index.thread_neighbours
    index.thread_neighbours = lambda rs, w: passes.append(1) or original(rs, w)  # type: ignore
    try:
        for n, change in enumerate(changes):
            for i, joins in change.items():
                if i not in records:
                    continue
                if joins:  # joins, or changes (a new version) when it is there
                    w, th = items[i]
                    current[i] = record(i, [*w, "token"] if n % 2 else w, th)
                else:
                    current.pop(i, None)
            answer = answer.changed({f"r{i:03d}" for i in change},
                                    [current[i] for i in change if i in current])
            if not answer.records:
                continue
            before = len(passes)
            got = warm.score(query, answer.records)
            warm_passes = len(passes) - before
            assert got == BM25Ranker(**BM25_DEFAULTS).score(query, list(answer.records))
            want = sorted(range(len(answer.records)), key=lambda i: (
                -answer.records[i].authority.rank,
                -answer.records[i].created_at.timestamp(), answer.records[i].id))
            assert tie_order(answer.records).tolist() == want
            edit = answer.records.edit
            if edit is not None and edit[0] == scored and not threaded and all(
                    r.thread is None for r in answer.records):
                assert warm_passes == 0  # prepared by the change alone
            scored = answer.records.token
            threaded = any(r.thread is not None for r in answer.records)
    finally:
        index.thread_neighbours = original
