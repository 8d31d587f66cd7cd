"""``GraphmemMemoryStore`` inside Strands: an ``Agent`` with a ``MemoryManager`` over the store
(injection before each model call, the ``search_memory`` tool, extraction after each
invocation) and a scripted ``Model`` that answers canned text and keeps what it was sent. No
LLM, no network; graphmem on the real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterable
from typing import Any

import pytest
from strands import Agent
from strands.memory import ExtractionConfig, InvocationTrigger, MemoryManager, MemoryStore
from strands.memory.types import _has_method
from strands.models.model import Model
from strands.types.content import Messages
from strands.types.streaming import StreamEvent

from graphmem import AuthorityCeilingError, Memory, OutOfReachError, Status, ValidationError
from graphmem.integrations.strands import GraphmemMemoryStore

pytestmark = pytest.mark.neo4j


class Scripted(Model):
    """Answers ``reply`` to everything; keeps the text of every request (messages and
    system prompt)."""

    def __init__(self, reply: str = "Noted.") -> None:
        self.reply = reply
        self.seen: list[str] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, output_model: Any, prompt: Messages,
                          system_prompt: str | None = None, **kwargs: Any
                          ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError

    async def stream(self, messages: Messages, tool_specs: Any = None,
                     system_prompt: str | None = None, **kwargs: Any
                     ) -> AsyncIterable[StreamEvent]:
        texts = [block["text"] for m in messages for block in m["content"] if "text" in block]
        self.seen.append("\n".join([system_prompt or "", *texts]))
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": self.reply}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def _store(memory: Memory, user: str) -> GraphmemMemoryStore:
    return GraphmemMemoryStore(memory, tenant="acme", user=user, app="travel",
                               extraction=ExtractionConfig(trigger=[InvocationTrigger()]))


def _agent(store: GraphmemMemoryStore, model: Scripted) -> Agent:
    return Agent(model=model, callback_handler=None,
                 memory_manager=MemoryManager(stores=[store]))


def test_strands_accepts_the_store(memory: Memory) -> None:
    store = _store(memory, "u-17")
    assert MemoryStore in type(store).__mro__  # a Protocol, not runtime-checkable
    # the manager sees both write sinks, so extraction hands the store raw messages
    assert _has_method(store, "add") and _has_method(store, "add_messages")
    agent = _agent(store, Scripted())
    assert "search_memory" in agent.tool_names


def test_a_run_is_recalled_in_the_next_for_its_user_only(memory: Memory) -> None:
    model = Scripted(reply="I will book a window seat for you.")
    _agent(_store(memory, "u-17"), model)("I always want a window seat on long flights")
    _agent(_store(memory, "u-17"), model)("Book my long window flight to Lima")
    _agent(_store(memory, "u-99"), model)("Book my long window flight to Lima")
    first, same_user, other_user = model.seen
    assert "<memory>" not in first
    assert "I always want a window seat on long flights" in same_user
    assert "I will book a window seat for you." in same_user  # the reply, derived
    assert "<memory>" not in other_user and "window seat" not in other_user


def test_conflicting_memories_both_reach_the_model_with_a_note(memory: Memory) -> None:
    store = _store(memory, "u-17")

    async def said() -> list[dict[str, str]]:
        return [await store.add(f"Seat preference for flights: {value}",
                                {"asserts": "seat", "asserted_value": value,
                                 "authority": "human_instruction"})
                for value in ("window", "aisle")]

    assert [d["disposition"] for d in asyncio.run(said())] == ["PERSIST", "PERSIST"]
    model = Scripted()
    _agent(store, model)("Which seat preference for my flights?")
    request = model.seen[0]
    assert "Seat preference for flights: window" in request
    assert "Seat preference for flights: aisle" in request
    assert "Conflict on `seat`" in request


def test_add_follows_the_write_policy_and_the_ceiling(memory: Memory) -> None:
    store = _store(memory, "u-17")
    inferred = asyncio.run(store.add("The user seems to like trains"))
    assert inferred["disposition"] == "QUARANTINE"
    with pytest.raises(AuthorityCeilingError):
        asyncio.run(store.add("x", {"authority": "authoritative_source"}))
    with pytest.raises(ValidationError):
        GraphmemMemoryStore(memory, tenant="acme", user="")


def test_delete_walks_the_lineage(memory: Memory) -> None:
    store = _store(memory, "u-17")
    _agent(store, Scripted(reply="Vegetarian meals it is."))("Order vegetarian meals for me")
    mine = store.bridge.client(store.identity)
    records = mine.candidates(scope={"tenant": "acme"})
    said = next(r for r in records if r.provenance["role"] == "user")
    reply = next(r for r in records if r.provenance["role"] == "assistant")
    assert reply.derived_from == (said.id,)
    with pytest.raises(OutOfReachError):
        asyncio.run(_store(memory, "u-99").delete(said.id))
    asyncio.run(store.delete(said.id))
    for record in (said, reply):
        assert mine.explain(record.id, scope={"tenant": "acme"}).status is Status.ERASED
