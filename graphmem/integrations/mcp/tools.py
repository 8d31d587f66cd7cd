"""The MCP tools and resources: thin, typed shims over :class:`graphmem.AsyncMemory`.

Each tool reads the server's :class:`~.state.ServerState` (one ``AsyncMemory`` for the
server's life, connected on first use and bound to the configured principal with
:meth:`graphmem.AsyncMemory.confined`, and the fixed :class:`~.config.ServerConfig`) from the
SDK's lifespan context. Every id a call names is checked by the core, which refuses one out
of the principal's reach (tenant, clearance, ``--scope`` confinement) as one that does not
exist; a call's scope goes through :meth:`ServerConfig.resolve_scope`. A graphmem
error becomes a tool error carrying graphmem's message (``ToolError``); the SDK turns it
into a result with ``is_error`` set, so the server keeps running.

The tools are coroutines awaiting the client's: the SDK runs them on its event loop, and the
client runs graphmem's work on its own worker threads and its round trips on that loop.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from graphmem.errors import GraphmemError, RecordConflictError, RecordNotFoundError

from .schemas import (
    AWARE_TIME,
    AuthorityStr,
    ConflictOut,
    ExplainOut,
    FiredIntention,
    HistoryOut,
    IntendOut,
    KindStr,
    LineageOut,
    ProcessEventOut,
    Proposal,
    RecalledMemory,
    RecallOut,
    RecordUseOut,
    RetractOut,
    TransitionOut,
    WriteDecisionOut,
)
from .state import Ctx, ServerState, server_state

__all__ = ["ServerState", "explain", "history", "intend", "lineage", "process_event", "recall",
           "record_use", "remember", "retract", "supersede"]


ScopeAdditions = Annotated[dict[str, str] | None, Field(
    description="Keys added to the server's default scope for this call (e.g. "
                "{'project': 'p1'}); keys the server fixed cannot be changed.")]
MemoryId = Annotated[str, Field(description="A memory id (from remember or recall).")]


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a graphmem error into a tool error with its class name and message."""
    try:
        yield
    except GraphmemError as exc:
        ids = f" [ids: {', '.join(exc.record_ids)}]" if exc.record_ids else ""
        raise ToolError(f"{error_name(exc)}: {exc}{ids}") from None


def error_name(exc: GraphmemError) -> str:
    """The error's class, with the graphmem classes it is also one of (``OutOfReachError
    (AuthorizationError, RecordNotFoundError)``), so a client can match either."""
    bases = [c.__name__ for c in type(exc).__mro__[1:]
             if issubclass(c, GraphmemError) and c is not GraphmemError]
    return f"{type(exc).__name__} ({', '.join(bases)})" if bases else type(exc).__name__


async def _record_from(state: ServerState, proposal: Proposal, *, scope: dict[str, str]
                       ) -> dict[str, Any]:
    return {
        "id": f"mem-{uuid.uuid4().hex}",
        "kind": proposal.kind,
        "content": proposal.content,
        "created_at": (await state.store()).clock(),
        "scope": scope,
        "provenance": proposal.provenance or {"source": state.config.agent},
        "authority": proposal.authority,
        "asserts": proposal.asserts,
        "asserted_value": proposal.asserted_value,
        "valid_from": proposal.valid_from,
        "expires_at": proposal.expires_at,
        "supersedes": tuple(proposal.supersedes),
        "derived_from": tuple(proposal.derived_from),
        "evidence_ids": tuple(proposal.evidence_ids),
    }


# -- write ------------------------------------------------------------------------------


