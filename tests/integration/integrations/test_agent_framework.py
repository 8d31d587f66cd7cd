"""``GraphmemContextProvider`` inside Microsoft Agent Framework: an ``Agent`` with the provider
and a scripted chat client (a ``BaseChatClient`` that answers canned text and keeps the
instructions and messages it was sent). No LLM, no network; graphmem on the real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

import pytest
from agent_framework import Agent, BaseChatClient, ChatResponse, ContextProvider, Message

from graphmem import Memory, OutOfReachError, Status, ValidationError
from graphmem.integrations.agent_framework import GraphmemContextProvider

pytestmark = pytest.mark.neo4j


class Scripted(BaseChatClient):
    """Answers ``reply``; keeps the instructions and message texts of each request."""

    def __init__(self, reply: str = "Noted.") -> None:
        super().__init__()
        self.reply = reply
        self.seen: list[str] = []

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool,
                            options: Mapping[str, Any], **kwargs: Any
                            ) -> Awaitable[ChatResponse]:
        async def answer() -> ChatResponse:
            self.seen.append("\n".join([str(options.get("instructions") or ""),
                                        *(m.text for m in messages)]))
            return ChatResponse(messages=[Message("assistant", [self.reply])])
        return answer()


def _provider(memory: Memory) -> GraphmemContextProvider:
    return GraphmemContextProvider(memory, tenant="acme", app="travel",
                                   user=lambda session: str(session.state["user_id"]))


def _run(agent: Agent, user: str, text: str) -> str:
    async def run() -> str:
        session = agent.create_session()
        session.state["user_id"] = user
        return (await agent.run(text, session=session)).text
    return asyncio.run(run())


def _agent(provider: GraphmemContextProvider, client: Scripted) -> Agent:
    return Agent(client=client, name="concierge", instructions="Help the traveller.",
                 context_providers=[provider])


def test_agent_framework_accepts_the_provider(memory: Memory) -> None:
    provider = _provider(memory)
    assert isinstance(provider, ContextProvider)
    agent = _agent(provider, Scripted())
    assert provider in agent.context_providers
    assert _run(agent, "u-17", "hello") == "Noted."


def test_a_run_is_recalled_in_the_next_for_its_user_only(memory: Memory) -> None:
    client = Scripted(reply="I will book a window seat for you.")
    agent = _agent(_provider(memory), client)
    _run(agent, "u-17", "I always want a window seat on long flights")
    _run(agent, "u-17", "Book my long flight to Lima")
    _run(agent, "u-99", "Book my long flight to Lima")
    first, same_user, other_user = client.seen
    assert "graphmem" not in first
    assert "I always want a window seat on long flights" in same_user
    assert "I will book a window seat for you." in same_user  # the reply, derived
    assert "window" not in other_user


def test_conflicting_memories_both_reach_the_model_with_a_note(memory: Memory) -> None:
    provider = _provider(memory)
    who = provider.identity(user="u-17")
    for value in ("window", "aisle"):
        provider.bridge.remember(who, f"Seat preference for flights: {value}", asserts="seat",
                                 asserted_value=value)
    client = Scripted()
    _run(_agent(provider, client), "u-17", "Which seat preference for my flights?")
    request = client.seen[0]
    assert "Seat preference for flights: window" in request
    assert "Seat preference for flights: aisle" in request
    assert "Conflict on `seat`" in request


def test_delete_memory_walks_the_lineage(memory: Memory) -> None:
    provider = _provider(memory)
    _run(_agent(provider, Scripted(reply="Vegetarian meals it is.")), "u-17",
         "Order vegetarian meals for me")
    mine = provider.bridge.client(provider.identity(user="u-17"))
    records = mine.candidates(scope={"tenant": "acme"})
    said = next(r for r in records if r.provenance["role"] == "user")
    reply = next(r for r in records if r.provenance["role"] == "assistant")
    assert reply.derived_from == (said.id,) and reply.provenance["agent"] == "concierge"
    with pytest.raises(OutOfReachError):
        asyncio.run(provider.delete_memory(said.id, user="u-99"))
    asyncio.run(provider.delete_memory(said.id, user="u-17"))
    for record in (said, reply):
        assert mine.explain(record.id, scope={"tenant": "acme"}).status is Status.ERASED


def test_errors_are_graphmem_errors(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        _run(_agent(_provider(memory), Scripted()), "", "hello")
    with pytest.raises(ValidationError):
        GraphmemContextProvider(memory, tenant=" ", user="u-17")
