"""AsyncMemory offers every call of Memory, with the same parameters, as a coroutine: a call
added to Memory later fails here until AsyncMemory has it too."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from graphmem import AsyncMemory, Memory
from graphmem.aio.calls import AsyncIntentions
from graphmem.intentions import Intentions

#: the calls that send nothing (a plain call) or stream (an async iterator)
NOT_COROUTINES = {"confined", "put_stream"}
#: results that differ by design: the async client's own type, an async iterator
RESULTS = {("connect", "Memory"): "AsyncMemory", ("confined", "Memory"): "AsyncMemory",
           ("put_stream", "Iterator[list[str]]"): "AsyncIterator[list[str]]"}


def public(cls: type) -> dict[str, Any]:
    return {name: inspect.getattr_static(cls, name) for name in dir(cls)
            if not name.startswith("_")}


def parameters(function: Any) -> list[tuple[str, Any, Any, Any]]:
    signature = inspect.signature(function)
    return [(p.name, p.kind, p.default, p.annotation) for p in signature.parameters.values()]


def test_every_call_of_memory_is_there_with_the_same_parameters() -> None:
    mine, theirs = public(AsyncMemory), public(Memory)
    assert set(theirs) <= set(mine), f"missing: {sorted(set(theirs) - set(mine))}"
    checked = 0
    for name, member in theirs.items():
        assert type(mine[name]) is type(member), name  # classmethod, property, function
        if isinstance(member, property):
            continue
        sync, aio = getattr(Memory, name), getattr(AsyncMemory, name)
        assert parameters(aio) == parameters(sync), name
        result = inspect.signature(sync).return_annotation
        expected = RESULTS.get((name, result), result)
        assert inspect.signature(aio).return_annotation == expected, name
        assert inspect.iscoroutinefunction(aio) == (name not in NOT_COROUTINES), name
        checked += 1
    assert checked >= 35  # the whole client, not a part of it


def test_the_attributes_of_memory_are_there() -> None:
    """``access`` and ``policy`` are instance attributes of Memory: properties here."""
    for name in ("access", "policy", "intentions"):
        assert isinstance(inspect.getattr_static(AsyncMemory, name), property)


def test_intentions_as_coroutines_mirror_intentions() -> None:
    mine, theirs = public(AsyncIntentions), public(Intentions)
    calls = {n for n, m in theirs.items() if inspect.isfunction(m)}
    assert calls <= set(mine), f"missing: {sorted(calls - set(mine))}"
    for name in calls:
        assert parameters(getattr(AsyncIntentions, name)) == parameters(
            getattr(Intentions, name)), name
        assert inspect.iscoroutinefunction(getattr(AsyncIntentions, name)), name


def test_the_comparison_sees_a_difference() -> None:
    """The parameter comparison fails for a renamed, reordered or re-defaulted parameter."""
    def sync(self: object, record_id: str, *, by: str = "a") -> None: ...

    async def renamed(self: object, rid: str, *, by: str = "a") -> None: ...

    async def defaulted(self: object, record_id: str, *, by: str = "b") -> None: ...

    async def positional(self: object, record_id: str, by: str = "a") -> None: ...

    for other in (renamed, defaulted, positional):
        assert parameters(other) != parameters(sync)


@pytest.mark.parametrize("name", ["connect", "close", "retrieve", "write"])
def test_docstrings_name_what_they_run(name: str) -> None:
    doc = getattr(AsyncMemory, name).__doc__
    assert doc and ("Memory" in doc or "driver" in doc)