async def remember(
    ctx: Ctx,
    content: Annotated[str, Field(description="The memory itself, as text.")],
    kind: KindStr = "semantic",
    scope: ScopeAdditions = None,
    provenance: Annotated[dict[str, str] | None, Field(
        description="Where it comes from, e.g. {'source': 'user'} (default: the agent).")
    ] = None,
    authority: AuthorityStr = "model_inferred",
    asserts: Annotated[str | None, Field(
        description="The key this memory asserts a value for (e.g. 'customer.plan').")
    ] = None,
    asserted_value: Annotated[str | None, Field(
        description="The value asserted for `asserts`.")] = None,
    valid_from: Annotated[datetime | None, Field(
        description=f"When it starts to hold; {AWARE_TIME}.")] = None,
    expires_at: Annotated[datetime | None, Field(
        description=f"When it stops holding; {AWARE_TIME}.")] = None,
    supersedes: Annotated[list[str] | None, Field(
        description="Ids of memories this one replaces.")] = None,
    derived_from: Annotated[list[str] | None, Field(
        description="Ids of memories this one was derived from.")] = None,
    evidence_ids: Annotated[list[str] | None, Field(
        description="Ids of memories that support this one.")] = None,
) -> WriteDecisionOut:
    """Propose a memory; the write policy persists, quarantines or discards it.

    The policy mostly refuses (docs/spec/write-path.md): a `model_inferred` memory without
    `evidence_ids` is quarantined (stored for audit, never retrieved); pass the ids of the
    memories it rests on, or `authority="human_instruction"` for what the user told you.
    A restatement of an active memory in the same scope is discarded.

    Raises:
        ToolError: a validation, authorization or conflict error; nothing is written.
    """
    state = server_state(ctx)
    with tool_errors():
        proposal = Proposal(
            content=content, kind=kind, scope=scope, provenance=provenance,
            authority=authority, asserts=asserts, asserted_value=asserted_value,
            valid_from=valid_from, expires_at=expires_at, supersedes=supersedes or [],
            derived_from=derived_from or [], evidence_ids=evidence_ids or [])
        record = await _record_from(state, proposal,
                              scope=state.config.resolve_scope(proposal.scope))
        decision = await (await state.memory()).write(record, by=state.config.agent)
        return WriteDecisionOut(id=decision.record_id, disposition=decision.disposition.value,
                                reason=decision.reason)


async def supersede(
    ctx: Ctx,
    old_ids: Annotated[list[str], Field(min_length=1,
                                        description="Ids of the memories being replaced.")],
    reason: Annotated[str, Field(min_length=1, description="Why they are replaced.")],
    successor: Annotated[Proposal, Field(description="The replacing memory.")],
) -> WriteDecisionOut:
    """Write ``successor`` as the replacement of ``old_ids`` (kept in history).

    The successor's id is the call's (a digest of the agent, the old ids, the reason and the
    successor): the same call again (a retry after a timeout or a lost reply) is the
    supersession already made, reported as a DISCARD "identical record already stored" of
    that successor (docs/spec/write-path.md#repeats).

    Raises:
        ToolError: as :func:`remember`, or the policy did not persist the successor.
    """
    state = server_state(ctx)
    with tool_errors():
        scope = state.config.resolve_scope(successor.scope)
        record = await _record_from(state, successor, scope=scope)
        record["id"] = "mem-" + hashlib.sha256(json.dumps(
            ["supersede", state.config.agent, old_ids, reason, scope,
             successor.model_dump(mode="json")], sort_keys=True).encode()).hexdigest()[:32]
        memory = await state.memory()
        try:
            decision = await memory.supersede(old_ids, record, by=state.config.agent,
                                              reason=reason)
        except RecordConflictError as conflict:  # stored by this call before, at its time?
            try:
                stored = await memory.get(record["id"])
            except RecordNotFoundError:
                raise conflict from None
            decision = await memory.supersede(old_ids, {**record, "created_at": stored.created_at},
                                              by=state.config.agent, reason=reason)
        return WriteDecisionOut(id=decision.record_id, disposition=decision.disposition.value,
                                reason=decision.reason)


async def retract(
    ctx: Ctx,
    id: MemoryId,
    reason: Annotated[str, Field(min_length=1, description="Why it is withdrawn.")],
) -> RetractOut:
    """Retract a memory (a tombstone with who/why/when; it is never retrieved again).

    Raises:
        ToolError: unknown id, or a memory outside the principal.
    """
    state = server_state(ctx)
    with tool_errors():
        memory = await state.memory()
        await memory.retract(id, by=state.config.agent, reason=reason)
        record = await memory.get(id)
        explanation = await memory.explain(id, principal=state.config.principal,
                                           scope=record.scope)
        return RetractOut(id=id, status=explanation.status.value, reason=reason)


# -- read -------------------------------------------------------------------------------


