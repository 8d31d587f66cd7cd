"""typed_calls, the clients' boundary for argument types
(docs/guide/agent-builders.md#errors-times-and-bounds): strict, without conversion, models by
isinstance, iterables unread, and a message naming the call and the argument, never the
value."""

from __future__ import annotations

import asyncio
import inspect
from collections import ChainMap, UserDict, deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

import pytest

from graphmem import Principal
from graphmem.errors import ValidationError, typed_calls


@typed_calls
class Calls:
    """A class of the shapes the clients' calls take."""

    def take(self, text: str, ids: Sequence[str] = (), *, n: int = 1, flag: bool = False,
             items: Iterable[int] = (), data: dict[str, Any] | None = None,
             who: Principal | None = None) -> list[Any]:
        return [text, ids, n, flag, items, data, who]

    @classmethod
    def make(cls, n: int) -> int:
        return n

    async def later(self, n: int) -> int:
        return n

    @property
    def size(self) -> int:
        return 1


@typed_calls
class More(Calls):
    """A subclass decorated again: its inherited calls are checked once."""


class _PathLike:
    def __fspath__(self) -> str:
        return "/tmp/x"


class _Ids(Sequence[str]):
    """A read-only sequence of ids that is no list (as a retrieval's ``candidate_ids``)."""

    def __init__(self, *ids: str) -> None:
        self._ids = ids

    def __getitem__(self, i: Any) -> Any:
        return self._ids[i]

    def __len__(self) -> int:
        return len(self._ids)


@typed_calls
class Shapes:
    def take(self, scope: dict[str, str], ids: Sequence[str], n: int, share: float,
             path: str | Path, record: dict[str, Any] | None = None) -> list[Any]:
        return [scope, ids, n, share, path, record]


def test_the_shapes_the_calls_read_are_taken_as_they_are() -> None:
    """Found by a breaker against the first, stricter check: a scope is any mapping, ids any
    sequence but a string, a count any integral number but a bool, a path any path-like
    (each worked before the check; docs/guide/agent-builders.md#errors-times-and-bounds)."""
    import numpy as np

    shapes: Any = Shapes()  # given what its hints do not name: the point of the test

    scope, ids, record = MappingProxyType({"tenant": "acme"}), _Ids("a"), UserDict({"id": "r"})
    for got in (shapes.take(scope, ids, np.int64(3), np.float32(0.5), PurePosixPath("/x"),
                              record),
                shapes.take(ChainMap({"tenant": "acme"}), deque(["a"]), 3, 1, _PathLike())):
        assert got[0]["tenant"] == "acme" and list(got[1]) == ["a"]
    assert shapes.take(scope, ids, 3, 0.5, "p", record)[5] is record
    for wrong, name in (({"tenant": 1}, "scope"), ("ab", "ids"), (["a", 2], "ids"),
                        (True, "n"), ("3", "n"), (b"/x", "path")):
        args: list[Any] = [scope, ids, 3, 0.5, "p"]
        args[["scope", "ids", "n", "share", "path"].index(name)] = wrong
        with pytest.raises(ValidationError, match=f"argument '{name}' must be "):
            shapes.take(*args)


def test_the_call_gets_the_very_objects_it_was_given() -> None:
    ids, data = ["a", "b"], {"tenant": "acme"}
    items: Iterator[int] = iter(range(3))
    who = Principal.model_construct()  # a model is checked by isinstance, not validated
    got = Calls().take("t", ids, items=items, data=data, who=who)
    assert got[1] is ids and got[4] is items and got[5] is data and got[6] is who
    assert list(items) == [0, 1, 2]  # the check read none of it


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"n": "2"}, "n"), ({"n": True}, "n"), ({"n": 1.5}, "n"), ({"flag": 1}, "flag"),
    ({"ids": "ab"}, "ids"), ({"ids": ["a", 2]}, "ids"), ({"items": 3}, "items"),
    ({"data": {"tenant": "acme"}.items()}, "data"), ({"who": {"tenants": ["acme"]}}, "who"),
])
def test_a_value_of_another_type_is_refused_not_converted(kwargs: dict[str, Any],
                                                          name: str) -> None:
    with pytest.raises(ValidationError, match=f"take: argument '{name}' must be "):
        Calls().take("t", **kwargs)


def test_the_message_names_the_call_and_argument_never_the_value() -> None:
    with pytest.raises(ValidationError) as raised:
        Calls().take(["my secret"])  # type: ignore[arg-type]
    assert str(raised.value) == "take: argument 'text' must be str, not list"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    with pytest.raises(ValidationError) as raised:
        Calls().take("t", ["a", 2])  # type: ignore[list-item]
    assert str(raised.value) == "take: argument 'ids' must be Sequence[str], not list"


@pytest.mark.parametrize(("call", "message"), [
    (lambda: Calls().take(),  # type: ignore[call-arg]
     "take: argument 'text' is required"),
    (lambda: Calls().take("t", texts="x"),  # type: ignore[call-arg]
     "take: no argument named 'texts'"),
    (lambda: Calls().take("t", [], 3),  # type: ignore[call-arg]
     r"take: too many positional arguments \(3 "),
])
def test_a_call_of_the_wrong_shape_is_a_validation_error(call: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        call()


def test_classmethods_and_coroutines_are_checked_and_stay_what_they_were() -> None:
    assert Calls.make(2) == 2
    with pytest.raises(ValidationError, match=r"^make: argument 'n'"):
        Calls.make("2")  # type: ignore[arg-type]
    assert isinstance(inspect.getattr_static(Calls, "make"), classmethod)
    assert inspect.iscoroutinefunction(Calls.later)
    assert asyncio.run(Calls().later(3)) == 3
    pending = Calls().later("3")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"^later: argument 'n'"):
        asyncio.run(pending)
    assert isinstance(inspect.getattr_static(Calls, "size"), property)
    assert inspect.signature(Calls.take) == inspect.signature(inspect.unwrap(Calls.take))


def test_a_call_is_checked_once_in_a_checked_subclass() -> None:
    assert More.take is Calls.take
    assert inspect.unwrap(More.take) is vars(More.take)["__wrapped__"]  # one wrapper
