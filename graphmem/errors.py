"""The exceptions graphmem raises, all rooted at :class:`GraphmemError`.

::

    GraphmemError
    ├── ValidationError            bad input, rejected before anything is written
    │   ├── NaiveDatetimeError     a datetime without a timezone
    │   ├── DanglingReferenceError supersedes / derived_from / evidence_ids name unknown ids
    │   ├── LineageCycleError      derived_from would form a cycle
    │   └── ContentTooLargeError   content above the configured maximum size
    ├── RecordConflictError        the same id written again with different content
    ├── RecordNotFoundError        no record (or intention) with that id
    ├── AuthorizationError         the principal may not read the query scope's tenant
    │   ├── OutOfReachError        (also a RecordNotFoundError) an id outside a bound
    │   │                          client's reach, or naming nothing: the two look alike
    │   └── AuthorityCeilingError  a write claims more authority than its caller may
    ├── PolicyError                a lifecycle call that the write policy refuses
    ├── DeletionError              a deletion plan that cannot be applied
    ├── EvaluationError            inconsistent evaluation input (e.g. a non-monotonic funnel)
    ├── UnknownQueryError          no Cypher query of that name in the catalogue
    ├── StoreError                 Neo4j refused or failed a statement (driver error chained)
    │   └── ConstraintViolationError  a uniqueness constraint refused a write
    └── DatabaseUnavailableError   no Neo4j could be reached or started, or it stayed busy
        └── DatabaseAuthError      Neo4j refused the credentials

Leaf errors carry the ids that caused them (``record_ids``), never record content:
error messages may end up in logs, and content is user data.

:func:`typed_calls` is the clients' boundary for the types of arguments: an argument of the
wrong type or shape is a :class:`ValidationError` naming it, raised before the call does
anything (docs/guide/agent-builders.md#errors-times-and-bounds).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import numbers
import os
import types
import typing
from collections import abc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar, Union

import pydantic
from pydantic import ConfigDict, InstanceOf, PlainValidator

__all__ = [
    "AuthorityCeilingError",
    "AuthorizationError",
    "CertificateError",
    "ConstraintViolationError",
    "ContentTooLargeError",
    "DanglingReferenceError",
    "DatabaseAuthError",
    "DatabaseUnavailableError",
    "DeletionError",
    "EvaluationError",
    "GraphmemError",
    "LineageCycleError",
    "NaiveDatetimeError",
    "OutOfReachError",
    "PolicyError",
    "RecordConflictError",
    "RecordNotFoundError",
    "StoreError",
    "StoreNotEmptyError",
    "UnknownQueryError",
    "ValidationError",
    "typed_calls",
]


class GraphmemError(Exception):
    """Root of every error graphmem raises.

    Args:
        message: what went wrong, free of record content.
        record_ids: the ids involved, if any.
    """

    def __init__(self, message: str, *, record_ids: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.record_ids: tuple[str, ...] = tuple(record_ids)


class ValidationError(GraphmemError):
    """Input that breaks a rule of docs/spec/records.md; nothing was written."""


class NaiveDatetimeError(ValidationError):
    """A datetime without tzinfo was given where an aware UTC time is required."""


class DanglingReferenceError(ValidationError):
    """``supersedes``, ``derived_from`` or ``evidence_ids`` name ids not in the store."""


class LineageCycleError(ValidationError):
    """``derived_from`` edges would form a cycle (lineage must stay a DAG)."""


class ContentTooLargeError(ValidationError):
    """Record content is larger than the store's ``max_content_bytes``."""


class RecordConflictError(GraphmemError):
    """A record id already exists with different content (docs/spec/records.md)."""


class RecordNotFoundError(GraphmemError):
    """No record or intention with the given id exists."""


class AuthorizationError(GraphmemError):
    """The principal may not read the tenant of the query scope
    (docs/spec/eligibility.md#tenant)."""


class OutOfReachError(AuthorizationError, RecordNotFoundError):
    """A client bound to a principal (:meth:`graphmem.Memory.confined`) was given an id that
    names no record, intention, retrieval or deletion request within the principal's reach
    (docs/spec/eligibility.md): another tenant's, another user's of a confined principal, one above
    its clearance, one it may read but not change, or none at all. The message names no id
    and says nothing of whether it exists; nothing was written."""


class AuthorityCeilingError(AuthorizationError):
    """A write claimed an authority above the ceiling its caller was configured with
    (``max_authority``; docs/spec/write-path.md); nothing was written."""


class PolicyError(GraphmemError):
    """A lifecycle transition refused by the write policy (docs/spec/write-path.md)."""


class DeletionError(GraphmemError):
    """A deletion plan that is stale, malformed or otherwise cannot be applied
    (docs/spec/deletion.md)."""


class CertificateError(DeletionError):
    """An erasure certificate that cannot be issued (its request's verification failed) or
    read (not a certificate, malformed JSON; docs/spec/deletion.md)."""


class EvaluationError(GraphmemError):
    """Evaluation input that is internally inconsistent (docs/spec/evaluation.md)."""


