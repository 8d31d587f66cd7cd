"""Every public call of AsyncMemory (and of its ``intentions``), found by introspection,
refuses an argument of the wrong type with a ValidationError naming it, raised when awaited
and before anything is sent (docs/guide/agent-builders.md#errors-times-and-bounds): the very
error Memory's call raises (tests/unit/test_client_arguments.py). No database: the driver
fails the test if a call reaches it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any

import pytest

from graphmem import AsyncMemory, Memory
from graphmem.aio.calls import AsyncIntentions, Threads
from graphmem.db import connect
from graphmem.db.store import Neo4jStore
from graphmem.errors import ValidationError
from tests.support.arguments import (
    NoDriver,
    check_every_wrong_argument,
    public_calls,
)

ASYNC_MEMORY = public_calls(AsyncMemory)
ASYNC_INTENTIONS = public_calls(AsyncIntentions)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[AsyncMemory]:
    def no_server(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("connect opened a store before its check")

    monkeypatch.setattr(connect, "open_store", no_server)
    threads = Threads()
    try:
        yield AsyncMemory(Memory(Neo4jStore(NoDriver())),  # type: ignore[arg-type]
                          threads=threads)
    finally:
        threads.shutdown()


def test_the_calls_are_found() -> None:
    assert set(public_calls(Memory)) <= set(ASYNC_MEMORY)
    assert {"get", "intend", "due", "due_within", "fire"} <= set(ASYNC_INTENTIONS)


@pytest.mark.parametrize("name", sorted(ASYNC_MEMORY))
def test_a_wrong_argument_of_an_async_call_is_a_validation_error(offline: AsyncMemory,
                                                                 name: str) -> None:
    assert check_every_wrong_argument(getattr(offline, name), name,
                                      twin=getattr(offline._memory, name)) > 0


@pytest.mark.parametrize("name", sorted(ASYNC_INTENTIONS))
def test_a_wrong_argument_of_an_async_intentions_call_is_a_validation_error(
        offline: AsyncMemory, name: str) -> None:
    assert check_every_wrong_argument(getattr(offline.intentions, name), name,
                                      twin=getattr(offline._memory.intentions, name)) > 0


def test_the_calls_stay_coroutines_and_raise_when_awaited(offline: AsyncMemory) -> None:
    """The check keeps a coroutine function one: calling it raises nothing, awaiting it
    raises (as every error of an async call does)."""
    assert inspect.iscoroutinefunction(AsyncMemory.get)
    pending = offline.get(["r1"])  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"^get: argument 'record_id'"):
        asyncio.run(pending)
