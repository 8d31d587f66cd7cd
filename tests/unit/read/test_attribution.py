"""Candidate sets logged as deltas (graphmem.read.attribution.candidate_ids): each delta
follows its own base, and deltas apply from the whole set forwards."""

from __future__ import annotations

import pytest

from graphmem.errors import StoreError
from graphmem.read.attribution import candidate_ids


def test_candidate_ids_follows_each_delta_from_its_own_base() -> None:
    root = {"digest": "r", "ids": ["a", "b"]}
    one = {"digest": "1", "ids": ["a", "b", "c"]}  # stored again whole: its chain ends here
    two = {"digest": "2", "base_digests": ["1", "r"], "added_ids": ["d"], "removed_ids": []}
    assert candidate_ids({}, two, [one]) == ["a", "b", "c", "d"]  # root not needed
    elsewhere = {"digest": "1", "base_digests": ["x"], "added_ids": ["c"], "removed_ids": []}
    with pytest.raises(StoreError):  # "1" is now a delta of another set than "r"
        candidate_ids({}, two, [elsewhere, root])
    with pytest.raises(StoreError):  # triggered, with candidates, and its set is gone
        candidate_ids({"id": "q", "candidate_count": 3}, None, [])
    assert candidate_ids({"candidate_count": 0}, None, []) == []


def test_candidate_ids_applies_deltas_from_the_whole_set_forwards() -> None:
    root = {"digest": "r", "ids": ["a", "b", "c"]}
    one = {"digest": "1", "base_digests": ["r"], "added_ids": ["d"], "removed_ids": ["a"]}
    two = {"digest": "2", "base_digests": ["1", "r"], "added_ids": ["a"], "removed_ids": ["d"]}
    assert candidate_ids({}, two, [one, root]) == ["a", "b", "c"]
    assert candidate_ids({}, one, [root]) == ["b", "c", "d"]
    assert candidate_ids({"candidate_ids": ["z"]}, two, []) == ["z"]  # logged before sets
    assert candidate_ids({}, None, []) == []
