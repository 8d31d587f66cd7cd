"""``GraphmemMemoryService`` inside Google ADK: a ``Runner`` with an ``LlmAgent`` whose model is
scripted (a ``BaseLlm`` that answers canned text and keeps every request it was sent) and
ADK's own ``PreloadMemoryTool``, which puts ``search_memory``'s entries into each request. No
LLM, no network; graphmem on the real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import LlmAgent
from google.adk.memory import BaseMemoryService
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.preload_memory_tool import PreloadMemoryTool
from google.genai import types
from pydantic import Field

from graphmem import AuthorityCeilingError, Memory, OutOfReachError, Status, ValidationError
from graphmem.integrations.adk import GraphmemMemoryService

pytestmark = pytest.mark.neo4j

APP = "travel"


class ScriptedLlm(BaseLlm):
    """A model that answers ``reply`` to everything and keeps the text of each request."""

    model: str = "scripted"
    reply: str = "Noted."
    seen: list[str] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        texts = [p.text for c in llm_request.contents for p in c.parts or () if p.text]
        self.seen.append("\n".join(texts))
        yield LlmResponse(content=types.Content(role="model",
                                                parts=[types.Part(text=self.reply)]))


def _runner(service: GraphmemMemoryService, llm: ScriptedLlm) -> Runner:
    agent = LlmAgent(name="concierge", model=llm, instruction="Help the traveller.",
                     tools=[PreloadMemoryTool()])
    return Runner(app_name=APP, agent=agent, session_service=InMemorySessionService(),
                  memory_service=service)


async def _turn(runner: Runner, user: str, text: str, *, remember: bool = True) -> None:
    """One session of one turn for ``user``; the session is then added to memory, as an ADK
    app does at the end of a session."""
    session = await runner.session_service.create_session(app_name=APP, user_id=user)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
        pass
    done = await runner.session_service.get_session(app_name=APP, user_id=user,
                                                   session_id=session.id)
    assert done is not None and runner.memory_service is not None
    if remember:
        await runner.memory_service.add_session_to_memory(done)


def _as(service: GraphmemMemoryService, user: str) -> Memory:
    """The client the service uses for ``user`` of the app."""
    return service.bridge.client(service.identity(APP, user))


def test_adk_accepts_the_service_as_its_memory_service(memory: Memory) -> None:
    service = GraphmemMemoryService(memory)
    assert isinstance(service, BaseMemoryService)
    runner = _runner(service, ScriptedLlm())
    assert runner.memory_service is service


def test_a_session_is_recalled_in_the_next_for_its_user_only(memory: Memory) -> None:
    llm = ScriptedLlm(reply="I will book a window seat for you.", seen=[])
    runner = _runner(GraphmemMemoryService(memory), llm)

    async def scenario() -> None:
        await _turn(runner, "u-17", "I always want a window seat on long flights")
        await _turn(runner, "u-17", "Book my long flight to Lima", remember=False)
        await _turn(runner, "u-99", "Book my long flight to Lima", remember=False)

    asyncio.run(scenario())
    first, same_user, other_user = llm.seen
    assert "PAST_CONVERSATIONS" not in first  # nothing remembered yet
    assert "PAST_CONVERSATIONS" in same_user
    assert "I always want a window seat on long flights" in same_user
    assert "I will book a window seat for you." in same_user  # the reply, derived
    assert "window" not in other_user and "PAST_CONVERSATIONS" not in other_user


def test_adding_a_session_again_stores_nothing_twice(memory: Memory) -> None:
    service = GraphmemMemoryService(memory)
    runner = _runner(service, ScriptedLlm(seen=[]))

    async def scenario() -> list[str]:
        session = await runner.session_service.create_session(app_name=APP, user_id="u-17")
        message = types.Content(role="user", parts=[types.Part(text="I like quiet hotels")])
        async for _ in runner.run_async(user_id="u-17", session_id=session.id,
                                        new_message=message):
            pass
        done = await runner.session_service.get_session(app_name=APP, user_id="u-17",
                                                       session_id=session.id)
        assert done is not None
        await service.add_session_to_memory(done)
        await service.add_session_to_memory(done)
        return [r.id for r in _as(service, "u-17").candidates(scope={"tenant": APP})]

    ids = asyncio.run(scenario())
    assert len(ids) == 2  # the message and the reply, once each


def test_conflicting_memories_both_reach_the_model_with_a_note(memory: Memory) -> None:
    service = GraphmemMemoryService(memory)
    llm = ScriptedLlm(seen=[])
    runner = _runner(service, llm)

    def said(text: str, value: str) -> MemoryEntry:
        return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]),
                           custom_metadata={"asserts": "seat", "asserted_value": value})

    async def scenario() -> None:
        await service.add_memory(app_name=APP, user_id="u-17", memories=[
            said("Seat preference for flights: window", "window"),
            said("Seat preference for flights: aisle", "aisle")])
        await _turn(runner, "u-17", "Which seat preference for my flights?", remember=False)

    asyncio.run(scenario())
    (request,) = llm.seen
    assert "Seat preference for flights: window" in request
    assert "Seat preference for flights: aisle" in request
    assert "Conflict on `seat`" in request


def test_delete_memory_walks_the_lineage(memory: Memory) -> None:
    service = GraphmemMemoryService(memory)
    runner = _runner(service, ScriptedLlm(reply="Vegetarian meals it is.", seen=[]))

    async def scenario() -> tuple[list[MemoryEntry], list[MemoryEntry]]:
        await _turn(runner, "u-17", "Order vegetarian meals for me")
        before = await service.search_memory(app_name=APP, user_id="u-17",
                                             query="vegetarian meals")
        said = next(m for m in before.memories if m.author == "user")
        with pytest.raises(OutOfReachError):  # another user cannot delete it
            await service.delete_memory(app_name=APP, user_id="u-99", memory_id=said.id)
        await service.delete_memory(app_name=APP, user_id="u-17", memory_id=said.id)
        after = await service.search_memory(app_name=APP, user_id="u-17",
                                            query="vegetarian meals")
        return before.memories, after.memories

    before, after = asyncio.run(scenario())
    assert {m.author for m in before} == {"user", "concierge"}
    assert after == []
    for entry in before:  # the user's message and the reply derived from it
        assert entry.id is not None
        assert _as(service, "u-17").explain(entry.id, scope={"tenant": APP}).status \
            is Status.ERASED


def test_errors_are_graphmem_errors(memory: Memory) -> None:
    service = GraphmemMemoryService(memory)

    async def empty_user() -> None:
        await service.search_memory(app_name=APP, user_id="", query="x")

    async def above_ceiling() -> None:
        entry = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text="x")]),
                            custom_metadata={"authority": "authoritative_source"})
        await service.add_memory(app_name=APP, user_id="u-17", memories=[entry])

    async def bad(metadata: dict[str, object]) -> None:
        entry = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text="x")]),
                            custom_metadata=metadata)
        await service.add_memory(app_name=APP, user_id="u-17", memories=[entry])

    with pytest.raises(ValidationError):
        asyncio.run(empty_user())
    with pytest.raises(AuthorityCeilingError):
        asyncio.run(above_ceiling())
    cases: list[dict[str, object]] = [{"authority": "bogus"}, {"kind": "nope"},
                                      {"evidence_ids": "m1"}, {"asserted_value": "v"}]
    for metadata in cases:
        with pytest.raises(ValidationError):
            asyncio.run(bad(metadata))
    assert _as(service, "u-17").candidates(scope={"tenant": APP}) == []




def test_an_app_name_that_is_no_string_is_refused_not_read_as_every_app(memory: Memory
                                                                        ) -> None:
    """With a fixed tenant the app is the one scope key between two apps of a user: an
    ``app_name`` of None made a principal confined to the user alone, reaching the user's
    memories of every app (and writing outside any)."""
    service = GraphmemMemoryService(memory, tenant="acme")

    async def remember(app: object) -> None:
        entry = MemoryEntry(content=types.Content(
            role="user", parts=[types.Part(text="my locker code is 4711")]))
        await service.add_memory(app_name=app, user_id="u-17",  # type: ignore[arg-type]
                                 memories=[entry])

    async def search(app: object) -> list[MemoryEntry]:
        found = await service.search_memory(app_name=app,  # type: ignore[arg-type]
                                            user_id="u-17", query="locker code")
        return list(found.memories)

    asyncio.run(remember("gym-app"))
    assert len(asyncio.run(search("gym-app"))) == 1
    assert asyncio.run(search("chat-app")) == []
    for app in (None, 7):
        with pytest.raises(ValidationError, match="app"):
            asyncio.run(search(app))
        with pytest.raises(ValidationError, match="app"):
            asyncio.run(remember(app))
    assert len(memory.candidates(principal=service.identity("gym-app", "u-17").principal(),
                                 scope={"tenant": "acme"})) == 1


def test_events_written_without_then_with_their_session_are_stored_once(memory: Memory
                                                                          ) -> None:
    """An app that adds a session's events as they come (no session id) and the whole session
    at its end writes each event once; a different text under an event id stays a conflict."""
    from google.adk.events import Event

    from graphmem import RecordConflictError

    service = GraphmemMemoryService(memory)

    def event(eid: str, author: str, text: str, at: float) -> Event:
        return Event(id=eid, invocation_id="inv-1", author=author, timestamp=at,
                     content=types.Content(role="user" if author == "user" else "model",
                                           parts=[types.Part(text=text)]))

    events = [event("e-1", "user", "I like quiet hotels", 1_700_000_000.0),
              event("e-2", "concierge", "Noted: quiet hotels.", 1_700_000_001.0)]

    async def scenario() -> list[str]:
        await service.add_events_to_memory(app_name=APP, user_id="u-17", events=events)
        await service.add_events_to_memory(app_name=APP, user_id="u-17", events=events,
                                           session_id="s-1")
        await service.add_events_to_memory(app_name=APP, user_id="u-17", events=events,
                                           session_id="s-2")
        return [r.id for r in _as(service, "u-17").candidates(scope={"tenant": APP})]

    ids = asyncio.run(scenario())
    assert len(ids) == 2
    stored = [_as(service, "u-17").get(i) for i in ids]
    assert all("session" not in r.provenance for r in stored)  # as first stored
    changed = [event("e-1", "user", "I like loud hotels", 1_700_000_000.0)]
    with pytest.raises(RecordConflictError):
        asyncio.run(service.add_events_to_memory(app_name=APP, user_id="u-17",
                                                 events=changed, session_id="s-1"))


def test_a_memory_entry_added_again_later_is_stored_once(memory: Memory) -> None:
    """``add_memory`` of an entry with an id is an idempotent write (the bridge's ``key``);
    its record is stamped with the clock, so adding it again a moment later (a retry, a
    re-sync) was a RecordConflictError "these ids already exist with different content"
    about the same text. A different text under the id stays a conflict."""
    from graphmem import RecordConflictError

    service = GraphmemMemoryService(memory)

    def entry(text: str) -> MemoryEntry:
        return MemoryEntry(id="fact-1", content=types.Content(
            role="user", parts=[types.Part(text=text)]))

    async def scenario() -> list[str]:
        await service.add_memory(app_name=APP, user_id="u-17", memories=[entry("tea")])
        await asyncio.sleep(0.01)
        await service.add_memory(app_name=APP, user_id="u-17", memories=[entry("tea")])
        return [r.id for r in _as(service, "u-17").candidates(scope={"tenant": APP})]

    ids = asyncio.run(scenario())
    assert len(ids) == 1
    assert [h["kind"] for h in _as(service, "u-17").history(ids[0])] == [
        "write:PERSIST", "write:DISCARD"]
    with pytest.raises(RecordConflictError):
        asyncio.run(service.add_memory(app_name=APP, user_id="u-17",
                                       memories=[entry("coffee")]))