async def recall(
    ctx: Ctx,
    goal: Annotated[str, Field(description="What the agent is trying to achieve now.")] = "",
    subtask: Annotated[str, Field(description="The current step.")] = "",
    last_observation: Annotated[str, Field(
        description="The latest tool output or message.")] = "",
    entities: Annotated[list[str] | None, Field(
        description="Names the decision is about (customers, files, services).")] = None,
    new_error: Annotated[bool, Field(description="Trigger: a new error just happened.")
                         ] = False,
    strategy_failed: Annotated[bool, Field(description="Trigger: the current approach "
                                                       "failed.")] = False,
    returning_entity: Annotated[bool, Field(description="Trigger: an entity seen before "
                                                        "came back.")] = False,
    needs_prior_context: Annotated[bool, Field(description="Trigger: the decision needs "
                                                           "earlier context.")] = False,
    due_cue: Annotated[bool, Field(description="Trigger: a deferred intention's cue "
                                               "arrived.")] = False,
    budget_chars: Annotated[int, Field(ge=0, description="Most characters of rendered "
                                                         "memory to return.")] = 4000,
    ranker: Annotated[Literal["bm25", "embedding", "hybrid"] | None, Field(
        description="Ranker (default bm25; embedding/hybrid need graphmem[embeddings]).")
    ] = None,
    scope: ScopeAdditions = None,
) -> RecallOut:
    """Retrieve the eligible memories that fit the budget, with every conflict among them.

    With no trigger set nothing is retrieved (the note says why).

    Raises:
        ToolError: authorization or validation errors.
    """
    from graphmem.read.steps import DecisionState

    state = server_state(ctx)
    with tool_errors():
        decision_state = {
            "memory_scope": state.config.resolve_scope(scope), "goal": goal,
            "subtask": subtask, "last_observation": last_observation,
            "entities": tuple(entities or ()), "new_error": new_error,
            "strategy_failed": strategy_failed, "returning_entity": returning_entity,
            "needs_prior_context": needs_prior_context, "due_cue": due_cue,
        }
        validated = DecisionState.model_validate(decision_state)
        result = await (await state.memory()).retrieve(
            validated, principal=state.config.principal, budget_chars=budget_chars,
            ranker=ranker)
        trace = result.trace
        note = " ".join(trace.notes)
        if trace.triggered and not result.memories:
            note = note or "no eligible memory matched the query"
        return RecallOut(
            retrieved=trace.triggered, retrieval_id=trace.retrieval_id,
            rendered=result.rendered or (note if not trace.triggered else ""),
            memories=[RecalledMemory(
                id=m.record.id, kind=m.record.kind.value, score=m.score,
                source=m.record.provenance.get("source", "unknown"),
                authority=m.record.authority.value, created_at=m.record.created_at)
                for m in result.memories],
            conflicts=[ConflictOut(key=c.key, record_ids=list(c.record_ids),
                                   values=list(c.values)) for c in result.conflicts],
            triggers=list(trace.triggers), note=note)


async def explain(ctx: Ctx, id: MemoryId, scope: ScopeAdditions = None) -> ExplainOut:
    """Why a memory is or is not retrievable for this server's principal and scope.

    Raises:
        ToolError: unknown id, or a scope outside the principal.
    """
    state = server_state(ctx)
    with tool_errors():
        resolved = state.config.resolve_scope(scope)
        e = await (await state.memory()).explain(id, principal=state.config.principal,
                                                 scope=resolved)
        return ExplainOut(id=e.record_id, status=e.status.value, reason=e.detail,
                          successors=list(e.successor_ids))


async def history(ctx: Ctx, id: MemoryId) -> HistoryOut:
    """A memory's declared transitions and write decisions, oldest first.

    Raises:
        ToolError: unknown id, or a memory outside the principal.
    """
    state = server_state(ctx)
    with tool_errors():
        transitions = await (await state.memory()).history(id)
        return HistoryOut(id=id, transitions=[TransitionOut.model_validate(t)
                                              for t in transitions])


Direction = Literal["up", "down", "both"]


