"""What the framework adapters write from a user's memories is reached by the erasure of those
memories (docs/spec/deletion.md): a memory an agent proposes resting on others (``evidence_ids``:
the Pydantic AI ``remember`` tool, ADK's ``add_memory``, the Strands ``add``) is derived from
them, so a lineage deletion of what it rests on walks to it; and an erasure by term leaves the
name in nothing any adapter wrote. Each adapter is driven as its users drive it, with its own
test model where it runs one; no LLM."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from graphmem import Memory, Principal, Status
from graphmem.client import store_of
from graphmem.integrations.adk import GraphmemMemoryService
from graphmem.integrations.bridge import Turn
from graphmem.integrations.identity import AgentIdentity
from graphmem.integrations.pydantic_ai import GraphmemMemory
from graphmem.integrations.strands import GraphmemMemoryStore

pytestmark = pytest.mark.neo4j

NAME = "Jane Roe"
SAID = f"My name is {NAME} and I fly to Lima"
INFERRED = f"The user is called {NAME}"
USER = {"tenant": "acme", "app": "travel", "user": "u-17"}


def _holders(memory: Memory) -> list[str]:
    """Every node or relationship of the whole database with a string property holding the
    name (an independent scan, case-insensitive)."""
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props "
        "UNION ALL MATCH ()-[e]->() RETURN [type(e)] AS labels, properties(e) AS props",
        database_=store_of(memory).database)
    low = NAME.lower()
    return sorted(f"{'/'.join(row['labels'])}.{key}" for row in rows
                  for key, value in row["props"].items()
                  if any(low in t.lower() for t in ([value] if isinstance(value, str) else
                                                    [v for v in value if isinstance(v, str)]
                                                    if isinstance(value, list) else [])))


def _pydantic(memory: Memory, said: str) -> tuple[str, Callable[[], None]]:
    """The ``remember`` tool, called by the model with the user's message as evidence."""
    capability = GraphmemMemory(memory=memory, tenant="acme", user="u-17", app="travel")
    results: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)] \
            if isinstance(last, ModelRequest) else []
        if returned:
            results.extend(str(p.content) for p in returned)
            return ModelResponse(parts=[TextPart("Noted.")])
        return ModelResponse(parts=[ToolCallPart("remember", {
            "content": INFERRED, "evidence_ids": [said]})])

    agent = Agent(FunctionModel(script), capabilities=[capability])
    asyncio.run(agent.run("What do you know about me?"))
    assert results and results[0].startswith("PERSIST"), results

    def forget() -> None:
        asyncio.run(capability.delete_memory(said))

    return results[0].split()[1].rstrip(":"), forget


def _adk(memory: Memory, said: str) -> tuple[str, Callable[[], None]]:
    service = GraphmemMemoryService(memory, tenant="acme")
    entry = MemoryEntry(id="inferred-1", content=types.Content(
        role="user", parts=[types.Part(text=INFERRED)]),
        custom_metadata={"authority": "model_inferred", "evidence_ids": [said]})
    asyncio.run(service.add_memory(app_name="travel", user_id="u-17", memories=[entry]))
    mine = service.bridge.client(service.identity("travel", "u-17"))
    found = [r.id for r in mine.candidates(scope={"tenant": "acme"}) if r.content == INFERRED]
    assert len(found) == 1
    return found[0], lambda: asyncio.run(service.delete_memory(
        app_name="travel", user_id="u-17", memory_id=said))


def _strands(memory: Memory, said: str) -> tuple[str, Callable[[], None]]:
    store = GraphmemMemoryStore(memory, tenant="acme", user="u-17", app="travel")
    added = asyncio.run(store.add(INFERRED, {"evidence_ids": [said]}))
    assert added["disposition"] == "PERSIST", added

    def forget() -> None:
        asyncio.run(store.delete(said))

    return added["id"], forget


ADAPTERS = {"pydantic-ai": ("pydantic-ai", _pydantic), "adk": ("adk", _adk),
            "strands": ("strands", _strands)}


def _said(memory: Memory, framework: str) -> str:
    """The user's message, as each adapter writes a conversation (the shared bridge)."""
    capability = GraphmemMemory(memory=memory, tenant="acme", user="u-17", app="travel")
    who = AgentIdentity(tenant="acme", user="u-17", app="travel", agent=framework,
                        framework=framework)
    decision = capability.bridge.remember_turns(who, [Turn("user", SAID, "m-1")])[0]
    assert decision.disposition.value == "PERSIST", decision
    return decision.record_id


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_memory_resting_on_a_deleted_one_goes_with_it(memory: Memory, adapter: str) -> None:
    """Resting on the user's message, the inferred memory held the name after the message
    was deleted through the adapter: its evidence was no lineage, and the walk passed it."""
    framework, write = ADAPTERS[adapter]
    said = _said(memory, framework)
    inferred, forget = write(memory, said)
    assert store_of(memory).get(inferred).derived_from == (said,)
    forget()
    acme = Principal(tenants=frozenset({"acme"}))
    for rid in (said, inferred):
        assert memory.explain(rid, principal=acme, scope=USER).status \
            is Status.ERASED, rid
    assert _holders(memory) == []


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_an_erasure_by_term_leaves_the_name_in_nothing_an_adapter_wrote(
        memory: Memory, adapter: str) -> None:
    framework, write = ADAPTERS[adapter]
    said = _said(memory, framework)
    write(memory, said)
    assert _holders(memory)
    plan = memory.plan_deletion(subject=USER,
                                redact_terms=[NAME], requested_by="dpo", reason="GDPR art. 17")
    report = memory.apply_deletion(plan)
    assert report.verification.passed, report.verification.problems
    assert _holders(memory) == []
