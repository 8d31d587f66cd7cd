"""The one place that bounds what callers hand graphmem (SPEC section 2): sizes of every
free-form field, and the nesting depth and number length of JSON, checked before anything
reaches the store.

:class:`InputLimits` holds the bounds (configurable, like ``max_content_bytes``:
``Memory.connect(limits=InputLimits(...))``); the store checks each record and intention
with it, the read path each decision state and event, and JSON Lines files are parsed with
:func:`loads_bounded`. A value over a bound is a :class:`~graphmem.errors.ValidationError`
that names the field (and the record or intention id); nothing is written. Unbounded input
used to cost every later read: a 16 MiB ``metadata`` made a cold retrieval in its tenant
take 3.3 s instead of 0.04 s, and a 2.4 MB goal was logged whole on every retrieval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import ValidationError
from graphmem.fields import MAX_METADATA_DEPTH, MAX_NAME_BYTES, utf8_size

__all__ = ["DEFAULT_LIMITS", "InputLimits", "loads_bounded"]

KIB = 1024


class _Record(Protocol):
    id: str
    provenance: dict[str, str]
    metadata: dict[str, Any]


class _Intention(Protocol):
    id: str
    action: str
    trigger_kind: str
    trigger_value: str


class _Decision(Protocol):
    goal: str
    subtask: str
    last_observation: str
    entities: tuple[str, ...]
    event: dict[str, str] | None


class InputLimits(BaseModel):
    """Bounds of user-supplied values, in UTF-8 bytes unless said otherwise.

    Args:
        metadata_bytes: a record's ``metadata`` as compact JSON (the LangGraph store keeps
            each item's value there).
        provenance_bytes: a record's ``provenance`` as compact JSON.
        action_bytes: an intention's ``action``.
        cue_bytes: an intention's cue kind and value, and each key and value of an event
            (at most 1,024: cues are indexed, and an index entry has a size limit).
        goal_bytes: each of a decision state's ``goal`` and ``subtask``.
        observation_bytes: a decision state's ``last_observation``.
        entities: how many entities a decision state may name; each is at most
            ``cue_bytes``.
        logged_query_chars: how much of a retrieval's query (goal, subtask, observation,
            entities) the attribution log stores, in characters; the rest is cut, marked
            with an ellipsis.
        json_depth: the deepest nesting of lists and objects in JSON input (a JSON Lines
            line, ``metadata``).
        number_chars: the longest number literal in JSON input, in characters.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    metadata_bytes: int = Field(default=256 * KIB, ge=2)
    provenance_bytes: int = Field(default=16 * KIB, ge=2)
    action_bytes: int = Field(default=64 * KIB, ge=1)
    cue_bytes: int = Field(default=MAX_NAME_BYTES, ge=1, le=MAX_NAME_BYTES)
    goal_bytes: int = Field(default=64 * KIB, ge=1)
    observation_bytes: int = Field(default=64 * KIB, ge=1)
    entities: int = Field(default=256, ge=0)
    logged_query_chars: int = Field(default=4 * KIB, ge=16)
    json_depth: int = Field(default=MAX_METADATA_DEPTH, ge=2, le=MAX_METADATA_DEPTH)
    number_chars: int = Field(default=64, ge=1, le=4000)

    # -- what the store and the read path call ---------------------------------------

    def check_record(self, record: _Record) -> None:
        """Bound a record's ``provenance`` and ``metadata`` (content has the store's own
        ``max_content_bytes``; ids, scope, thread and asserts are bounded by the model).

        Raises:
            ValidationError: a field over its bound; the message names it and the id.
        """
        ids = [record.id]
        self._size("provenance", _compact(record.provenance), self.provenance_bytes,
                   "provenance_bytes", ids)
        self._size("metadata", _compact(record.metadata), self.metadata_bytes,
                   "metadata_bytes", ids)
        self.check_json_value("metadata", record.metadata, ids)

    def check_intention(self, intention: _Intention) -> None:
        """Bound an intention's ``action`` and its cue (kind and value).

        Raises:
            ValidationError: the action is over ``action_bytes``, or the cue over
                ``cue_bytes``.
        """
        ids = [intention.id]
        self._size("action", intention.action, self.action_bytes, "action_bytes", ids)
        self._size("trigger_kind", intention.trigger_kind, self.cue_bytes, "cue_bytes", ids)
        self._size("trigger_value", intention.trigger_value, self.cue_bytes, "cue_bytes", ids)

    def check_label(self, field: str, value: str) -> None:
        """Bound a short caller-chosen name that is stored (an action id of the
        attribution log), like a cue: at most ``cue_bytes``.

        Raises:
            ValidationError: ``value`` is over ``cue_bytes``.
        """
        self._size(field, value, self.cue_bytes, "cue_bytes", ())

    def check_event(self, event: Mapping[str, str] | None) -> None:
        """Bound an event's cue kinds and values (an event longer than any cue can match
        nothing, but it would still travel to the database).

        Raises:
            ValidationError: a key or value over ``cue_bytes``, or not a string.
        """
        for key, value in (event or {}).items():
            for name, text in (("an event's cue kind", key), (f"event[{key[:40]!r}]", value)):
                if not isinstance(text, str):
                    raise ValidationError(f"{name} must be a string, got "
                                          f"{type(text).__name__}")
                self._size(name, text, self.cue_bytes, "cue_bytes", ())

    def check_decision(self, state: _Decision) -> None:
        """Bound a decision state's goal, subtask, observation, entities and event.

        Raises:
            ValidationError: a field over its bound; the message names it.
        """
        self._size("goal", state.goal, self.goal_bytes, "goal_bytes", ())
        self._size("subtask", state.subtask, self.goal_bytes, "goal_bytes", ())
        self._size("last_observation", state.last_observation, self.observation_bytes,
                   "observation_bytes", ())
        if len(state.entities) > self.entities:
            raise ValidationError(f"entities names {len(state.entities)} entities; at most "
                                  f"{self.entities} are allowed (InputLimits.entities)")
        for entity in state.entities:
            self._size("an entity", entity, self.cue_bytes, "cue_bytes", ())
        self.check_event(state.event)

    def logged_query(self, query: str) -> str:
        """What the attribution log stores of a retrieval's query: at most
        ``logged_query_chars`` characters, a cut marked with an ellipsis."""
        if len(query) <= self.logged_query_chars:
            return query
        return query[:self.logged_query_chars - 1] + "\u2026"

    def check_json_value(self, field: str, value: Any, record_ids: Iterable[str] = ()) -> None:
        """Bound the nesting depth and the number lengths of a JSON-like value (dicts,
        lists, numbers, strings), iteratively: no recursion limit is reached on the way.

        Raises:
            ValidationError: deeper than ``json_depth``, or an int or float whose literal
                is longer than ``number_chars`` (a 5,000-digit int is refused before
                Python's own digit limit raises a bare ValueError).
        """
        stack: list[tuple[Any, int, str]] = [(value, 0, field)]
        while stack:
            item, depth, where = stack.pop()
            if isinstance(item, dict | list | tuple):
                if depth + 1 > self.json_depth:
                    raise ValidationError(
                        f"{where} is nested more than {self.json_depth} levels deep "
                        "(InputLimits.json_depth)", record_ids=record_ids)
                pairs = item.items() if isinstance(item, dict) else enumerate(item)
                stack.extend((child, depth + 1, f"{where}[{key!r}]" if depth < 3 else where)
                             for key, child in pairs)
            elif isinstance(item, int | float) and not isinstance(item, bool):
                digits = _number_chars(item)
                if digits > self.number_chars:
                    raise ValidationError(
                        f"{where} holds a number of about {digits} characters; at most "
                        f"{self.number_chars} are allowed (InputLimits.number_chars)",
                        record_ids=record_ids)

    def _size(self, field: str, text: str, limit: int, setting: str,
              record_ids: Iterable[str]) -> None:
        size = utf8_size(text)
        if size > limit:
            ids = list(record_ids)
            whose = f" of {ids[0]!r}" if ids else ""
            raise ValidationError(f"{field}{whose} is {size} bytes; at most {limit} are "
                                  f"allowed (InputLimits.{setting})", record_ids=ids)


