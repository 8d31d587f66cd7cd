"""The one place that bounds what callers hand graphmem (docs/spec/records.md): sizes of every
free-form field, and the nesting depth and number length of JSON, checked before anything
reaches the store.

:class:`InputLimits` holds the bounds (configurable, like ``max_content_bytes``:
``Memory.connect(limits=InputLimits(...))``); the store checks each record and intention
with it, the read path each decision state and event, writes and transitions their who and
why, deletions their requester, reason, roots, subject, terms and request ids, and deletion
plans and erasure certificates are checked as JSON documents before they are parsed; JSON
Lines files are read line by line within ``line_bytes`` and parsed with
:func:`loads_bounded`. A value over a bound is a :class:`~graphmem.errors.ValidationError`
that names the field (and the record or intention id); nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import ValidationError
from graphmem.fields import (
    MAX_ID_CHARS,
    MAX_METADATA_DEPTH,
    MAX_NAME_BYTES,
    MAX_NOTE_BYTES,
    MAX_SCOPE_BYTES,
    check_scope,
    id_problem,
    loads_json,
    number_chars,
    scan_json,
    utf8_size,
)

__all__ = ["DEFAULT_LIMITS", "InputLimits", "loads_bounded"]

KIB = 1024
MIB = 1024 * KIB


class _Record(Protocol):
    id: str
    asserted_value: str | None
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
        value_bytes: a record's ``asserted_value``.
        action_bytes: an intention's ``action``.
        cue_bytes: an intention's cue kind and value, and each key and value of an event
            (at most 1,024: cues are indexed, and an index entry has a size limit).
        event_cues: how many cues (keys) an event may hold (each is digested and sought).
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
        note_bytes: each who and why of a write, a transition or a deletion request
            (``by``, ``reason``, ``requested_by``).
        ids: how many ids one call may name (deletion roots); each id is at most 256
            characters by the id rule (:func:`graphmem.fields.id_problem`).
        redact_terms: how many redaction terms one deletion request may name (each costs a
            slow salted hash, and a scan of the tenants' text).
        term_bytes: each redaction term.
        scope_bytes: a deletion subject (a scope) as its canonical key (at most 4,096: the
            key is indexed).
        plan_bytes: a deletion plan's JSON (``graphmem delete apply FILE``, the MCP
            ``apply_deletion`` plan).
        certificate_bytes: an erasure certificate's JSON (``check-certificate``).
        line_bytes: one line of a JSON Lines import, read at most this far.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    metadata_bytes: int = Field(default=256 * KIB, ge=2)
    provenance_bytes: int = Field(default=16 * KIB, ge=2)
    value_bytes: int = Field(default=64 * KIB, ge=1)
    action_bytes: int = Field(default=64 * KIB, ge=1)
    cue_bytes: int = Field(default=MAX_NAME_BYTES, ge=1, le=MAX_NAME_BYTES)
    event_cues: int = Field(default=256, ge=1)
    goal_bytes: int = Field(default=64 * KIB, ge=1)
    observation_bytes: int = Field(default=64 * KIB, ge=1)
    entities: int = Field(default=256, ge=0)
    logged_query_chars: int = Field(default=4 * KIB, ge=16)
    json_depth: int = Field(default=MAX_METADATA_DEPTH, ge=2, le=MAX_METADATA_DEPTH)
    number_chars: int = Field(default=64, ge=1, le=4000)
    note_bytes: int = Field(default=MAX_NOTE_BYTES, ge=1)
    ids: int = Field(default=10_000, ge=1)
    redact_terms: int = Field(default=64, ge=0)
    term_bytes: int = Field(default=KIB, ge=1)
    scope_bytes: int = Field(default=MAX_SCOPE_BYTES, ge=16, le=MAX_SCOPE_BYTES)
    plan_bytes: int = Field(default=64 * MIB, ge=KIB)
    certificate_bytes: int = Field(default=MIB, ge=KIB)
    line_bytes: int = Field(default=4 * MIB, ge=KIB)

    # -- what the store and the read path call ---------------------------------------

    def check_record(self, record: _Record) -> None:
        """Bound a record's ``provenance``, ``metadata`` and ``asserted_value`` (content has
        the store's own ``max_content_bytes``; ids, scope, thread and asserts are bounded by
        the model).

        Raises:
            ValidationError: a field over its bound; the message names it and the id.
        """
        ids = [record.id]
        if record.asserted_value is not None:
            self._size("asserted_value", record.asserted_value, self.value_bytes,
                       "value_bytes", ids)
        if record.provenance:  # "{}" is within every bound (both are at least 2 bytes)
            prov = _compact_items(tuple(record.provenance.items()))
            self._size("provenance", prov, self.provenance_bytes, "provenance_bytes", ids)
        if record.metadata:
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
            ValidationError: over ``event_cues`` cues; a key or value over ``cue_bytes``, not
                a string, or holding a lone surrogate (no UTF-8 form to digest)."""
        if len(event or {}) > self.event_cues:
            raise ValidationError(f"the event holds {len(event or {})} cues, over the bound "
                                  f"(InputLimits.event_cues: {self.event_cues})")
        for key, value in (event or {}).items():
            _require_str("an event's cue kind", key, ())
            for name, text in (("an event's cue kind", key), (f"event[{key[:40]!r}]", value)):
                _require_str(name, text, ())
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
                digits = number_chars(item)
                if digits > self.number_chars:
                    raise ValidationError(
                        f"{where} holds a number of about {digits} characters; at most "
                        f"{self.number_chars} are allowed (InputLimits.number_chars)",
                        record_ids=record_ids)

    # -- who and why, ids, scopes, terms: writes, transitions and deletions -------------

    def check_notes(self, record_ids: Iterable[str] = (), *, non_empty: bool = True,
                    **named: object) -> None:
        """Check that each named argument (``by=..., reason=...``) is a string of at most
        ``note_bytes``, non-empty unless ``non_empty`` is False: who and why of a write, a
        transition or a deletion request (docs/spec/write-path.md, docs/spec/deletion.md).

        Raises:
            ValidationError: a value is not a string (the driver would store an int or a
                null as given, and fail to pack other objects with a bare ValueError), is
                empty, holds a lone surrogate or is over ``note_bytes``; names the argument.
        """
        ids = list(record_ids)
        for name, value in named.items():
            _require_str(name, value, ids)
            assert isinstance(value, str)
            if len(value) > self.note_bytes // 4:
                self._size(name, value, self.note_bytes, "note_bytes", ids)
            if non_empty and not value:
                raise ValidationError(f"{name} must be a non-empty string", record_ids=ids)

    def check_id(self, field: str, value: object) -> str:
        """``value`` if it is an id by docs/spec/records.md's rule (a deletion request id, a
        root). Raises ValidationError naming ``field`` for a non-string or a non-id."""
        if not isinstance(value, str):
            raise ValidationError(f"{field} must be a string id, got {type(value).__name__}")
        problem = id_problem(value)
        if problem is not None:
            raise ValidationError(f"{field}: {problem}", record_ids=[value[:256]])
        return value

    def check_ids(self, field: str, values: object) -> list[str]:
        """``values`` as a list, without repeats, when it is a list of at most ``ids`` ids
        (:meth:`check_id` each).

        Raises:
            ValidationError: not an iterable of strings (a lone string or a mapping is
                refused, not read as its letters or keys), more than ``ids`` of them, or one
                is not an id.
        """
        if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
            raise ValidationError(f"{field} must be a list of ids")
        out: dict[str, None] = {}
        for count, value in enumerate(values, 1):
            if count > self.ids:
                raise ValidationError(f"{field} names more than {self.ids} ids; at most that "
                                      "many are allowed in one call (InputLimits.ids)")
            out[self.check_id(field, value)] = None
        return list(out)

    def check_lookup(self, what: str, ids: Iterable[object]) -> None:
        """Bound ids a caller names to look records up (``get``, ``explain``, ``history``,
        ``retract``, a retrieval id...): at most ``ids`` of them, each string at most 256
        characters (a longer one names nothing: the id rule allows no more). Ids that are
        merely unknown stay the lookup's to report (RecordNotFoundError).

        Raises:
            ValidationError: too many ids, or one too long to be an id; names ``what``.
        """
        for count, value in enumerate(ids, 1):
            if count > self.ids:
                raise ValidationError(f"{what}: more than {self.ids} ids in one call "
                                      "(InputLimits.ids)")
            if isinstance(value, str) and len(value) > MAX_ID_CHARS:
                raise ValidationError(f"{what}: an id of {len(value)} characters names "
                                      f"nothing (ids have at most {MAX_ID_CHARS})",
                                      record_ids=[value[:MAX_ID_CHARS]])

    def check_namespace(self, labels: Iterable[object], key: object = None) -> None:
        """Bound a LangGraph namespace (or prefix; its labels as JSON) and item key: each
        at most ``scope_bytes`` (a namespace is kept as a scope). Raises ValidationError."""
        strings = [label for label in labels if isinstance(label, str)]
        _require_str("a namespace label", "".join(strings), ())
        self._size("the namespace", json.dumps(strings, ensure_ascii=False),
                   self.scope_bytes, "scope_bytes", ())
        if isinstance(key, str):
            _require_str("the key", key, ())
            self._size("the key", key, self.scope_bytes, "scope_bytes", ())

    def check_scope(self, field: str, scope: object, *, tenant: bool = False
                    ) -> dict[str, str]:
        """A scope a caller names to look up (a query scope, a deletion subject), sorted, by
        the one scope rule (:func:`graphmem.fields.check_scope`) with ``scope_bytes`` as its
        bound; ``tenant``: whether it must name a tenant.

        Raises:
            ValidationError: not a mapping of non-empty strings, a lone surrogate, no
                ``tenant`` when required, or over ``scope_bytes``; the message names ``field``.
        """
        return check_scope(scope, what=field, tenant=tenant, max_bytes=self.scope_bytes,
                           bound="InputLimits.scope_bytes")

    def check_terms(self, terms: object) -> tuple[str, ...]:
        """Redaction terms as a tuple: at most ``redact_terms`` strings of at most
        ``term_bytes`` each (emptiness and letters are the matcher's to judge).

        Raises:
            ValidationError: not an iterable of strings (a lone string is refused, not read
                as its letters), too many, one too long or holding a lone surrogate.
        """
        if isinstance(terms, str | bytes | Mapping) or not isinstance(terms, Iterable):
            raise ValidationError("redaction terms must be a list of strings")
        out: list[str] = []
        for term in terms:
            if len(out) >= self.redact_terms:
                raise ValidationError(f"more than {self.redact_terms} redaction terms in one "
                                      "request (InputLimits.redact_terms)")
            _require_str("a redaction term", term, ())
            assert isinstance(term, str)
            self._size("a redaction term", term, self.term_bytes, "term_bytes", ())
            out.append(term)
        return tuple(out)

    # -- documents: deletion plans, certificates ------------------------------------------

    def check_document(self, field: str, text: str | bytes, setting: str) -> str:
        """A JSON document as text, checked before it is parsed: at most the bound named by
        ``setting`` (``plan_bytes``, ``certificate_bytes``), UTF-8, nested at most
        ``json_depth`` deep, number literals at most ``number_chars`` long.

        Raises:
            ValidationError: over one of those bounds, or not UTF-8; names ``field``.
        """
        limit = int(getattr(self, setting))
        size = len(text) if isinstance(text, bytes) else utf8_size(text)
        if size > limit:
            raise ValidationError(f"the {field} is {size} bytes; at most {limit} are allowed "
                                  f"(InputLimits.{setting})")
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise ValidationError(f"the {field} is not UTF-8 text") from None
        try:
            scan_json(text, self.json_depth, self.number_chars)
        except ValidationError as exc:
            raise ValidationError(f"the {field}: {exc}") from None
        return text

    def read_document(self, field: str, path: Path, setting: str) -> str:
        """The text of the JSON document at ``path``, its size checked before it is read
        (then as :meth:`check_document`).

        Raises:
            ValidationError: the file cannot be read, or is over a bound; names ``field``.
        """
        limit = int(getattr(self, setting))
        try:
            with path.open("rb") as fh:
                raw = fh.read(limit + 1)
        except OSError as exc:
            raise ValidationError(f"cannot read the {field} {path}: {exc.strerror or exc}"
                                  ) from None
        if len(raw) > limit:
            raise ValidationError(f"the {field} {path} is over {limit} bytes "
                                  f"(InputLimits.{setting})")
        return self.check_document(field, raw, setting)

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