class UnknownQueryError(GraphmemError):
    """No query of that name in the Cypher catalogue (``graphmem cypher show NAME``).

    Args:
        name: the name asked for.
        close: the catalogue's names closest to it, best first (may be empty); for a part,
            the queries that put it in.
        part: ``name`` is a part (``cypher/parts/``), shown within the queries that name it.
    """

    def __init__(self, name: str, close: Iterable[str] = (), *, part: bool = False) -> None:
        self.name = name
        self.close: tuple[str, ...] = tuple(close)
        self.part = part
        if part:
            hint = f"; it is a part, put in by {', '.join(self.close) or 'other parts'}"
        elif self.close:
            hint = f"; did you mean {', '.join(self.close)}?"
        else:
            hint = "; `graphmem cypher list` lists them"
        super().__init__(f"no Cypher query named {name!r}{hint}")


class DatabaseUnavailableError(GraphmemError):
    """No Neo4j server could be reached or started, or it kept failing transiently (busy,
    deadlocked, leader switch) after graphmem's bounded retries. The driver's
    error, when there is one, is chained as ``__cause__``."""


class DatabaseAuthError(DatabaseUnavailableError):
    """Neo4j refused the credentials (wrong, missing or locked out)."""


class ClientClosedError(GraphmemError):
    """The client was closed (:meth:`graphmem.Memory.close`): it sends nothing more, even
    while other clients of the same settings keep the shared driver open."""


class StoreNotEmptyError(GraphmemError):
    """An initial load (``graphmem import --initial``) met a database that holds data, or a
    store graphmem does not run itself; nothing was written."""


class StoreError(GraphmemError):
    """Neo4j refused or failed a statement for a reason other than connectivity.

    Args:
        message: what graphmem was doing and the Neo4j status code, never record content.
        code: the Neo4j status code (``Neo.ClientError...``), or None for a driver-side error.

    The driver's error is chained as ``__cause__``.
    """

    def __init__(self, message: str, *, code: str | None = None,
                 record_ids: Iterable[str] = ()) -> None:
        super().__init__(message, record_ids=record_ids)
        self.code = code


class ConstraintViolationError(StoreError):
    """A uniqueness constraint refused a write (usually a concurrent writer created the same
    id first; the store's writers catch it and decide again)."""


# -- the boundary for the types of arguments ---------------------------------------------

C = TypeVar("C", bound=type)

#: exact types (no ``"2"`` for an int, no ``1`` for a bool, a str is no list of ids);
#: classes of graphmem's own (a Principal, a ranker, a plan) by isinstance
_STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)
_CHECKED = "__graphmem_checked__"
#: the hint forms built at run time, from hints found at run time
_INSTANCE_OF: Any = InstanceOf
_UNION: Any = Union


def typed_calls(cls: C) -> C:
    """Check the arguments of every public call of ``cls`` against its type hints, at the
    call, before it does anything (docs/guide/agent-builders.md#errors-times-and-bounds):
    the clients' one boundary for argument types, so a call added later is checked too.

    Each call's parameters (``self`` aside) are checked by pydantic's ``validate_call``,
    strictly and without conversion: the call receives the very objects it was given.
    Models and dataclasses in a hint (a record, a decision state, a plan) are checked by
    isinstance only, a dict where a hint allows one as a dict (the call validates what is
    in it, with its own errors); an iterable is checked without being iterated (a
    generator is consumed once, by the call). A coroutine function stays one and raises
    when awaited; classmethods are checked, properties are not. The check of a call is
    built on its first use.

    Args:
        cls: the class whose calls are checked in place (a call checked already, inherited
            from a checked class, is left as it is).

    Returns:
        ``cls``. Its calls raise :class:`ValidationError` (naming the call and the argument,
        never its content) for an argument of the wrong type, a missing required one, an
        unknown keyword or too many positional ones.
    """
    for name in dir(cls):
        if name.startswith("_"):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, classmethod):
            if not hasattr(member.__func__, _CHECKED):
                setattr(cls, name, classmethod(_checked(member.__func__)))
        elif inspect.isfunction(member) and not hasattr(member, _CHECKED):
            setattr(cls, name, _checked(member))
    return cls


