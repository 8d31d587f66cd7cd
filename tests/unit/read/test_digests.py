"""Candidate set digests (graphmem.read.digests): the digest is that of the set's JSON, and an
answer made from another by a change is digested from that one's text edited by the change,
to the same digest as from scratch."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.db.candidates import CandidateIds
from graphmem.read import digests
from graphmem.read.digests import SetDigests, candidate_set_digest


def _json_digest(tenant: str, ids: list[str]) -> str:
    return hashlib.sha256(json.dumps([tenant, *ids]).encode()).hexdigest()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=6), st.lists(st.one_of(
    st.text(max_size=8), st.text(st.characters(min_codepoint=32, max_codepoint=126)))))
def test_a_candidate_set_digest_is_that_of_its_json(tenant: str, ids: list[str]) -> None:
    """The joined text is the one json.dumps writes, whatever characters the ids hold."""
    assert candidate_set_digest(tenant, ids) == _json_digest(tenant, ids)


def _edited(before: CandidateIds, after: list[str], redone: frozenset[str] = frozenset()
            ) -> CandidateIds:
    """``after`` as the ids of an answer made from ``before`` by a change: the positions of
    ``before`` whose id left or changed (``redone``: a new version of the record), and those of
    ``after`` that joined or changed."""
    gone = set(before) - set(after) | (redone & set(after))
    joined = set(after) - set(before) | (redone & set(before))
    removed = tuple(i for i, rid in enumerate(before) if rid in gone)
    inserted = tuple(i for i, rid in enumerate(after) if rid in joined)
    return CandidateIds(after, token=before.token + 1, edit=(before.token, removed, inserted))


_ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=6)
_ANY = st.text(min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(tenant=_ASCII, first=st.sets(_ASCII, max_size=30),
       steps=st.lists(st.tuples(st.sets(st.one_of(_ASCII, _ANY), max_size=4),
                                st.sets(st.integers(0, 40), max_size=4),
                                st.sets(st.integers(0, 40), max_size=3)), max_size=6))
def test_an_edited_answer_has_the_digest_of_its_whole_set(
        tenant: str, first: set[str], steps: list[tuple[set[str], set[int], set[int]]]
) -> None:
    """Answers that each change the one before (ids joining, ids leaving, at the start, the
    end, side by side, all of them, ids JSON escapes): each digest equals the digest of the
    whole set, whether or not it could be made from the text of the one before."""
    keep = SetDigests()
    token = 10_000 * (1 + len(first))
    ids = CandidateIds(sorted(first), token=token, edit=None)
    assert keep.digest(tenant, ids) == _json_digest(tenant, list(ids))
    for joining, leaving, changing in steps:
        after = sorted((set(ids) - {ids[i] for i in leaving if i < len(ids)}) | joining)
        ids = _edited(ids, after, frozenset(ids[i] for i in changing if i < len(ids)))
        assert keep.digest(tenant, ids) == _json_digest(tenant, list(ids))
        assert keep.digest(tenant, ids) == _json_digest(tenant, list(ids))  # kept
        assert keep.digest(tenant + "x", ids) == _json_digest(tenant + "x", list(ids))


def test_an_edited_answer_is_spliced_not_joined_again(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """The point of it: made from the text kept for the answer before, the digest of an edited
    answer never joins its ids again."""
    keep = SetDigests()
    before = CandidateIds([f"r{i:05d}" for i in range(1000)], token=1, edit=None)
    keep.digest("t", before)
    joined: list[int] = []
    original = digests._joined

    def counting(tenant: str, ids: Sequence[str]) -> bytes:
        joined.append(1)
        return original(tenant, ids)

    monkeypatch.setattr(digests, "_joined", counting)
    after = [*before[:10], "r00010a", *before[11:500], *before[501:], "r99999"]
    edited = _edited(before, after)
    assert keep.digest("t", edited) == _json_digest("t", after)
    assert joined == []
    escaped = _edited(edited, [*after, 'r99999"'])  # JSON escapes it: joined again
    assert keep.digest("t", escaped) == _json_digest("t", list(escaped))
    assert joined == [1]
