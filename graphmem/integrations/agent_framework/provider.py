"""``GraphmemContextProvider``: graphmem as a Microsoft Agent Framework context provider.

Agent Framework runs each ``ContextProvider`` of an agent around every invocation:
``before_run`` may add instructions, messages and tools to the invocation's
``SessionContext``; ``after_run`` sees the response. (The installed ``agent-framework-core``
names the base class ``ContextProvider``; older previews called it ``BaseContextProvider``.)
The caller is mapped onto graphmem by :mod:`graphmem.integrations.identity`; the calls run
through :class:`graphmem.integrations.bridge.MemoryBridge` on a worker thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from agent_framework import AgentSession, ContextProvider, Message, SessionContext

from graphmem.client import Memory
from graphmem.deletion import DeletionReport
from graphmem.errors import ValidationError
from graphmem.integrations.bridge import MemoryBridge, Turn, offload
from graphmem.integrations.identity import AgentIdentity, user_of
from graphmem.models import Authority, Sensitivity

__all__ = ["GraphmemContextProvider"]

UserOf = Callable[[AgentSession], str]
"""How a session names its user: say ``lambda session: session.state["user_id"]``."""

HEADER = ("Memories from earlier conversations with this user (graphmem). A note after "
          "memories that disagree says so: do not treat either side as settled.")


class GraphmemContextProvider(ContextProvider):
    """An Agent Framework ``ContextProvider`` whose memories live in graphmem.

    - ``before_run``: :meth:`graphmem.Memory.retrieve` for the invocation's user messages in
      the user's scope (``needs_prior_context``; conflicts kept, with their notes; within
      ``budget_chars``), added to the invocation's instructions under a short header;
      nothing when nothing matched.
    - ``after_run``: the invocation's user messages (``human_instruction`` episodes) and the
      response's text (``model_inferred`` episodes derived from them) through the write
      policy (:mod:`graphmem.integrations.bridge`), unless ``write_back`` is False.
    - :meth:`delete_memory`: a lineage deletion, planned and applied (docs/spec/deletion.md).

    Args:
        memory: a connected :class:`graphmem.Memory`.
        tenant: the graphmem tenant.
        user: the user's id, or a function of the ``AgentSession`` giving it.
        app: an application name, scoped like the user (optional).
        source_id: the provider's id in the agent (default ``"graphmem"``).
        clearance, max_authority: the caller's clearance and authority ceiling (default
            ``normal`` and ``human_instruction``).
        budget_chars, k, ranker: of each retrieval. write_back: write each invocation.

    The agent's ``name`` is recorded as who wrote, the session's id as the session.
    Errors: every error out of the provider is a :class:`graphmem.GraphmemError`.
    """

    def __init__(self, memory: Memory, *, tenant: str, user: str | UserOf,
                 app: str | None = None, source_id: str = "graphmem",
                 clearance: Sensitivity | str = Sensitivity.NORMAL,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
                 budget_chars: int = 4000, k: int = 10, ranker: str | None = None,
                 write_back: bool = True) -> None:
        super().__init__(source_id)
        self.bridge = MemoryBridge(memory, clearance=clearance, max_authority=max_authority,
                                   budget_chars=budget_chars, k=k, ranker=ranker)
        AgentIdentity(tenant=tenant, user="-", app=app)  # checks tenant and app now
        self.tenant, self.user, self.app, self.write_back = tenant, user, app, write_back

    def identity(self, session: AgentSession | None = None, *, agent: str | None = None,
                 user: str | None = None) -> AgentIdentity:
        """The graphmem caller of a session (its user, this provider's tenant and app).

        Raises:
            ValidationError: no user (empty, or a function of a session without one).
        """
        if user is None:
            if isinstance(self.user, str):
                user = self.user
            elif session is None:
                raise ValidationError("this provider's user comes from a session: pass user=")
            else:
                user = user_of(self.user, session)
        return AgentIdentity(tenant=self.tenant, user=user, app=self.app,
                             agent=agent or "agent-framework",
                             session=None if session is None else session.session_id,
                             framework="agent-framework")

    async def before_run(self, *, agent: Any, session: AgentSession, context: SessionContext,
                         state: dict[str, Any]) -> None:
        """Add the user's memories for this invocation to its instructions."""
        query = "\n".join(m.text for m in context.input_messages
                          if m.role == "user" and m.text).strip()
        if not query:
            return
        who = self.identity(session, agent=getattr(agent, "name", None))
        found = await offload(self.bridge.recall, who, query)
        if found.rendered:
            context.extend_instructions(self.source_id, f"{HEADER}\n\n{found.rendered}")

    async def after_run(self, *, agent: Any, session: AgentSession, context: SessionContext,
                        state: dict[str, Any]) -> None:
        """Write what the invocation established (class docstring)."""
        if not self.write_back:
            return
        response = context.response
        messages: list[Message] = [*context.input_messages,
                                   *(response.messages if response is not None else ())]
        batch = uuid.uuid4().hex
        turns = [Turn("user" if m.role == "user" else "assistant", m.text,
                      f"{batch}:{i}")
                 for i, m in enumerate(messages) if m.role in ("user", "assistant")]
        if turns:
            who = self.identity(session, agent=getattr(agent, "name", None))
            await offload(self.bridge.remember_turns, who, turns)

    async def delete_memory(self, memory_id: str | None, *, user: str | None = None
                            ) -> DeletionReport:
        """Delete a memory and everything derived from it (a lineage deletion, planned and
        applied); None: every memory of the user (in ``app``).

        Args:
            memory_id: the memory's id. user: whose (default: this provider's ``user`` when
                it is a string).

        Raises:
            OutOfReachError: not one of this user's memories. AuthorizationError,
            DeletionError, ValidationError.
        """
        return await offload(self.bridge.forget, self.identity(user=user), memory_id,
                             reason="deleted through Agent Framework")
