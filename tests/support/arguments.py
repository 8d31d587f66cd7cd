"""Calls of the clients with one argument of the wrong type (tests/unit/test_client_arguments.py,
tests/unit/aio/test_client_arguments.py): every public call of a class, found by introspection,
each parameter in turn given values its hint does not take and the others values it takes.

Which values a hint takes is judged from the hint's text, independently of the check under
test (:func:`graphmem.errors.typed_calls`), so a hint that names no list, no None, no int...
must refuse one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import pydantic
import pytest

from graphmem.errors import GraphmemError, ValidationError
from tests.support.principals import T0

__all__ = ["Case", "NoDriver", "cases", "check_every_wrong_argument", "parameter_hints",
           "public_calls", "run", "valid"]


class NoDriver:
    """A neo4j driver stand-in: any use of it fails the test (AssertionError is no
    GraphmemError), so a call that sent anything is seen."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the call reached the driver ({name}) before its check")


def public_calls(cls: type) -> dict[str, Callable[..., Any]]:
    """The public functions and classmethods of ``cls`` (its mixins' too) that take an
    argument besides ``self``/``cls``: what :func:`typed_calls` must check. Properties and
    calls without arguments are left out."""
    found: dict[str, Callable[..., Any]] = {}
    for name in dir(cls):
        member = inspect.getattr_static(cls, name)
        if name.startswith("_") or not (inspect.isfunction(member)
                                        or isinstance(member, classmethod)):
            continue
        function = member.__func__ if isinstance(member, classmethod) else member
        if len(inspect.signature(function).parameters) > 1:
            found[name] = getattr(cls, name)
    return found


def parameter_hints(call: Callable[..., Any]) -> dict[str, tuple[inspect.Parameter, str, Any]]:
    """Each parameter of ``call`` but the first, with its hint's text and the hint."""
    function = inspect.unwrap(call)
    params = list(inspect.signature(function).parameters.values())[1:]
    texts = {p.name: p.annotation if isinstance(p.annotation, str) else
             getattr(p.annotation, "__name__", repr(p.annotation)) for p in params}
    hints = typing.get_type_hints(types.SimpleNamespace(__annotations__={
        p.name: p.annotation for p in params}), globalns=function.__globals__)
    return {p.name: (p, texts[p.name], hints[p.name]) for p in params}


class NoSample(Exception):
    """No value of this hint can be made up here (a protocol)."""


def valid(hint: Any) -> Any:
    """A value ``hint`` takes (by type; its content need not make sense)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for member in sorted(args, key=lambda a: a is type(None)):
            try:
                return valid(member)
            except NoSample:
                continue
        raise NoSample(hint)
    if origin is Literal:
        return args[0]
    if origin is not None:
        name = getattr(origin, "__name__", "")
        if name in ("dict", "Mapping"):
            return {"tenant": "acme"}
        if name in ("list", "tuple", "Sequence", "Iterable", "Iterator"):
            return []
        if name == "Callable":
            return lambda *args: None
        raise NoSample(hint)
    simple: dict[Any, Any] = {str: "r1", bool: True, int: 1, datetime: T0,
                              Path: Path("records.jsonl"), bytes: b"{}"}
    if hint in simple:
        return simple[hint]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint))
    if isinstance(hint, type) and issubclass(hint, pydantic.BaseModel):
        return hint.model_construct()
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return object.__new__(hint)
    raise NoSample(hint)


def _takes(text: str, *words: str) -> bool:
    return any(re.search(rf"\b{w}\b", text) for w in words)


def wrong(text: str) -> list[Any]:
    """Values a parameter hinted ``text`` must refuse: no object() for any hint, no list
    where it names no sequence, no None where it names none, no text, no number..."""
    out: list[Any] = [object()]
    if not _takes(text, "Sequence", "Iterable", "list", "Any"):
        out.append(["r1"])
    if not _takes(text, "None", "Any"):
        out.append(None)
    if not _takes(text, "str", "Iterable", "Any"):
        out.append("2")
    if not _takes(text, "int", "Any"):
        out.append(2)
    if text.startswith(("dict[str, str]", "Mapping[str, str]")):
        out.append({"tenant": 1})
    if text.startswith("Sequence[str]"):
        out.append(["r1", 2])
    return out


@dataclass
class Case:
    """One call with ``param`` given ``value`` (the wrong one) and every other required
    parameter a value it takes."""

    param: str
    value: Any
    args: list[Any]
    kwargs: dict[str, Any]


def cases(call: Callable[..., Any]) -> Iterator[Case]:
    """Every wrong value of every parameter of ``call``, one call each."""
    hints = parameter_hints(call)
    for param, (_, text, _) in hints.items():
        for value in wrong(text):
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            skipped = False  # an optional positional left out: the next ones by keyword
            for name, (p, _, hint) in hints.items():
                if name != param and p.default is not p.empty:
                    skipped = True
                    continue
                given = value if name == param else valid(hint)
                if p.kind is p.KEYWORD_ONLY or skipped:
                    kwargs[name] = given
                else:
                    args.append(given)
            yield Case(param, value, args, kwargs)


def run(result: Any) -> Any:
    """``result``, awaited if it is a coroutine (an async client's call)."""
    if inspect.iscoroutine(result):
        return asyncio.run(result)
    return result


def check_every_wrong_argument(call: Callable[..., Any], where: str,
                               twin: Callable[..., Any] | None = None) -> int:
    """Call ``call`` with each wrong value of each parameter (:func:`cases`); each must be a
    ValidationError naming the parameter, never anything else, and, given ``twin`` (the
    same call of ``Memory`` for an ``AsyncMemory`` one), the very error ``twin`` raises.
    Returns how many calls were made."""
    made = 0
    for case in cases(call):
        with pytest.raises(GraphmemError) as raised:
            run(call(*case.args, **case.kwargs))
        assert isinstance(raised.value, ValidationError), (where, case)
        assert repr(case.param) in str(raised.value), (where, case, str(raised.value))
        if twin is not None:
            with pytest.raises(ValidationError, match=re.escape(str(raised.value))):
                twin(*case.args, **case.kwargs)
        made += 1
    return made
