"""``GraphmemMemoryStore``: graphmem as a Strands ``MemoryStore``.

Strands' ``MemoryManager`` plugin (``Agent(..., plugins=[MemoryManager(stores=[...])])``)
searches its stores before each model call and folds what they return into the model's input,
offers a ``search_memory`` tool (and, opted in, ``add_memory``), and, with extraction
configured on a store, hands it the conversation's messages (``add_messages``). A store is
one caller's: the agent's user, so this store is built for one user (and app) and maps them
onto graphmem with :mod:`graphmem.integrations.identity`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from strands.memory import (
    AddMessagesContext,
    ExtractionConfig,
    MemoryEntry,
    MemoryStore,
    SearchOptions,
)
from strands.types.content import Message

from graphmem.client import Memory
from graphmem.deletion import DeletionReport
from graphmem.errors import ValidationError
from graphmem.integrations.bridge import MemoryBridge, Turn, offload
from graphmem.integrations.identity import AgentIdentity
from graphmem.models import Authority, MemoryKind, Sensitivity

__all__ = ["GraphmemMemoryStore"]

#: ``add(content, metadata)`` keys the store reads (everything else is ignored).
ADD_KEYS = ("authority", "kind", "asserts", "asserted_value", "evidence_ids")


class GraphmemMemoryStore(MemoryStore):
    """A Strands ``MemoryStore`` on graphmem, for one user.

    - ``search(query, options)``: :meth:`graphmem.Memory.retrieve` in the user's scope
      (``needs_prior_context``; conflicts kept; within ``budget_chars``, at most
      ``max_search_results`` ranked memories): the conflict notes first (``Conflict on
      `seat`: m1 says window, m2 says aisle ...``, so a cap on entries never hides a conflict),
      then one entry per memory (``metadata``: id, kind, authority, score, asserted key).
    - ``add(content, metadata)`` (the ``add_memory`` tool, a client-side extractor): one memory
      through the write policy; ``metadata`` may set ``authority`` (default
      ``model_inferred``, which without ``evidence_ids`` is quarantined; capped by
      ``max_authority``), ``kind``, ``asserts``/``asserted_value``, ``evidence_ids``.
    - ``add_messages(messages, context)`` (server-side extraction, e.g. with
      ``extraction=ExtractionConfig(trigger=[InvocationTrigger()])``): the user's messages
      as ``human_instruction`` episodes, the agent's replies as ``model_inferred`` episodes
      derived from them (:mod:`graphmem.integrations.bridge`).
    - ``delete(memory_id)``: not part of Strands' interface (it has none); a lineage deletion,
      planned and applied (docs/spec/deletion.md).

    Args:
        memory: a connected :class:`graphmem.Memory`.
        tenant, user: graphmem's tenant and the user the memories belong to.
        app: an application name, scoped like the user (optional).
        agent: recorded as who wrote. session: the agent's session id, recorded on writes.
        name, description, max_search_results, writable, extraction: Strands'
            ``MemoryStoreConfig`` fields.
        clearance, max_authority, budget_chars, ranker: graphmem's (defaults ``normal``,
            ``human_instruction``, 4000 characters, BM25).

    Errors: every error out of the store is a :class:`graphmem.GraphmemError`.
    """

    def __init__(self, memory: Memory, *, tenant: str, user: str, app: str | None = None,
                 agent: str = "strands", session: str | None = None, name: str = "graphmem",
                 description: str | None = "The user's long-term memory (graphmem)",
                 max_search_results: int | None = None, writable: bool = True,
                 extraction: ExtractionConfig | bool | None = None,
                 clearance: Sensitivity | str = Sensitivity.NORMAL,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
                 budget_chars: int = 4000, ranker: str | None = None) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValidationError("a Strands memory store needs a non-empty name")
        if max_search_results is not None and (not isinstance(max_search_results, int)
                                               or max_search_results < 1):
            raise ValidationError("max_search_results must be an integer >= 1")
        self.name = name
        self.description = description
        self.max_search_results = max_search_results
        self.writable = writable
        self.extraction = extraction
        self.identity = AgentIdentity(tenant=tenant, user=user, app=app, agent=agent,
                                      session=session, framework="strands")
        self.bridge = MemoryBridge(memory, clearance=clearance, max_authority=max_authority,
                                   budget_chars=budget_chars, ranker=ranker)

    async def search(self, query: str, options: SearchOptions | None = None
                     ) -> list[MemoryEntry]:
        """The user's memories for ``query`` (class docstring)."""
        k = (options or {}).get("max_search_results") or self.max_search_results
        found = await offload(self.bridge.recall, self.identity, query, k=k)
        notes = [MemoryEntry(content=note, metadata={"note": "conflict"})
                 for note in found.notes]
        return notes + [MemoryEntry(content=m.record.content, metadata={
            "id": m.record.id, "kind": m.record.kind.value,
            "authority": m.record.authority.value, "score": m.score,
            **({"asserts": m.record.asserts, "asserted_value": m.record.asserted_value}
               if m.record.asserts else {})}) for m in found.retrieval.memories]

    async def add(self, content: str, metadata: dict[str, Any] | None = None) -> dict[str, str]:
        """One memory through the write policy (class docstring); returns its id, the
        disposition and the reason.

        Raises:
            ValidationError: empty content, metadata graphmem refuses, a read-only store.
            AuthorityCeilingError: an authority above the ceiling.
        """
        self._check_writable()
        meta = {k: v for k, v in (metadata or {}).items() if k in ADD_KEYS and v is not None}
        evidence = meta.pop("evidence_ids", ())
        if not isinstance(evidence, list | tuple) or not all(isinstance(i, str)
                                                             for i in evidence):
            raise ValidationError("evidence_ids must be a list of memory ids")
        decision = await offload(
            self.bridge.remember, self.identity, content,
            authority=meta.get("authority", Authority.MODEL_INFERRED),
            kind=meta.get("kind", MemoryKind.SEMANTIC), asserts=meta.get("asserts"),
            asserted_value=meta.get("asserted_value"), evidence_ids=tuple(evidence))
        return {"id": decision.record_id, "disposition": decision.disposition.value,
                "reason": decision.reason}

    async def add_messages(self, messages: list[Message],
                           context: AddMessagesContext | None = None) -> list[dict[str, str]]:
        """The conversation's messages through the write policy (class docstring); one
        decision per message with text."""
        self._check_writable()
        batch = uuid.uuid4().hex
        numbers = (context.sequence_numbers if context is not None
                   and context.sequence_numbers is not None else list(range(len(messages))))
        turns: list[Turn] = []
        for number, message in zip(numbers, messages, strict=False):
            text = _message_text(message)
            turns.append(Turn("user" if message.get("role") == "user" else "assistant",
                              text, f"{batch}:{number}"))
        decisions = await offload(self.bridge.remember_turns, self.identity, turns)
        return [{"id": d.record_id, "disposition": d.disposition.value, "reason": d.reason}
                for d in decisions]

    async def delete(self, memory_id: str | None) -> DeletionReport:
        """Delete a memory and everything derived from it (a lineage deletion, planned and
        applied); None: all of the user's memories (in ``app``).

        Raises:
            OutOfReachError: not one of this user's memories. AuthorizationError,
            DeletionError.
        """
        return await offload(self.bridge.forget, self.identity, memory_id,
                             reason="deleted through Strands")

    def _check_writable(self) -> None:
        if not self.writable:
            raise ValidationError(f"memory store {self.name!r} is not writable")


def _message_text(message: Message) -> str:
    """The text blocks of a Strands message, joined and stripped.

    Raises:
        ValidationError: content that is not a list of blocks (dicts), or a ``text`` block
            whose text is not a string (a raw TypeError otherwise).
    """
    content: object = message.get("content", [])
    # a tuple and read-only mappings were read before: only what never worked is refused
    if not isinstance(content, list | tuple) or not all(isinstance(b, Mapping)
                                                         for b in content):
        raise ValidationError("a Strands message's content must be a list of content blocks "
                              f"(dicts), got {type(content).__name__}")
    texts = [block["text"] for block in content if "text" in block]
    if not all(isinstance(t, str) for t in texts):
        raise ValidationError("a Strands message's text block must hold a string")
    return "\n".join(texts).strip()
