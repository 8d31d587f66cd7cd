"""``GraphmemMemory`` inside Pydantic AI: an ``Agent`` with the capability and a
``FunctionModel`` that scripts the model's answers and tool calls and keeps the instructions
it was sent (Pydantic AI's own test model). No LLM, no network; graphmem on the real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from graphmem import Memory, OutOfReachError, Status, ValidationError
from graphmem.integrations.pydantic_ai import GraphmemMemory

pytestmark = pytest.mark.neo4j

Script = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


class Scripted:
    """A FunctionModel's function: answers ``reply``, or first makes ``calls`` (tool name,
    arguments) and then answers; keeps the instructions and tool results it was sent."""

    def __init__(self, reply: str = "Noted.",
                 calls: tuple[tuple[str, dict[str, object]], ...] = ()) -> None:
        self.reply, self.calls = reply, calls
        self.instructions: list[str] = []
        self.tool_results: list[str] = []
        self.tools: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.instructions.append(info.instructions or "")
        self.tools = sorted(t.name for t in info.function_tools)
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)] \
            if isinstance(last, ModelRequest) else []
        self.tool_results += [str(p.content) for p in returned]
        if self.calls and not returned:
            return ModelResponse(parts=[ToolCallPart(name, args)
                                        for name, args in self.calls])
        return ModelResponse(parts=[TextPart(self.reply)])


def _run(agent: Agent[str, str], prompt: str, *, deps: str) -> str:
    """One run, on an event loop of its own that is closed after it."""
    return asyncio.run(agent.run(prompt, deps=deps)).output


def _agent(memory: Memory, script: Scripted) -> tuple[Agent[str, str], GraphmemMemory]:
    capability = GraphmemMemory(memory=memory, tenant="acme", user=lambda ctx: ctx.deps,
                                app="travel")
    return Agent(FunctionModel(script), deps_type=str, capabilities=[capability]), capability


def test_pydantic_ai_accepts_the_capability(memory: Memory) -> None:
    agent, capability = _agent(memory, Scripted())
    assert isinstance(capability, AbstractCapability)
    script = Scripted()
    agent = Agent(FunctionModel(script), deps_type=str, capabilities=[capability])
    _run(agent, "hello", deps="u-17")
    assert script.instructions == [""]  # nothing remembered yet: no memory instructions
    assert script.tools == ["explain", "recall", "remember"]


def test_a_run_is_recalled_in_the_next_for_its_user_only(memory: Memory) -> None:
    script = Scripted(reply="I will book a window seat for you.")
    agent, _ = _agent(memory, script)
    _run(agent, "I always want a window seat on long flights", deps="u-17")
    _run(agent, "Book my long flight to Lima", deps="u-17")
    _run(agent, "Book my long flight to Lima", deps="u-99")
    first, same_user, other_user = script.instructions
    assert "window seat" not in first
    assert "I always want a window seat on long flights" in same_user
    assert "I will book a window seat for you." in same_user  # the answer, derived
    assert "window" not in other_user


def test_the_memory_tools_write_through_the_policy_and_conflicts_reach_the_model(
        memory: Memory) -> None:
    script = Scripted(calls=(
        ("remember", {"content": "Seat preference for flights: window", "asserts": "seat",
                      "asserted_value": "window", "authority": "human_instruction"}),
        ("remember", {"content": "Seat preference for flights: aisle", "asserts": "seat",
                      "asserted_value": "aisle", "authority": "human_instruction"}),
        ("remember", {"content": "The user seems to like trains"}),  # inferred, no evidence
    ))
    agent, _ = _agent(memory, script)
    _run(agent, "Remember my seat preferences", deps="u-17")
    persisted, persisted_too, quarantined = script.tool_results
    assert persisted.startswith("PERSIST") and persisted_too.startswith("PERSIST")
    assert quarantined.startswith("QUARANTINE")

    asking = Scripted(calls=(("recall", {"query": "seat preference flights"}),))
    agent, _ = _agent(memory, asking)
    _run(agent, "Which seat preference for my flights?", deps="u-17")
    instructions = asking.instructions[0]
    for seen in (instructions, asking.tool_results[0]):
        assert "Seat preference for flights: window" in seen
        assert "Seat preference for flights: aisle" in seen
        assert "Conflict on `seat`" in seen
    assert "trains" not in instructions


def test_explain_and_delete_walk_the_callers_reach_and_the_lineage(memory: Memory) -> None:
    agent, capability = _agent(memory, Scripted(reply="Vegetarian meals it is."))
    _run(agent, "Order vegetarian meals for me", deps="u-17")
    mine = capability.bridge.client(capability.identity(user="u-17"))
    records = mine.candidates(scope={"tenant": "acme"})
    said = next(r for r in records if r.provenance["role"] == "user")
    reply = next(r for r in records if r.provenance["role"] == "assistant")
    assert reply.derived_from == (said.id,)

    other = Scripted(calls=(("explain", {"memory_id": said.id}),))
    agent_other, _ = _agent(memory, other)
    _run(agent_other, "why?", deps="u-99")
    assert other.tool_results[0].startswith("UNAUTHORIZED")

    with pytest.raises(OutOfReachError):
        asyncio.run(capability.delete_memory(said.id, user="u-99"))
    asyncio.run(capability.delete_memory(said.id, user="u-17"))
    for record in (said, reply):
        assert mine.explain(record.id, scope={"tenant": "acme"}).status is Status.ERASED


def test_errors_are_graphmem_errors(memory: Memory) -> None:
    agent, _ = _agent(memory, Scripted())
    with pytest.raises(ValidationError):
        _run(agent, "hello", deps="")
    failing = GraphmemMemory(memory=memory, tenant="acme", user=lambda ctx: ctx.deps["id"])
    with pytest.raises(ValidationError):  # the application's function fails: typed
        _run(Agent(FunctionModel(Scripted()), deps_type=str, capabilities=[failing]), "hi",
             deps="u-17")
    with pytest.raises(ValidationError):
        GraphmemMemory(memory=memory, tenant="", user="u-17")