def _require_str(name: str, value: object, record_ids: Iterable[str]) -> None:
    """A string with a UTF-8 form (no lone surrogate), else a ValidationError naming it."""
    if not isinstance(value, str):
        raise ValidationError(f"{name} must be a string, got {type(value).__name__}",
                              record_ids=list(record_ids))
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValidationError(f"{name} holds a lone surrogate (not valid Unicode text)",
                                  record_ids=list(record_ids)) from None


@lru_cache(maxsize=4096)  # of a provenance's items: an import repeats a few over and over
def _compact_items(items: tuple[tuple[str, str], ...]) -> str:
    return _compact(dict(items))


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # an int too long for Python to print: bounded by check_json_value
        return ""


def loads_bounded(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """``json.loads`` with the nesting depth and the length of number literals bounded
    (:func:`graphmem.fields.loads_json`), so neither a RecursionError (100,000 nested
    brackets) nor a bare ValueError (a 5,000-digit number) can escape.

    Args:
        text: JSON text (one JSON Lines line).
        limits: ``json_depth`` and ``number_chars`` apply.

    Raises:
        ValidationError: not JSON, nested deeper than ``json_depth``, or a number longer
            than ``number_chars``; the message names the top-level field it is under.
    """
    return loads_json(text, limits.json_depth, limits.number_chars)
