"""Time in the text that needs it: a record's date as search terms.

Agents and people ask about time the way they say it ("what did Maria do in December
2023?", "on 7 July, 2023", "last Monday"), while a record keeps its time as a timestamp.
:func:`date_terms` gives the lexical ranker the record's ``created_at`` rendered as people
say it, "Monday, 8 May 2023" (:func:`graphmem.read.steps.human_date`, the same form the
rendered memory shows), tokenized like any other text, so a query naming the month, year or
weekday can match the records of that day. Only the UTC calendar date is used.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache

from graphmem.read.steps import human_date
from graphmem.read.tokens import tokenize

__all__ = ["date_terms"]


def date_terms(at: datetime) -> list[str]:
    """The BM25 terms of ``at``'s date as people say it (weekday, day, month, year).

    Args:
        at: an aware UTC datetime (a record's ``created_at``).

    Returns:
        A new list of terms (the caller may extend it); e.g. ``["monday", "may", "2023"]``
        for 8 May 2023 (single-digit days are no term, as in any text).
    """
    return list(_terms(at.date()))


@lru_cache(maxsize=4096)
def _terms(day: date) -> tuple[str, ...]:
    return tuple(tokenize(human_date(datetime(day.year, day.month, day.day))))