async def lineage(
    ctx: Ctx,
    id: MemoryId,
    direction: Annotated[Direction, Field(
        description="up: what it comes from; down: what was derived from it.")] = "up",
    depth: Annotated[int | None, Field(ge=0, description="Most edges from the memory "
                                                         "(default: no limit).")] = None,
) -> LineageOut:
    """A memory's lineage as Mermaid text and node-link JSON (memories out of reach left
    out).

    Raises:
        ToolError: unknown id, or a memory outside the principal.
    """
    from graphmem.lineage import export, to_mermaid

    state = server_state(ctx)
    with tool_errors():
        graph = await (await state.memory()).lineage(id, direction, depth)
        data = json.loads(str(export(graph, "json")))
        return LineageOut(root=id, direction=direction, depth=depth,
                          mermaid=to_mermaid(graph), graph=data)


# -- prospective memory and attribution --------------------------------------------------


async def intend(
    ctx: Ctx,
    action: Annotated[str, Field(description="What to do when the cue arrives.")],
    cue_kind: Annotated[str, Field(description="The event key to watch, e.g. 'customer'.")],
    cue_value: Annotated[str, Field(description="The value that fires it, e.g. 'c-42'.")],
    expires_at: Annotated[datetime | None, Field(
        description=f"When the intention lapses; {AWARE_TIME}.")] = None,
    scope: ScopeAdditions = None,
) -> IntendOut:
    """Store a deferred intention that fires once when an event carries the cue.

    The same call again while its intention is still pending (a retry after a lost answer,
    or one sent while the first still runs) returns that intention with `created` false
    instead of a second one that would fire on the same event
    (docs/integrations/mcp.md#tools-and-resources, docs/spec/intentions.md#exactly-once).

    Raises:
        ToolError: validation or authorization errors (an expiry not in the future too);
            nothing is written.
    """
    from graphmem.intentions import coerce_intention  # the client's; loaded on first use

    state = server_state(ctx)
    with tool_errors():
        # as stored: the client confines it to the server's principal (Intentions.intend)
        resolved = state.config.principal.confine(state.config.resolve_scope(scope))
        memory = await state.memory()
        now = (await state.store()).clock()
        wanted = coerce_intention({
            "id": f"int-{uuid.uuid4().hex}", "action": action, "trigger_kind": cue_kind,
            "trigger_value": cue_value, "scope": resolved, "created_at": now,
            "expires_at": expires_at,
        })
        # one transaction under the scope's lock: concurrent retries store it once
        found, created = await memory.intentions.intend_unless_pending(wanted, now=now)
        return IntendOut(id=found, created=created)


async def process_event(
    ctx: Ctx,
    event: Annotated[dict[str, str], Field(
        description="The event's keys and values, e.g. {'customer': 'c-42'}.")],
    scope: ScopeAdditions = None,
) -> ProcessEventOut:
    """Fire the intentions this event makes due, exactly once, and return them.

    Raises:
        ToolError: authorization or validation errors.
    """
    state = server_state(ctx)
    with tool_errors():
        resolved = state.config.resolve_scope(scope)
        fired = await (await state.memory()).process_event(
            event, principal=state.config.principal, scope=resolved, by=state.config.agent)
        return ProcessEventOut(fired=[FiredIntention(
            id=i.id, action=i.action, cue_kind=i.trigger_kind, cue_value=i.trigger_value)
            for i in fired])


async def record_use(
    ctx: Ctx,
    retrieval_id: Annotated[str, Field(description="The retrieval_id recall returned.")],
    action_id: Annotated[str, Field(min_length=1, description="Your id for the action.")],
    memory_ids: Annotated[list[str], Field(description="The recalled memories it used.")],
    helped: Annotated[bool | None, Field(
        description="Whether they helped (omit when not measured).")] = None,
) -> RecordUseOut:
    """Log that an action used these recalled memories (closes the attribution loop).

    Raises:
        ToolError: unknown retrieval, ids it did not return, or another tenant's retrieval.
    """
    state = server_state(ctx)
    with tool_errors():
        await (await state.memory()).record_use(retrieval_id, action_id, memory_ids,
                                                helped=helped)
        return RecordUseOut(retrieval_id=retrieval_id, action_id=action_id,
                            memory_ids=memory_ids, helped=helped)
