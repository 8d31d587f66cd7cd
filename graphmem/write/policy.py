"""The write policy: a proposal mostly gets refused (docs/spec/write-path.md, chapter section 2).

:func:`decide` is a pure function of the proposal and what the store knows about it
(duplicates, evidence records), so the policy can be tested and evaluated without a
database; the client runs it inside the write transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum

from graphmem.errors import ValidationError
from graphmem.fields import duplicate_text
from graphmem.models import Authority, MemoryKind, MemoryRecord

__all__ = [
    "DEFAULT_CLOCK_SKEW",
    "PROCEDURE_EXEMPT_AUTHORITIES",
    "MemoryWriteDecision",
    "WriteDisposition",
    "WritePolicy",
    "decide",
    "verified_episodes",
]


#: Authorities whose procedures need no supporting episodes (docs/spec/write-path.md): an explicit
#: instruction, or an authoritative source such as a runbook. Not ``verified_outcome``: a
#: procedure drawn from one verified outcome is one lucky episode until N agree.
PROCEDURE_EXEMPT_AUTHORITIES = frozenset({Authority.HUMAN_INSTRUCTION,
                                          Authority.AUTHORITATIVE_SOURCE})


#: How far apart the clocks that stamp one scope's writes may be, plus how long a write may
#: wait between its stamp and its duplicate check (a lock, a batch in flight): the window
#: within which a twin stamped after a write's own time is still its duplicate
#: (:attr:`WritePolicy.clock_skew`, docs/write-path.md).
DEFAULT_CLOCK_SKEW = timedelta(seconds=60)


class WriteDisposition(StrEnum):
    """What the write path does with a proposal."""

    DISCARD = "DISCARD"
    QUARANTINE = "QUARANTINE"
    PERSIST = "PERSIST"


@dataclass(frozen=True)
class MemoryWriteDecision:
    """A disposition and the reason for it; every decision is kept in the store.

    Attributes:
        record_id: the proposal's id.
        disposition: DISCARD, QUARANTINE or PERSIST.
        reason: why, in one sentence (no record content).
        duplicate_of: for a duplicate, the active record it duplicates.
    """

    record_id: str
    disposition: WriteDisposition
    reason: str
    duplicate_of: str | None = None


@dataclass(frozen=True)
class WritePolicy:
    """Settings of the write policy.

    Attributes:
        runtime_state_keys: ``asserts`` keys that restate authoritative runtime state
            (a live system answers them; memory must not): such proposals are discarded.
        untrusted_sources: ``provenance["source"]`` values that are evidence, not
            authority (tool output, web content): quarantined.
        min_verified_episodes: N, the supporting verified episodes a procedure needs
            (default 3) unless its authority is in :data:`PROCEDURE_EXEMPT_AUTHORITIES`
            (``human_instruction``, ``authoritative_source``; not ``verified_outcome``).
        require_future_decision: when True, a proposal must name in
            ``metadata["future_decision"]`` the future decision it could improve.
        clock_skew: the duplicate check's window (docs/spec/write-path.md: concurrent identical
            writes persist once, whatever each writer's clock says). A stored twin (same
            scope, same normalised content, admitted, not retracted, expired or superseded
            at the write's time) is a duplicate when it was created and valid by the write's
            time plus this window: a twin a concurrent writer committed first is found
            though its clock, or the moment it read it, stamped it a little later. A twin
            stamped further ahead is a later-dated memory, not yet one at the write's time.
            A non-negative ``timedelta`` (default :data:`DEFAULT_CLOCK_SKEW`).

    Raises:
        ValidationError: ``clock_skew`` is not a non-negative ``timedelta`` (at most a day).
    """

    runtime_state_keys: frozenset[str] = field(default_factory=frozenset)
    untrusted_sources: frozenset[str] = frozenset(
        {"web", "web_content", "tool", "tool_output", "email", "user_upload"}
    )
    min_verified_episodes: int = 3
    require_future_decision: bool = False
    clock_skew: timedelta = DEFAULT_CLOCK_SKEW

    def __post_init__(self) -> None:
        skew = self.clock_skew
        if not isinstance(skew, timedelta) or not timedelta(0) <= skew <= timedelta(days=1):
            raise ValidationError("clock_skew must be a timedelta from 0 to one day")

    @property
    def clock_skew_ms(self) -> int:
        """:attr:`clock_skew` in whole milliseconds (rounded up), as the duplicate check
        reads it (``cypher/parts/write_probe.cypher``)."""
        return -(-self.clock_skew // timedelta(milliseconds=1))


def verified_episodes(evidence: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Evidence records that count as verified episodes (episodic, verified or better)."""
    return [
        r for r in evidence
        if r.kind is MemoryKind.EPISODIC and r.authority >= Authority.VERIFIED_OUTCOME
        and not r.retracted
    ]


def decide(
    proposal: MemoryRecord,
    *,
    policy: WritePolicy,
    duplicate_ids: Sequence[str] = (),
    evidence: Mapping[str, MemoryRecord] | None = None,
) -> MemoryWriteDecision:
    """Decide the disposition of one proposal (docs/spec/write-path.md), first rule that applies.

    Args:
        proposal: the proposed record.
        policy: the policy settings.
        duplicate_ids: active records in the same scope with the same normalised content
            (:func:`graphmem.models.duplicate_text`, via the stored ``dedup_key``), active
            at the write's time or created within ``policy.clock_skew`` after it.
        evidence: the admitted stored records named by ``proposal.evidence_ids``
            (:func:`graphmem.write.admission.admitted_evidence`).
    """
    evidence = evidence or {}
    rid = proposal.id

    def out(disposition: WriteDisposition, reason: str, dup: str | None = None
            ) -> MemoryWriteDecision:
        return MemoryWriteDecision(rid, disposition, reason, dup)

    if not duplicate_text(proposal.content):
        return out(WriteDisposition.DISCARD, "content is empty after normalisation")
    if proposal.asserts is not None and proposal.asserts in policy.runtime_state_keys:
        return out(WriteDisposition.DISCARD,
                   f"restates authoritative runtime state ({proposal.asserts})")
    if policy.require_future_decision and not str(
        proposal.metadata.get("future_decision", "")
    ).strip():
        return out(WriteDisposition.DISCARD, "names no future decision it could improve")
    if duplicate_ids:
        first = sorted(duplicate_ids)[0]
        return out(WriteDisposition.DISCARD,
                   f"duplicates active record {first} in the same scope", first)
    source = proposal.provenance.get("source", "")
    if proposal.authority is Authority.UNTRUSTED or source in policy.untrusted_sources:
        return out(WriteDisposition.QUARANTINE,
                   f"untrusted source ({source or proposal.authority.value}): evidence, "
                   "not authority")
    if proposal.authority is Authority.MODEL_INFERRED and not proposal.evidence_ids:
        return out(WriteDisposition.QUARANTINE, "model inference without evidence")
    if (proposal.kind is MemoryKind.PROCEDURAL
            and proposal.authority not in PROCEDURE_EXEMPT_AUTHORITIES):
        support = verified_episodes([evidence[i] for i in proposal.evidence_ids if i in evidence])
        if len(support) < policy.min_verified_episodes:
            return out(
                WriteDisposition.QUARANTINE,
                f"procedure with {len(support)} verified supporting episodes; "
                f"{policy.min_verified_episodes} needed unless it is an explicit instruction "
                f"or from an authoritative source (authority {proposal.authority.value})",
            )
    return out(WriteDisposition.PERSIST, "passes the write policy")