def _checked(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (a method: its first parameter is ``self`` or ``cls``) with its other
    arguments checked first. Errors name the call as ``get``, not ``Memory.get``: a call of
    AsyncMemory raises the very error its twin in Memory does."""
    check = _Arguments(function, function.__name__)
    wrapper: Callable[..., Any]
    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def wrapper(first: Any, /, *args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return await function(first, *args, **kwargs)
    else:
        @functools.wraps(function)
        def wrapper(first: Any, /, *args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return function(first, *args, **kwargs)
    setattr(wrapper, _CHECKED, True)
    return wrapper


class _Arguments:
    """The argument check of one call; its validator is built on the first call."""

    def __init__(self, function: Callable[..., Any], where: str) -> None:
        self.function = function
        self.where = where
        self.validator: Callable[..., None] | None = None
        self.names: list[str] = []

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        validator = self.validator or self._build()
        try:
            validator(*args, **kwargs)
        except pydantic.ValidationError as exc:  # the input's repr (content) is left out
            raise ValidationError(self._message(exc.errors(), args, kwargs)) from None

    def _build(self) -> Callable[..., None]:
        signature = inspect.signature(self.function)
        params = list(signature.parameters.values())[1:]
        hints = typing.get_type_hints(types.SimpleNamespace(__annotations__={
            p.name: p.annotation for p in params if p.annotation is not p.empty}),
            globalns=getattr(self.function, "__globals__", None))
        params = [p.replace(annotation=_shallow(hints.get(p.name, Any))) for p in params]

        def arguments(*args: Any, **kwargs: Any) -> None:
            return None

        arguments.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        arguments.__annotations__ = {p.name: p.annotation for p in params}
        arguments.__name__ = arguments.__qualname__ = self.where
        self.names = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.validator = pydantic.validate_call(config=_STRICT)(arguments)
        return self.validator

    def _message(self, errors: list[Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> str:
        first = next((e for e in errors if e["type"].startswith("unexpected_")), errors[0])
        loc, kind = first["loc"], first["type"]
        name = self.names[loc[0]] if isinstance(loc[0], int) and loc[0] < len(
            self.names) else str(loc[0])
        if kind == "missing_argument":
            return f"{self.where}: argument {name!r} is required"
        if kind == "unexpected_keyword_argument":
            return f"{self.where}: no argument named {name!r}"
        if kind == "unexpected_positional_argument":
            return (f"{self.where}: too many positional arguments ({len(args)} given, "
                    f"{len(self.names)} taken)")
        value = args[loc[0]] if isinstance(loc[0], int) else kwargs.get(name)
        hint = inspect.signature(self.function).parameters[name].annotation
        hint = hint if isinstance(hint, str) else getattr(hint, "__name__", repr(hint))
        same = [e for e in errors if e["loc"][0] == loc[0]]
        detail = f" ({first['msg']})" if len(same) == 1 and len(loc) > 1 else ""
        return (f"{self.where}: argument {name!r} must be {hint}, not "
                f"{type(value).__name__}{detail}")


def _shape(accepts: Callable[[Any], bool]) -> Any:
    """A hint that passes a value ``accepts`` as it is (nothing converted or read)."""
    def check(value: Any) -> Any:
        if not accepts(value):
            raise ValueError("not of this shape")
        return value
    return Annotated[Any, PlainValidator(check)]


#: what a hint's container or number accepts: the shapes the calls read (a scope is any
#: mapping, ids any sequence but a string, a count any integral number but a bool, a path
#: any path-like; docs/guide/agent-builders.md#errors-times-and-bounds); what is inside a
#: container is the call's to check
_MAPPING = _shape(lambda v: isinstance(v, abc.Mapping))
_SEQUENCE = _shape(lambda v: isinstance(v, abc.Sequence) and not isinstance(v, str | bytes))
#: a map of strings to strings (a scope), a sequence of strings (ids): their items too
_TEXT_MAPPING = _shape(lambda v: isinstance(v, abc.Mapping) and all(
    isinstance(k, str) and isinstance(x, str) for k, x in v.items()))
_TEXT_SEQUENCE = _shape(lambda v: isinstance(v, abc.Sequence) and not isinstance(
    v, str | bytes) and all(isinstance(x, str) for x in v))
_INTEGRAL = _shape(lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool))
_REAL = _shape(lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool))
_PATH = _shape(lambda v: isinstance(v, os.PathLike))
_SHAPES: dict[Any, Any] = {dict: _MAPPING, abc.Mapping: _MAPPING, list: _SEQUENCE,
                           tuple: _SEQUENCE, abc.Sequence: _SEQUENCE, int: _INTEGRAL,
                           float: _REAL, Path: _PATH}


def _shallow(hint: Any) -> Any:
    """``hint`` with every model and dataclass in it checked by isinstance only, and its
    containers, numbers and paths by their shape (:data:`_SHAPES`)."""
    if isinstance(hint, type) and (issubclass(hint, pydantic.BaseModel)
                                   or dataclasses.is_dataclass(hint)):
        return _INSTANCE_OF[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        # a runtime protocol's isinstance is slow (it looks for each member): tried last
        return _UNION[tuple(_shallow(a) for a in sorted(args, key=_is_protocol))]
    shape = _SHAPES.get(origin if origin is not None else hint)
    if shape is _MAPPING and args == (str, str):
        return _TEXT_MAPPING
    if shape is _SEQUENCE and args in ((str,), (str, ...)):
        return _TEXT_SEQUENCE
    if shape is not None:
        return shape
    if origin in (abc.Iterable, abc.Iterator):
        return origin[tuple(_shallow(a) for a in args)] if args else hint
    return hint


def _is_protocol(hint: Any) -> bool:
    return bool(getattr(hint, "_is_protocol", False))
