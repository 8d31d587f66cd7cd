"""The procedure bar as a pure function (graphmem.write.policy.decide): a procedure needs N
(default 3) verified supporting episodes whatever its authority, unless it is an explicit
instruction or comes from an authoritative source (docs/spec/write-path.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.models import Authority
from graphmem.write.policy import (
    PROCEDURE_EXEMPT_AUTHORITIES,
    WriteDisposition,
    WritePolicy,
    decide,
)
from tests.support.procedures import episodes, rec


def test_the_issue_input_is_quarantined() -> None:
    """A verified_outcome procedure backed by one episode: QUARANTINE, not PERSIST."""
    proc = rec("p", evidence_ids=["e0"])
    decision = decide(proc, policy=WritePolicy(), evidence=episodes(1))
    assert decision.disposition is WriteDisposition.QUARANTINE
    assert "1 verified supporting episodes; 3 needed" in decision.reason


def test_only_instructions_and_authoritative_sources_are_exempt() -> None:
    exempt = {Authority.HUMAN_INSTRUCTION, Authority.AUTHORITATIVE_SOURCE}
    assert set(PROCEDURE_EXEMPT_AUTHORITIES) == exempt


@given(authority=st.sampled_from(list(Authority)), support=st.integers(0, 5),
       weak=st.integers(0, 3), n=st.integers(1, 5))
def test_the_bar_for_every_authority(authority: Authority, support: int, weak: int,
                                     n: int) -> None:
    """Whatever the authority and however many episodes, the procedure persists iff it is
    exempt or has at least N verified episodes (weaker episodes never count)."""
    evidence = {**episodes(support),
                **{f"w{i}": rec(f"w{i}", kind="episodic", authority="model_inferred")
                   for i in range(weak)}}
    proc = rec("p", authority=authority.value, evidence_ids=list(evidence))
    got = decide(proc, policy=WritePolicy(min_verified_episodes=n), evidence=evidence)
    if authority is Authority.UNTRUSTED or (authority is Authority.MODEL_INFERRED
                                            and not evidence):
        assert got.disposition is WriteDisposition.QUARANTINE  # earlier rules
    elif authority in PROCEDURE_EXEMPT_AUTHORITIES or support >= n:
        assert got.disposition is WriteDisposition.PERSIST, got.reason
    else:
        assert got.disposition is WriteDisposition.QUARANTINE, got.reason


