"""``GraphmemMemory``: graphmem as a Pydantic AI capability.

A capability is Pydantic AI's unit of reusable agent behaviour (``Agent(...,
capabilities=[...])``): it contributes instructions, a toolset and run hooks. This one
contributes the caller's retrieved memories to the instructions of each run, the memory tools
``remember``, ``recall`` and ``explain``, and, after a run, writes what the run established
(the user's prompt and the model's answer) through graphmem's write policy
(:mod:`graphmem.integrations.bridge`). The caller is mapped onto graphmem by
:mod:`graphmem.integrations.identity`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.run import AgentRunResult
from pydantic_ai.toolsets import FunctionToolset

from graphmem.client import Memory
from graphmem.deletion import DeletionReport
from graphmem.errors import GraphmemError, ValidationError
from graphmem.integrations.bridge import MemoryBridge, Turn, offload
from graphmem.integrations.identity import AgentIdentity, user_of
from graphmem.models import Authority, Sensitivity

__all__ = ["GraphmemMemory"]

UserOf = Callable[[RunContext[Any]], str]
"""How a run names its user: from its dependencies, say ``lambda ctx: ctx.deps.user_id``."""

HEADER = ("Memories from earlier conversations with this user (graphmem). A note after "
          "memories that disagree says so: do not treat either side as settled.")


@dataclass
class GraphmemMemory(AbstractCapability[Any]):
    """Pydantic AI capability: graphmem memories in the instructions, memory tools, and
    write-back after each run.

    - **instructions**: at the start of each run, :meth:`graphmem.Memory.retrieve` for the
      run's prompt in the user's scope (``needs_prior_context``; conflicts kept, with their
      notes; within ``budget_chars``), rendered under a short header; nothing when nothing
      is found. Retrieved once per run (the capability's ``for_run`` copy keeps it).
    - **tools**: ``remember(content, asserts=, asserted_value=, authority=, evidence_ids=)``
      (through the write policy; ``model_inferred`` without evidence is quarantined),
      ``recall(query)`` (the rendered memories) and ``explain(memory_id)`` (why a memory is
      or is not used). A graphmem refusal is returned to the model as the tool's text.
    - **after the run** (``write_back``): the run's user prompts (``human_instruction``) and
      the model's text answers (``model_inferred``, derived from the prompt of their turn).

    Args:
        memory: a connected :class:`graphmem.Memory`.
        tenant: the graphmem tenant.
        user: the user's id, or a function of the run context giving it (from ``deps``).
        app: an application name, scoped like the user (optional).
        agent: recorded as who wrote (default ``"pydantic-ai"``).
        clearance, max_authority: the caller's clearance and authority ceiling (default
            ``normal`` and ``human_instruction``).
        budget_chars, k, ranker: of each retrieval.
        write_back: write the run's prompt and answer after it (default True).

    Errors: graphmem's (``ValidationError`` for an empty user, ``AuthorityCeilingError``,
    ``OutOfReachError``); never another exception type from graphmem's side.
    """

    memory: Memory = field(repr=False, kw_only=True)
    tenant: str = field(kw_only=True)
    user: str | UserOf = field(kw_only=True)
    app: str | None = field(default=None, kw_only=True)
    agent: str = field(default="pydantic-ai", kw_only=True)
    clearance: Sensitivity | str = field(default=Sensitivity.NORMAL, kw_only=True)
    max_authority: Authority | str = field(default=Authority.HUMAN_INSTRUCTION, kw_only=True)
    budget_chars: int = field(default=4000, kw_only=True)
    k: int = field(default=10, kw_only=True)
    ranker: str | None = field(default=None, kw_only=True)
    write_back: bool = field(default=True, kw_only=True)
    bridge: MemoryBridge = field(init=False, repr=False)
    _rendered: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.bridge = MemoryBridge(self.memory, clearance=self.clearance,
                                   max_authority=self.max_authority,
                                   budget_chars=self.budget_chars, k=self.k,
                                   ranker=self.ranker)
        AgentIdentity(tenant=self.tenant, user="-", app=self.app, agent=self.agent)  # checks

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a client: not spec-serialisable

    def identity(self, ctx: RunContext[Any] | None = None, *, user: str | None = None
                 ) -> AgentIdentity:
        """The graphmem caller of a run (its user, this capability's tenant and app; the
        run's conversation id as the session).

        Raises:
            ValidationError: no user (an empty one, or a function of the context without a
                context).
        """
        if user is None:
            if isinstance(self.user, str):
                user = self.user
            elif ctx is None:
                raise ValidationError("this capability's user comes from a run: pass user=")
            else:
                user = user_of(self.user, ctx)
        session = None if ctx is None else (ctx.conversation_id or ctx.run_id)
        return AgentIdentity(tenant=self.tenant, user=user, app=self.app, agent=self.agent,
                             session=session, framework="pydantic-ai")

    async def for_run(self, ctx: RunContext[Any]) -> GraphmemMemory:
        """A copy for one run, so its retrieval is made once and not shared."""
        run = dataclasses.replace(self)
        run.bridge = self.bridge
        return run

    def get_instructions(self) -> Callable[[RunContext[Any]], Any]:
        async def memories(ctx: RunContext[Any]) -> str:
            if self._rendered is None:
                query = _prompt_text(ctx.prompt)
                self._rendered = ""
                if query:
                    found = await offload(self.bridge.recall, self.identity(ctx), query)
                    if found.rendered:
                        self._rendered = f"{HEADER}\n\n{found.rendered}"
            return self._rendered

        return memories

    def get_toolset(self) -> FunctionToolset[Any]:
        tools: FunctionToolset[Any] = FunctionToolset()
        capability = self

        @tools.tool
        async def remember(ctx: RunContext[Any], content: str, asserts: str | None = None,
                           asserted_value: str | None = None,
                           authority: Literal["model_inferred", "human_instruction"]
                           = "model_inferred", evidence_ids: list[str] | None = None) -> str:
            """Propose a memory about this user; graphmem's write policy persists,
            quarantines or discards it. Use authority="human_instruction" for what the user
            told you; a model_inferred memory needs evidence_ids (ids of the memories it
            rests on) or it is quarantined. asserts/asserted_value: the key and value it
            sets (e.g. "seat", "window")."""
            try:
                decision = await offload(
                    capability.bridge.remember, capability.identity(ctx), content,
                    authority=authority, asserts=asserts, asserted_value=asserted_value,
                    evidence_ids=tuple(evidence_ids or ()))
            except GraphmemError as exc:
                return f"not remembered: {type(exc).__name__}: {exc}"
            return f"{decision.disposition.value} {decision.record_id}: {decision.reason}"

        @tools.tool
        async def recall(ctx: RunContext[Any], query: str) -> str:
            """Retrieve this user's memories relevant to the query, with notes on any that
            disagree."""
            try:
                found = await offload(capability.bridge.recall, capability.identity(ctx), query)
            except GraphmemError as exc:
                return f"recall failed: {type(exc).__name__}: {exc}"
            return found.rendered or "no memory matched"

        @tools.tool
        async def explain(ctx: RunContext[Any], memory_id: str) -> str:
            """Why a memory (by its id) is or is not used for this user now."""
            try:
                e = await offload(capability.bridge.explain, capability.identity(ctx),
                                  memory_id)
            except GraphmemError as exc:
                return f"cannot explain: {type(exc).__name__}: {exc}"
            return f"{e.status.value}: {e.detail}"

        return tools

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
                        ) -> AgentRunResult[Any]:
        if self.write_back:
            turns = _turns(result, ctx.run_id or "run")
            if turns:
                await offload(self.bridge.remember_turns, self.identity(ctx), turns)
        return result

    async def delete_memory(self, memory_id: str | None, *, user: str | None = None
                            ) -> DeletionReport:
        """Delete a memory and everything derived from it (a lineage deletion, planned and
        applied; docs/spec/deletion.md); None: every memory of the user (in ``app``).

        Args:
            memory_id: the memory's id (from ``recall`` or the instructions). user: whose
                (default: this capability's ``user`` when it is a string).

        Raises:
            OutOfReachError: not one of this user's memories. AuthorizationError,
            DeletionError, ValidationError.
        """
        return await offload(self.bridge.forget, self.identity(user=user), memory_id,
                             reason="deleted through Pydantic AI")


def _prompt_text(prompt: object) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list | tuple):
        return " ".join(p for p in prompt if isinstance(p, str))
    return ""


def _turns(result: AgentRunResult[Any], run_id: str) -> list[Turn]:
    """The run's prompts and text answers, in order."""
    turns: list[Turn] = []
    for i, message in enumerate(result.new_messages()):
        if isinstance(message, ModelRequest):
            for j, part in enumerate(message.parts):
                if isinstance(part, UserPromptPart):
                    text = _prompt_text(part.content)
                    turns.append(Turn("user", text, f"{run_id}:{i}:{j}", part.timestamp))
        elif isinstance(message, ModelResponse):
            text = "\n".join(p.content for p in message.parts if isinstance(p, TextPart))
            turns.append(Turn("assistant", text, f"{run_id}:{i}", message.timestamp))
    return turns