DEFAULT_LIMITS = InputLimits()
"""The bounds a store uses unless given others."""


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # an int too long for Python to print: bounded by check_json_value
        return ""


def _number_chars(value: int | float) -> int:
    if isinstance(value, float):
        return len(repr(value))
    # without str(): Python refuses to print ints of more than 4,300 digits
    return max(1, int(abs(value).bit_length() * 0.30103) + 1)


# -- JSON text ------------------------------------------------------------------------

# Strings (skipped whole, escapes included), brackets and number literals of JSON text.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?[0-9][0-9.eE+\-]*')
_COLON = re.compile(r"\s*:")


def loads_bounded(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """``json.loads`` with the length of number literals bounded as they are parsed, and
    the nesting depth bounded, so neither a RecursionError (100,000 nested brackets) nor a
    bare ValueError (a 5,000-digit number, over Python's int digit limit) can escape.

    Args:
        text: JSON text (one JSON Lines line).
        limits: ``json_depth`` and ``number_chars`` apply.

    Raises:
        ValidationError: not JSON, nested deeper than ``json_depth``, or a number longer
            than ``number_chars``; the message names the top-level field it is under.
    """
    def number(kind: type[int] | type[float]) -> Any:
        def parse(literal: str) -> int | float:
            if len(literal) > limits.number_chars:
                raise _Refused
            return kind(literal)
        return parse

    try:
        value = json.loads(text, parse_int=number(int), parse_float=number(float))
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not JSON ({exc.msg})") from None
    except (RecursionError, _Refused, ValueError):
        _scan(text, limits)  # raises, naming the field
        raise ValidationError("not acceptable JSON") from None
    if _depth_over(value, limits.json_depth):
        _scan(text, limits)
    return value


class _Refused(Exception):
    """A number literal over ``number_chars`` (found again by :func:`_scan`, which names
    its field)."""


def _depth_over(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return False


def _scan(text: str, limits: InputLimits) -> None:
    depth = 0
    field = None  # the key of the top-level object being read
    for match in _TOKENS.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            depth += 1
            if depth > limits.json_depth:
                raise ValidationError(
                    f"{_where(field)} is nested more than {limits.json_depth} levels deep "
                    "(InputLimits.json_depth)")
        elif first in "]}":
            depth -= 1
        elif first == '"':
            if depth == 1 and _COLON.match(text, match.end()):
                try:
                    field = json.loads(token)
                except ValueError:
                    field = token[1:-1]
        elif len(token) > limits.number_chars:
            raise ValidationError(
                f"{_where(field)} holds a number of {len(token)} characters; at most "
                f"{limits.number_chars} are allowed (InputLimits.number_chars)")


def _where(field: str | None) -> str:
    return "the line" if field is None else f"field {field[:80]!r}"
