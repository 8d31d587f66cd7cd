"""The rankers and their tie-breaks (graphmem.read.rankers) as pure functions: the stated
sort, BM25 stemming and stop words, entity boosts, hybrid fusion, the BM25 cache."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.read.rankers import BM25_DEFAULTS, BM25Ranker, HybridRanker, order_by_score
from graphmem.read.tokens import entity_terms
from tests.support.ranking import T0, rec
from tests.support.sizes import size


def test_ties_break_by_authority_then_newer_then_id() -> None:
    records = [
        rec("b", authority="model_inferred"),
        rec("a", authority="model_inferred"),
        rec("c", authority="model_inferred", created_at=T0 + timedelta(days=1)),
        rec("d", authority="authoritative_source"),
        rec("e", authority="untrusted"),
    ]
    ordered = order_by_score(records, [1.0, 1.0, 1.0, 1.0, 2.0])
    assert [r.id for r, _ in ordered] == ["e", "d", "c", "a", "b"]


@settings(max_examples=size(100, 200), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["untrusted", "model_inferred", "verified_outcome"]),
                          st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0, 2.5])),
                min_size=0, max_size=30),
       st.randoms(use_true_random=False))
def test_order_by_score_is_the_stated_sort(rows: list[tuple[str, int, float]],
                                           rnd: Any) -> None:
    """Same order as sorting by (score, authority, created_at) descending then id, whether
    the tie order is computed or reused for the same records with new scores."""
    records = [rec(f"r{i:02d}", authority=a, created_at=T0 + timedelta(days=d))
               for i, (a, d, _) in enumerate(rows)]
    rnd.shuffle(records)
    for scores in ([s for _, _, s in rows], [rnd.choice([0.0, 1.0]) for _ in rows]):
        expected = sorted(zip(records, scores, strict=True), key=lambda p: p[0].id)
        expected.sort(key=lambda p: (p[1], p[0].authority.rank, p[0].created_at), reverse=True)
        assert order_by_score(records, scores) == expected


def test_bm25_stems_and_ignores_stop_words() -> None:
    records = [rec("a", content="Refunds require manual approval"),
               rec("b", content="Run the unit tests"), rec("c", content="the and of")]
    scores = BM25Ranker().score("refund approvals", records)
    assert scores[0] > 0 and scores[1] == 0 and scores[2] == 0
    assert BM25Ranker().score("the of", records) == [0.0, 0.0, 0.0]


def test_records_naming_or_produced_by_the_queried_entity_rank_first() -> None:
    """A question about someone is answered by what they said and what names
    them. Three records share the topic word equally; the one naming the entity, and most
    the one it produced, come first; without a name in the query nothing is boosted."""
    records = [rec("other", content="painted a sunset", provenance={"speaker": "Caroline"}),
               rec("named", content="Melanie painted a sunset",
                   provenance={"speaker": "Caroline"}),
               rec("by", content="Melanie painted a sunset", provenance={"speaker": "Melanie"}),
               rec("filler", content="went camping", provenance={"speaker": "Melanie"})]
    ranker = BM25Ranker(**BM25_DEFAULTS)
    plain = BM25Ranker(**(BM25_DEFAULTS | {"entity_boost": 0.0, "source_boost": 0.0}))
    got = ranker.score("What did Melanie paint?", records)
    base = plain.score("What did Melanie paint?", records)
    assert got[2] > got[1] > got[0] > 0 and got[3] == 0
    assert got[0] == base[0] and got[1] == base[1] * 1.5 and got[2] == base[2] * 2.0
    assert ranker.score("what did melanie paint", records) == plain.score(
        "what did melanie paint", records)
    assert entity_terms("How many CRM tickets did Jon file?") == ["crm", "jon"]


def test_hybrid_fuses_both_rankings() -> None:
    records = [rec("a", content="alpha"), rec("b", content="beta"), rec("c", content="gamma")]

    def encoder(texts: list[str]) -> list[list[float]]:
        table = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "gamma": [0.7, 0.7]}
        return [table.get(t, [0.6, 0.8]) for t in texts]

    from graphmem.read.rankers import EmbeddingRanker

    hybrid = HybridRanker(semantic=EmbeddingRanker(encoder))
    scores = hybrid.score("beta", records)
    # b: first in both rankings; a: only second semantically; c is in between
    assert scores[1] > scores[2] > 0 and scores[1] > scores[0]


def test_bm25_cache_follows_the_exact_candidate_set() -> None:
    ranker = BM25Ranker()
    first = [rec("a", content="refund approval needed"), rec("b", content="unit tests")]
    scores = ranker.score("refund", first)
    assert scores[0] > 0 and scores[1] == 0
    assert ranker.score("refund", first) == scores
    redacted = [rec("a", content="[REDACTED] approval needed"), first[1]]
    assert ranker.score("refund", redacted) == [0.0, 0.0]  # same ids, new content: rebuilt
    grown = [*first, rec("c", content="refund refund")]
    assert ranker.score("refund", grown)[2] > 0
