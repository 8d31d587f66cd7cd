"""``GraphmemMemoryService``: Google ADK's memory service on graphmem.

ADK hands a memory service whole sessions (``add_session_to_memory``, after a session or a
turn), event deltas (``add_events_to_memory``), explicit memories (``add_memory``), searches
(``search_memory``, from its ``load_memory`` and ``preload_memory`` tools) and deletions
(``delete_memory``). Each call names the app and the user: they become the caller's
tenant, scope and confined principal (:mod:`graphmem.integrations.identity`), and the calls
run through :class:`graphmem.integrations.bridge.MemoryBridge` on a worker thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from google.adk.memory import BaseMemoryService
from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from graphmem.client import Memory
from graphmem.errors import ValidationError
from graphmem.integrations.bridge import MemoryBridge, Turn, offload
from graphmem.integrations.identity import AgentIdentity
from graphmem.models import Authority, MemoryRecord, Sensitivity

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

__all__ = ["GraphmemMemoryService"]

#: ``MemoryEntry.custom_metadata`` keys ``add_memory`` reads (everything else is ignored).
ENTRY_KEYS = ("authority", "kind", "asserts", "asserted_value", "evidence_ids")


class GraphmemMemoryService(BaseMemoryService):
    """An ADK ``BaseMemoryService`` whose memories live in graphmem.

    - ``add_session_to_memory(session)`` / ``add_events_to_memory(...)``: each event with
      text is written through the write policy in the scope ``{tenant, app, user}`` of the
      session's app and user: the user's messages as ``human_instruction`` episodes, the
      agents' replies as ``model_inferred`` episodes derived from the user's messages of the
      turn (:mod:`graphmem.integrations.bridge`). Record ids are stable per event, so adding
      a session again stores nothing twice.
    - ``add_memory(...)``: each entry's text as one memory, by default a ``human_instruction``
      semantic memory; its ``custom_metadata`` may set ``authority`` (capped by
      ``max_authority``), ``kind``, ``asserts``/``asserted_value`` and ``evidence_ids``.
    - ``search_memory(app_name=, user_id=, query=)``: :meth:`graphmem.Memory.retrieve` in the
      user's scope (conflicts kept, within ``budget_chars``): one ``MemoryEntry`` per memory
      (``id`` the record id, ``custom_metadata`` its kind, authority, score and asserted key),
      then one per conflict note (author ``graphmem``), so the model reads both sides of a
      conflict and that they disagree.
    - ``delete_memory(app_name=, user_id=, memory_id=)``: a lineage deletion, planned and
      applied (docs/spec/deletion.md): the memory and everything derived from it (a reply
      derived from a user's message goes with it). ``memory_id=None`` deletes every memory
      of the user in this app.

    Args:
        memory: a connected :class:`graphmem.Memory`.
        tenant: the graphmem tenant (default: each call's app name).
        clearance: the highest sensitivity the app's users may see.
        max_authority: the authority ceiling of every write (default ``human_instruction``).
        budget_chars: characters of rendered memory a search returns. k: ranked memories
            kept. ranker: graphmem ranker name.

    Errors: every error out of this service is a :class:`graphmem.GraphmemError`
    (``ValidationError`` for an empty app or user, ``OutOfReachError`` for another user's
    memory id, ``AuthorityCeilingError`` for a claim above the ceiling).
    """

    def __init__(self, memory: Memory, *, tenant: str | None = None,
                 clearance: Sensitivity | str = Sensitivity.NORMAL,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
                 budget_chars: int = 4000, k: int = 10, ranker: str | None = None) -> None:
        super().__init__()
        self.bridge = MemoryBridge(memory, clearance=clearance, max_authority=max_authority,
                                   budget_chars=budget_chars, k=k, ranker=ranker)
        self.tenant = tenant

    def identity(self, app_name: str, user_id: str, session_id: str | None = None
                 ) -> AgentIdentity:
        """The graphmem caller of an ADK app and user (and session, for writes).

        Raises:
            ValidationError: an app name or user id that is not a non-empty string (an app
                of None would confine the caller to the user alone: every app's memories).
        """
        if not isinstance(app_name, str) or not app_name.strip():
            raise ValidationError(f"ADK's app_name must be a non-empty string, got "
                                  f"{app_name!r}")
        tenant = self.tenant if self.tenant is not None else app_name
        return AgentIdentity(tenant=tenant, user=user_id, app=app_name, agent="adk",
                             session=session_id, framework="adk")

    async def add_session_to_memory(self, session: Session) -> None:
        """Write the session's events through the write policy (class docstring)."""
        await self.add_events_to_memory(app_name=session.app_name, user_id=session.user_id,
                                        events=session.events, session_id=session.id)

    async def add_events_to_memory(
        self, *, app_name: str, user_id: str, events: Sequence[Event],
        session_id: str | None = None, custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Write these events (a delta or a whole session) through the write policy.
        ``custom_metadata`` is not used."""
        who = self.identity(app_name, user_id, session_id)
        turns = [turn for event in events if (turn := _turn(event)) is not None]
        await offload(self.bridge.remember_turns, who, turns)

    async def add_memory(
        self, *, app_name: str, user_id: str, memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Write each entry as one memory (class docstring); ``custom_metadata`` applies to
        every entry, an entry's own keys win.

        Raises:
            ValidationError: an entry without text, or metadata graphmem refuses.
            AuthorityCeilingError: an authority above the ceiling.
        """
        who = self.identity(app_name, user_id)
        for entry in memories:
            text = _text(entry.content)
            if not text:
                raise ValidationError("a memory entry needs text content")
            options = {**_options(custom_metadata or {}), **_options(entry.custom_metadata)}
            await offload(self.bridge.remember, who, text, key=entry.id, **options)

    async def search_memory(self, *, app_name: str, user_id: str, query: str
                            ) -> SearchMemoryResponse:
        """The user's memories for ``query``, budgeted, with conflict notes (class docstring)."""
        found = await offload(self.bridge.recall, self.identity(app_name, user_id), query)
        entries = [_entry(m.record, m.score) for m in found.retrieval.memories]
        entries += [MemoryEntry(content=types.Content(role="user",
                                                      parts=[types.Part(text=note)]),
                                author="graphmem", custom_metadata={"note": "conflict"})
                    for note in found.notes]
        return SearchMemoryResponse(memories=entries)

    async def delete_memory(self, *, app_name: str, user_id: str,
                            memory_id: str | None = None) -> None:
        """Delete the memory and what was derived from it; None: all of the user's memories
        in this app (a lineage deletion, planned and applied).

        Raises:
            OutOfReachError: no such memory for this user. AuthorizationError, DeletionError.
        """
        await offload(self.bridge.forget, self.identity(app_name, user_id), memory_id,
                      reason=f"ADK delete_memory for app {app_name}")


def _text(content: types.Content | None) -> str:
    """The text parts of a message, thoughts left out."""
    if content is None or not content.parts:
        return ""
    return "\n".join(p.text for p in content.parts if p.text and not p.thought).strip()


def _turn(event: Event) -> Turn | None:
    text = _text(event.content)
    if not text:
        return None
    user = event.author == "user"
    return Turn(role="user" if user else "assistant", text=text, key=f"event:{event.id}",
                at=_event_time(event), agent=None if user else event.author)


def _event_time(event: Event) -> datetime:
    """The event's time (ADK's POSIX seconds) as aware UTC.

    Raises:
        ValidationError: NaN, infinite, or outside the years 1-9999 (a raw ValueError or
            OverflowError from ``fromtimestamp`` otherwise).
    """
    try:
        return datetime.fromtimestamp(event.timestamp, UTC)
    except (ValueError, OverflowError, OSError):
        raise ValidationError(f"ADK event {event.id!r} has a timestamp no UTC time holds: "
                              f"{event.timestamp!r}") from None


def _options(metadata: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: metadata[k] for k in ENTRY_KEYS if metadata.get(k) is not None}
    if "evidence_ids" in out:
        ids = out["evidence_ids"]
        if not isinstance(ids, list | tuple) or not all(isinstance(i, str) for i in ids):
            raise ValidationError("evidence_ids must be a list of memory ids")
    return out


def _entry(record: MemoryRecord, score: float) -> MemoryEntry:
    role = record.provenance.get("role")
    author = "user" if role == "user" else record.provenance.get("agent",
                                                                 record.provenance.get("source"))
    meta: dict[str, Any] = {"kind": record.kind.value, "authority": record.authority.value,
                            "score": score}
    if record.asserts is not None:
        meta.update(asserts=record.asserts, asserted_value=record.asserted_value)
    return MemoryEntry(
        id=record.id, author=author, timestamp=record.created_at.isoformat(),
        content=types.Content(role="user" if role == "user" else "model",
                              parts=[types.Part(text=record.content)]),
        custom_metadata=meta)
