"""Dates as people say them in the index (graphmem.read.dates), thread context fitted to the
budget (graphmem.read.context), and the default ranker (bm25, by measurement)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.read.context import thread_context
from graphmem.read.dates import date_terms
from graphmem.read.rankers import DEFAULT_RANKER, BM25Ranker, get_ranker
from graphmem.read.steps import RetrievedMemory, render_memories
from tests.support.recall import rec


def test_date_terms_say_weekday_month_and_year() -> None:
    assert date_terms(datetime(2023, 5, 8, 13, 56, tzinfo=UTC)) == ["monday", "may", "2023"]
    assert date_terms(datetime(2023, 7, 17, tzinfo=UTC)) == ["monday", "17", "juli", "2023"]


def test_a_query_naming_the_month_finds_that_months_record() -> None:
    recs = [rec("may", "went to the shelter", at=datetime(2023, 5, 8, tzinfo=UTC)),
            rec("dec", "went to the shelter", at=datetime(2023, 12, 4, tzinfo=UTC))]
    query = "What did Maria do at the shelter in December 2023?"
    plain = BM25Ranker().score(query, recs)
    dated = BM25Ranker(dates=True).score(query, recs)
    assert plain[0] == pytest.approx(plain[1])  # the content alone cannot tell them apart
    assert dated[1] > dated[0] > 0


def test_a_changed_date_rebuilds_the_index() -> None:
    ranker = BM25Ranker(dates=True)
    first = [rec("a", "shelter visit", at=datetime(2023, 5, 8, tzinfo=UTC)),
             rec("b", "shelter visit", at=datetime(2023, 12, 4, tzinfo=UTC))]
    assert ranker.score("shelter december", first)[1] > ranker.score("shelter december",
                                                                       first)[0]
    moved = [first[0], first[1].model_copy(update={"created_at": datetime(2023, 5, 9,
                                                                         tzinfo=UTC)})]
    scores = ranker.score("shelter december", moved)
    assert scores[0] == pytest.approx(scores[1])


def test_thread_context_adds_neighbours_that_fit() -> None:
    recs = [rec("q", "Where did you move from?", 0), rec("a", "Sweden, four years ago", 1),
            rec("x", "Nice weather today", 2), rec("solo", "unrelated")]
    hit = [RetrievedMemory(recs[1], 3.0, "bm25")]
    spent = len(render_memories(hit))
    added = thread_context(hit, recs, budget_chars=10**6, spent_chars=spent)
    assert [m.record.id for m in added] == ["q", "x"]
    assert all(m.score == 0.0 and m.reason == "thread context of a" for m in added)
    # the budget is honoured: room for one neighbour only
    one = len(render_memories([hit[0], added[0]]))
    assert [m.record.id for m in thread_context(hit, recs, budget_chars=one,
                                                spent_chars=spent)] == ["q"]
    assert thread_context(hit, recs, budget_chars=spent, spent_chars=spent) == []
    assert thread_context(hit, recs, budget_chars=10**6, spent_chars=spent, window=0) == []
    assert [m.record.id for m in thread_context(hit, recs, budget_chars=10**6,
                                                spent_chars=spent, exclude={"q"})] == ["x"]


def test_the_default_ranker_is_bm25_with_dates_and_threads() -> None:
    ranker = get_ranker(None)
    assert DEFAULT_RANKER == "bm25" and isinstance(ranker, BM25Ranker)
    assert ranker.dates and ranker.window == 2 and ranker.propagate > 0
