"""Keyed digests of intention cues (graphmem.db.index_key): equal only for the same cue, exact,
keyed, and holding no text (docs/spec/deletion.md, docs/spec/intentions.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.db.index_key import cue_digest

KEY = bytes(range(32))


# -- the digest (no database) ---------------------------------------------------------------

text = st.text(max_size=12)


@given(text, text, text, text, text, text)
def test_digests_are_equal_only_for_the_same_cue(t1: str, k1: str, v1: str, t2: str, k2: str,
                                                 v2: str) -> None:
    same = (t1, k1, v1) == (t2, k2, v2)
    assert (cue_digest(KEY, t1, k1, v1) == cue_digest(KEY, t2, k2, v2)) is same


def test_a_digest_is_exact_keyed_and_holds_no_text() -> None:
    base = cue_digest(KEY, "acme", "keyword", "Jane Roe")
    near = ["Jane roe", "Jane Roe ", "Jane\u00a0Roe", "JANE ROE", "Jane Ro"]
    assert all(cue_digest(KEY, "acme", "keyword", v) != base for v in near)
    # the separator between the parts is data: no two splits of one string collide
    assert cue_digest(KEY, "acme", "a,b", "c") != cue_digest(KEY, "acme", "a", "b,c")
    assert cue_digest(bytes(32), "acme", "keyword", "Jane Roe") != base
    assert len(base) == 64 and int(base, 16) >= 0 and "Jane" not in base


# -- against Neo4j --------------------------------------------------------------------------


