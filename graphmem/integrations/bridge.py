"""What every agent-framework adapter does with graphmem, in one place: recall (``retrieve``,
conflicts kept, budgeted), write a conversation's turns through the write policy, remember one
statement, explain, and forget through a lineage deletion (plan, then apply), each as the
caller's confined client (:mod:`.identity`).

The calls are synchronous, on the public :class:`graphmem.Memory`; an adapter whose framework
is async awaits them through :func:`offload`, which runs one on a worker thread so the event
loop keeps turning (the one place to change when an async client replaces it).

How a conversation is written (docs/spec/write-path.md): each user message is an episodic
record with authority ``human_instruction`` (what the user said); each reply of the model is
an episodic record with authority ``model_inferred`` whose ``derived_from`` and
``evidence_ids`` name the user messages of its turn, so the policy persists it as inference
with evidence and a deletion of the user's message walks to the reply. Record ids are stable
per framework item, so writing a conversation again stores nothing twice (an identical
record is discarded as already stored), also when it is written again under another session
or with none: the message keeps the provenance it was first stored with, and a message or
keyed memory the framework gave no time keeps the time it was first stored with.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, ParamSpec, TypeVar

from graphmem.client import Memory, Retrieval, store_of
from graphmem.deletion import DeletionReport
from graphmem.errors import RecordConflictError, RecordNotFoundError, ValidationError
from graphmem.models import Authority, Explanation, MemoryKind, Sensitivity
from graphmem.read.steps import SEPARATOR, DecisionState, render_memory
from graphmem.write.policy import MemoryWriteDecision, WriteDisposition

from .identity import AgentIdentity, stable_id

__all__ = ["MemoryBridge", "Recalled", "Turn", "offload"]

P = ParamSpec("P")
R = TypeVar("R")


async def offload(call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Await a blocking graphmem call on a worker thread (``asyncio.to_thread``), so the
    event loop is not blocked while the driver waits and decodes."""
    return await asyncio.to_thread(functools.partial(call, *args, **kwargs))


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, as an adapter hands it over.

    Attributes:
        role: ``"user"`` (the user said it) or ``"assistant"`` (the model replied).
        text: the message's text (non-empty after stripping, else it is skipped).
        key: what identifies the message in its framework (an event id, a message index
            with the run id): the record id is derived from it and the caller.
        at: when it was said, aware UTC (None: now).
        agent: the agent that replied, when the framework names it per message (recorded
            in ``provenance["agent"]`` instead of the caller's).
    """

    role: Literal["user", "assistant"]
    text: str
    key: str
    at: datetime | None = None
    agent: str | None = None


@dataclass(frozen=True)
class Recalled:
    """A retrieval for a framework: the graphmem :class:`~graphmem.Retrieval` and the notes
    about conflicts its rendered text carries (``Conflict on `key`: m1 says ..., m2 says ...``,
    or that a conflict was left out over the budget), for frameworks that take memories one by
    one instead of one text."""

    retrieval: Retrieval
    notes: tuple[str, ...]

    @property
    def rendered(self) -> str:
        """What a model is shown: the memories and the conflict notes, within the budget."""
        return self.retrieval.rendered


class MemoryBridge:
    """The graphmem calls the framework adapters share (module docstring).

    Args:
        memory: a connected :class:`graphmem.Memory` (the operator's, or one already bound:
            each caller's client is narrowed from it with :meth:`Memory.confined`).
        clearance: the highest sensitivity the framework's callers may see.
        max_authority: the authority ceiling of every write (default ``human_instruction``);
            a claim above it raises :class:`~graphmem.errors.AuthorityCeilingError`.
        budget_chars: characters of rendered memory a recall may return (>= 0).
        k: ranked memories kept before conflict partners and budget (>= 1).
        ranker: ``"bm25"`` (default), ``"embedding"``, ``"hybrid"`` or a Ranker.

    Raises:
        ValidationError: ``memory`` is not a Memory, a bad clearance, ceiling, budget or k.
    """

    def __init__(self, memory: Memory, *, clearance: Sensitivity | str = Sensitivity.NORMAL,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
                 budget_chars: int = 4000, k: int = 10, ranker: str | None = None) -> None:
        if not isinstance(memory, Memory):
            raise ValidationError(f"memory must be a graphmem Memory, got "
                                  f"{type(memory).__name__}")
        try:
            self.clearance = Sensitivity(clearance)
            self.max_authority = Authority(max_authority)
        except ValueError:
            raise ValidationError("clearance must be one of normal, confidential, restricted; "
                                  "max_authority one of "
                                  f"{', '.join(a.value for a in Authority)}") from None
        if isinstance(budget_chars, bool) or not isinstance(budget_chars, int) \
                or budget_chars < 0 or isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValidationError("budget_chars must be an integer >= 0 and k an integer >= 1")
        self.memory = memory
        self.budget_chars = budget_chars
        self.k = k
        self.ranker = ranker

    def client(self, who: AgentIdentity) -> Memory:
        """The caller's confined client (its principal, this bridge's ceiling)."""
        return self.memory.confined(who.principal(self.clearance),
                                    max_authority=self.max_authority)

    # -- read -----------------------------------------------------------------------------

    def recall(self, who: AgentIdentity, query: str, *, k: int | None = None) -> Recalled:
        """Retrieve for ``query`` in the caller's scope: an explicit ask for prior context
        (the ``needs_prior_context`` trigger), conflicts kept, within the budget
        (docs/spec/read-path.md); ``k`` ranked memories (default the bridge's).

        Raises:
            ValidationError: a query over graphmem's bounds. AuthorizationError.
        """
        state = DecisionState(memory_scope=who.scope, goal=str(query),
                              needs_prior_context=True)
        found = self.client(who).retrieve(state, budget_chars=self.budget_chars,
                                          k=self.k if k is None else k,
                                          ranker=self.ranker)
        return Recalled(found, _notes(found))

    def explain(self, who: AgentIdentity, record_id: str) -> Explanation:
        """Why a memory is or is not retrieved for this caller now (docs/spec/status.md);
        another user's memory explains as UNAUTHORIZED.

        Raises:
            RecordNotFoundError: no such memory. ValidationError: an id too long.
        """
        return self.client(who).explain(record_id, scope=who.scope)

    # -- write ----------------------------------------------------------------------------

    def remember_turns(self, who: AgentIdentity, turns: Sequence[Turn]
                       ) -> list[MemoryWriteDecision]:
        """Write a conversation's messages through the write policy (module docstring), in
        order; one decision per message with text.

        Raises:
            ValidationError, AuthorityCeilingError (a ceiling below ``model_inferred`` and a
            reply to write): nothing more is written from that message on.
        """
        client = self.client(who)
        decisions: list[MemoryWriteDecision] = []
        anchors: list[str] = []  # the stored user messages of the current turn
        last_role = ""
        for turn in turns:
            if not turn.text.strip():
                continue
            if turn.role == "user" and last_role != "user":
                anchors = []
            last_role = turn.role
            rid = stable_id(who.framework, who.tenant, who.app or "", who.user, turn.key)
            record = {
                "id": rid, "kind": MemoryKind.EPISODIC, "content": turn.text,
                "created_at": turn.at or store_of(client).clock(), "scope": who.scope,
                "provenance": {**who.provenance, "role": turn.role,
                               **({"agent": turn.agent} if turn.agent else {})},
            }
            if turn.role == "user":
                record["authority"] = Authority.HUMAN_INSTRUCTION
            else:
                record.update(authority=Authority.MODEL_INFERRED,
                              derived_from=tuple(anchors), evidence_ids=tuple(anchors))
            decision = _write_stable(client, record, by=who.by, clocked=turn.at is None)
            decisions.append(decision)
            if turn.role == "user":
                anchor = _stored_as(client, decision)
                if anchor is not None and anchor not in anchors:
                    anchors.append(anchor)
        return decisions

    def remember(self, who: AgentIdentity, content: str, *,
                 authority: Authority | str = Authority.HUMAN_INSTRUCTION,
                 kind: MemoryKind | str = MemoryKind.SEMANTIC, asserts: str | None = None,
                 asserted_value: str | None = None, evidence_ids: Sequence[str] = (),
                 key: str | None = None) -> MemoryWriteDecision:
        """Propose one memory in the caller's scope through the write policy.

        Args:
            content: the memory. authority: what it claims (capped by the ceiling).
            kind: semantic (default), episodic, procedural. asserts, asserted_value: the key
                it sets and the value (two memories with different values are a conflict).
            evidence_ids: memories it rests on, and so is derived from (``derived_from``
                too: an agent writes what it inferred from them, and a lineage deletion of
                one walks to it; docs/spec/deletion.md#walk). key: a stable key for an
                idempotent write (default: a fresh id).

        Raises:
            ValidationError, AuthorityCeilingError, OutOfReachError: nothing is written.
        """
        import uuid

        client = self.client(who)
        rid = stable_id(who.framework, who.tenant, who.app or "", who.user,
                        key if key is not None else uuid.uuid4().hex)
        return _write_stable(client, {
            "id": rid, "kind": kind, "content": content, "created_at": store_of(client).clock(),
            "scope": who.scope, "provenance": who.provenance, "authority": authority,
            "asserts": asserts, "asserted_value": asserted_value,
            "evidence_ids": tuple(evidence_ids), "derived_from": tuple(evidence_ids),
        }, by=who.by, clocked=True)

    # -- delete ---------------------------------------------------------------------------

    def forget(self, who: AgentIdentity, record_id: str | None, *,
               reason: str = "deleted through the agent framework") -> DeletionReport:
        """Delete a memory and everything derived from it (a lineage deletion: planned, then
        applied and verified; docs/spec/deletion.md). ``record_id`` None: every memory of the
        caller's scope (the user's, in this app).

        Raises:
            OutOfReachError: a memory of another user, or none such. AuthorizationError: the
                walk reaches a memory the caller may not change (say, a tenant-wide one
                derived from it): nothing is deleted. DeletionError.
        """
        client = self.client(who)
        if record_id is None:
            plan = client.plan_deletion(subject={}, requested_by=who.by, reason=reason)
        else:
            plan = client.plan_deletion([record_id], requested_by=who.by, reason=reason)
        return client.apply_deletion(plan)


def _write_stable(client: Memory, record: dict[str, object], *, by: str, clocked: bool
                  ) -> MemoryWriteDecision:
    """Write a record whose id is stable per framework item (a message, a keyed memory).
    Written again, it is the same item, discarded as identical: a message stored before
    under another session, or without one (``add_events_to_memory`` with and without
    ``session_id``), keeps its stored provenance; and when ``clocked`` (its ``created_at``
    is the clock's, the framework gave no time) it keeps its stored ``created_at``, so a
    keyed ``remember`` (ADK ``add_memory`` of an entry with an id) repeated later is not a
    conflict with itself.

    Raises:
        RecordConflictError: the id holds a record that differs in more than these.
    """
    try:
        return client.write(record, by=by)
    except RecordConflictError as conflict:
        provenance = record["provenance"]
        assert isinstance(provenance, dict)
        try:
            stored = client.get(str(record["id"]))
        except RecordNotFoundError:
            raise conflict from None
        if _without_session(stored.provenance) != _without_session(provenance):
            raise
        again = {**record, "provenance": dict(stored.provenance)}
        if clocked:
            again["created_at"] = stored.created_at
        return client.write(again, by=by)


def _without_session(provenance: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in provenance.items() if k != "session"}


def _stored_as(client: Memory, decision: MemoryWriteDecision) -> str | None:
    """The id a reply may rest on for this user message: its own when stored (now or by an
    earlier write of the same conversation), the active twin's when it was a duplicate, None
    when quarantined or gone."""
    if decision.disposition is WriteDisposition.PERSIST:
        return decision.record_id
    if decision.duplicate_of is not None:
        return decision.duplicate_of
    if decision.disposition is WriteDisposition.DISCARD:
        try:
            client.get(decision.record_id)
        except RecordNotFoundError:
            return None
        return decision.record_id
    return None


def _notes(found: Retrieval) -> tuple[str, ...]:
    """The conflict notes of a rendered retrieval: what is left of it without its memories'
    blocks (docs/spec/read-path.md, step 8)."""
    rest = found.rendered
    for memory in found.memories:
        rest = rest.replace(render_memory(memory), "", 1)
    return tuple(part.strip() for part in rest.split(SEPARATOR) if part.strip())
