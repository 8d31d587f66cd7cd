"""How records become Neo4j properties and back: scope encoding, fingerprints, property
maps, coercion of user input into :class:`MemoryRecord` (docs/spec/records.md).

A scope is stored as ``pairs``: JSON-encoded ``[key, value]`` strings, so that any key or
value (quotes, backticks, ``=``) is data and never query text.
"""

from __future__ import annotations

import gc
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import pydantic
from neo4j import time as neo4j_time

from graphmem.errors import (
    NaiveDatetimeError,
    ValidationError,
)
from graphmem.fields import duplicate_text, scope_text, utc_now
from graphmem.models import Authority, MemoryKind, MemoryRecord, Sensitivity

DEFAULT_MAX_CONTENT_BYTES = 64 * 1024
TIME_PROPS = ("created_at", "valid_from", "expires_at")
END_OF_STREAM: Any = object()
#: A record's version stamps, bookkeeping of cached candidates answers, no content: the
#: ScopeVersion rev and epoch of its last change (``stamp``, ``sepoch``: ``parts/scope_bump``)
#: and the WriteSlot index, seq and epoch of the policy write that made it (``wslot``, ``wseq``,
#: ``wepoch``: ``parts/record_store``), by which delta reads find what changed
#: (``candidates_delta.cypher``). A tombstone keeps its last ScopeVersion stamp.
STAMP_KEYS: frozenset[str] = frozenset({"stamp", "sepoch", "wslot", "wseq", "wepoch"})
#: The properties of an erased record's content-free tombstone (``deletion/erase_records``
#: replaces every property by these; docs/spec/deletion.md), besides its :data:`STAMP_KEYS`.
TOMBSTONE_KEYS: frozenset[str] = frozenset({
    "id", "kind", "tenant", "scope_json", "sensitivity", "sensitivity_rank", "created_at",
    "valid_from", "expires_at", "admitted", "retracted", "quarantined", "pending_recompute",
    "erased", "erased_at", "erased_by_request", "erasure_reason", "rev"})
Clock = Callable[[], datetime]


def scope_pairs(scope: dict[str, str]) -> list[str]:
    """The scope as sorted JSON-encoded ``[key, value]`` strings."""
    return list(_scope_encoded(tuple(sorted(scope.items())))[1])


def scope_key(scope: dict[str, str]) -> str:
    """A canonical, unique string for a scope (the Scope node's key)."""
    return _scope_encoded(tuple(sorted(scope.items())))[0]


@lru_cache(maxsize=65_536)
def _scope_encoded(items: tuple[tuple[str, str], ...]) -> tuple[str, tuple[str, ...]]:
    """(key, pairs) of a scope given as sorted items; a store sees few distinct scopes."""
    return (scope_text(items),
            tuple(json.dumps([k, v], ensure_ascii=False) for k, v in items))


#: Version of :func:`dedup_key`'s normalisation; stored keys of an older version are
#: recomputed by :meth:`graphmem.db.base.StoreBase.ensure_schema` (graphmem.db.migrations).
DEDUP_VERSION = 4  # 3: trailing Terminal_Punctuation goes; 4: NFKC and the Turkish I fold too


def _text_digest(*parts: str) -> str:
    """SHA-256 (hex) of the JSON of ``parts``: any character of a part is data."""
    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode()).hexdigest()


def assertion_group(tenant: str, key: str) -> str:
    """The ``gkey`` of the assertion group of ``key`` in ``tenant``: a digest of both, never
    the asserted key's text, which an erasure may remove while an index keeps a removed
    key's bytes in its file (:mod:`graphmem.db.index_key`; docs/spec/deletion.md)."""
    return _text_digest(tenant, key)


def thread_key(tenant: str, thread: str | None) -> str | None:
    """The indexed ``thread_key`` of a record in thread ``thread`` of ``tenant`` (a digest of
    both, so the thread index holds no thread name: see :func:`assertion_group`); None
    outside a thread."""
    return None if thread is None else _text_digest(tenant, thread)


def dedup_key(record: MemoryRecord) -> str:
    """Hash of kind and :func:`graphmem.models.duplicate_text` of the content: equal keys in
    one scope are duplicates (docs/spec/write-path.md). The one normalisation every write path uses
    (the policy's write transaction, redaction, recompute, the stored-key migration)."""
    return content_dedup_key(record.kind.value, record.content)


def content_dedup_key(kind: str, content: str) -> str:
    """:func:`dedup_key` from a kind value and a content string (for stored rows)."""
    normalised = duplicate_text(content)
    return hashlib.sha256(f"{kind}\x1f{normalised}".encode()).hexdigest()


def require_aware(value: datetime, name: str) -> datetime:
    """Return ``value`` in UTC.

    Raises:
        NaiveDatetimeError: ``value`` has no timezone.
        ValidationError: ``value`` is not a datetime, or its UTC form is outside the years
            1-9999 (e.g. ``datetime.max`` at UTC-14:00).
    """
    if not isinstance(value, datetime):
        raise ValidationError(f"{name} must be a timezone-aware datetime, got "
                              f"{type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveDatetimeError(f"{name} must be a timezone-aware datetime (UTC), got a naive one")
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValidationError(f"{name} is outside the range of UTC datetimes") from None


def checked_clock(clock: Clock) -> Clock:
    """``clock`` with each reading checked and made UTC as a call's ``now`` is
    (:func:`require_aware`); the default :func:`~graphmem.fields.utc_now` as it is.

    The returned clock raises NaiveDatetimeError for a naive reading (it would be stored as
    a local time) and ValidationError for one that is no datetime (a raw AttributeError
    deep in a write) or outside the UTC years 1-9999.
    """
    if clock is utc_now:
        return clock

    def read() -> datetime:
        return require_aware(clock(), "the clock's time")

    return read


def content_bound(value: object) -> int:
    """``value`` as a store's ``max_content_bytes``: a positive int (not a bool), the largest
    record content accepted, in UTF-8 bytes (docs/spec/records.md#content).

    Raises:
        ValidationError: anything else (0 or a negative bound made every write fail as
            content too large; a float or a string failed at the first write).
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        shown = value if isinstance(value, int) else type(value).__name__
        raise ValidationError(f"max_content_bytes must be a positive int, got {shown}")
    return value


def to_native(value: Any) -> Any:
    if isinstance(value, neo4j_time.DateTime):
        return value.to_native().astimezone(UTC)
    return value



@dataclass(frozen=True)
class StoredState:
    """Lifecycle state the store keeps beside a record (not part of the record itself)."""

    quarantined: bool
    pending_recompute: bool
    erased: bool
    retracted_by: str | None
    retracted_reason: str | None
    retracted_at: datetime | None


_gc_pause_lock = threading.Lock()
_gc_pauses = 0  # how many paused_gc blocks are open, in any thread
_gc_was_enabled = False
_gc_young_collected = 0.0  # time.monotonic() of the last young collection during a pause
_gc_depth = threading.local()  # how many blocks are open in this thread (``n``)
YOUNG_COLLECTION_EVERY_S = 0.1
"""While blocks overlap without a break (a busy server), the young generations are still
collected this often, so cycles made meanwhile are freed even if the pause never ends. Each
collection holds the interpreter lock for as long as it takes, which grows with what was
made since the last one: at 1 s, 20 concurrent reads made pauses of 60-250 ms (an event
loop's 5 ms ticker stalled as long: ``bench.async_client``); at 0.05 s, 5-13 ms."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building many small objects at once.

    A deletion walk decodes and arranges millions of strings and lists, and every read
    builds per-candidate lists, tuples and maps over thousands of records, none cyclic:
    each allocation burst otherwise triggers collections over the whole heap (the client's
    record cache included), which cost about as much as the work itself (measured: 1.9 s ->
    1.1 s for a 10^5-descendant walk; about 20 ms of GC per write-then-read loop at 10^4
    candidates). Reference counting still frees everything; the collector resumes
    when the last open block in any thread closes, and is left as it was found. While
    blocks in several threads keep overlapping, a block that closes collects the young
    generations (what was made during the pause) at most every
    :data:`YOUNG_COLLECTION_EVERY_S` seconds; a block nested in another of its own thread
    never does (everything made meanwhile is still in use by the outer one, and the
    collection would walk all of it, as long as a deletion plan's own work).
    """
    global _gc_pauses, _gc_was_enabled, _gc_young_collected
    _gc_depth.n = getattr(_gc_depth, "n", 0) + 1
    with _gc_pause_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            _gc_young_collected = time.monotonic()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        _gc_depth.n -= 1
        with _gc_pause_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0:
                if _gc_was_enabled:
                    gc.enable()
            elif (_gc_was_enabled and _gc_depth.n == 0
                  and time.monotonic() - _gc_young_collected > YOUNG_COLLECTION_EVERY_S):
                _gc_young_collected = time.monotonic()
                gc.collect(1)


def record_fingerprint(record: MemoryRecord) -> str:
    """SHA-256 of the record's canonical JSON: equal for an identical re-write
    (docs/spec/records.md)."""
    return hashlib.sha256(record.fingerprint_payload().encode()).hexdigest()


def record_props(record: MemoryRecord, *, quarantined: bool = False,
                 fingerprint: str | None = None, dedup: str | None = None) -> dict[str, Any]:
    """Flat Neo4j properties of a record (maps are stored as JSON strings).

    ``fingerprint``, ``dedup``: the record's :func:`record_fingerprint` and
    :func:`dedup_key`, when the caller has them already.
    """
    return {
        "id": record.id,
        "kind": record.kind.value,
        "content": record.content,
        "created_at": record.created_at,
        "tenant": record.tenant,
        "scope_json": _text_map_json(tuple(record.scope.items())),
        "provenance_json": _text_map_json(tuple(record.provenance.items())),
        "source": record.provenance.get("source"),
        "authority": record.authority.value,
        "authority_rank": record.authority.rank,
        "sensitivity": record.sensitivity.value,
        "sensitivity_rank": record.sensitivity.rank,
        "asserts": record.asserts,
        "asserted_value": record.asserted_value,
        "valid_from": record.valid_from,
        "expires_at": record.expires_at,
        "supersedes": list(record.supersedes),
        "derived_from": list(record.derived_from),
        "evidence_ids": list(record.evidence_ids),
        "retracted": record.retracted,
        "metadata_json": (json.dumps(record.metadata, sort_keys=True, ensure_ascii=False)
                          if record.metadata else "{}"),
        "thread": record.thread,
        "thread_key": thread_key(record.tenant, record.thread),
        "position": record.position,
        "fingerprint": fingerprint or record_fingerprint(record),
        "dedup_key": dedup or dedup_key(record),
        "quarantined": quarantined,
        "pending_recompute": False,
        "erased": False,
        "rev": 0,
    }


@lru_cache(maxsize=65_536)
def _text_map_json(items: tuple[tuple[str, str], ...]) -> str:
    """The sorted JSON of a map of strings to strings (a scope, a provenance) given as its
    items: a bulk import repeats a few of them over and over."""
    return json.dumps(dict(items), sort_keys=True, ensure_ascii=False)


def record_from_props(props: dict[str, Any]) -> MemoryRecord:
    """The one place where a stored row becomes a :class:`MemoryRecord`.

    Every stored record passed ``MemoryRecord`` validation on its way in and lifecycle
    transitions keep it valid, so rows are rebuilt with ``model_construct`` (typed field by
    field, no re-validation): reading 10^4 candidates is dominated by this function.
    """
    get = props.get
    return MemoryRecord.model_construct(
        id=props["id"],
        kind=MemoryKind(props["kind"]),
        content=props["content"],
        created_at=to_native(props["created_at"]),
        scope=json.loads(props["scope_json"]),
        provenance=json.loads(get("provenance_json") or "{}"),
        authority=Authority(props["authority"]),
        asserts=get("asserts"),
        asserted_value=get("asserted_value"),
        valid_from=to_native(get("valid_from")),
        expires_at=to_native(get("expires_at")),
        supersedes=tuple(get("supersedes") or ()),
        retracted=bool(get("retracted")),
        evidence_ids=tuple(get("evidence_ids") or ()),
        derived_from=tuple(get("derived_from") or ()),
        sensitivity=Sensitivity(props["sensitivity"]),
        metadata=json.loads(get("metadata_json") or "{}"),
        thread=get("thread"),
        position=get("position"),
    )


def state_from_props(props: dict[str, Any]) -> StoredState:
    """The lifecycle flags kept beside a record."""
    return StoredState(
        quarantined=bool(props.get("quarantined")),
        pending_recompute=bool(props.get("pending_recompute")),
        erased=bool(props.get("erased")),
        retracted_by=props.get("retracted_by"),
        retracted_reason=props.get("retracted_reason"),
        retracted_at=to_native(props.get("retracted_at")),
    )


def coerce_record(record: MemoryRecord | dict[str, Any]) -> MemoryRecord:
    """Validate a dict into a record, re-raising pydantic errors as graphmem's own.

    A record instance is validated again, field by field: ``model_copy(update=...)`` and
    ``model_construct`` build instances without validation, and every write path comes through
    here, so none of them stores an id (or any field) that breaks docs/spec/records.md.

    Raises:
        NaiveDatetimeError: a datetime field had no timezone.
        ValidationError: any other rule of docs/spec/records.md was broken.
    """
    if isinstance(record, MemoryRecord):
        record = dict(record)
    try:
        return MemoryRecord.model_validate(record)
    except pydantic.ValidationError as exc:
        rid = record.get("id") if isinstance(record, dict) else None
        ids = [rid] if isinstance(rid, str) and rid else []
        if "naive datetime" in str(exc):
            raise NaiveDatetimeError(f"invalid record: {summarize(exc)}", record_ids=ids) from None
        raise ValidationError(f"invalid record: {summarize(exc)}", record_ids=ids) from None


def summarize(exc: pydantic.ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(x) for x in err['loc']) or 'record'}: {err['msg']}" for err in exc.errors()
    )



def record_row(record: MemoryRecord, quarantined: bool, fingerprint: str | None,
               dedup: str | None = None) -> dict[str, Any]:
    """One ``records/create`` row; datetimes as ISO-8601 strings (see create_in_tx).
    ``dedup``: the record's :func:`dedup_key`, when the caller has it already."""
    props = record_props(record, quarantined=quarantined, fingerprint=fingerprint, dedup=dedup)
    times = {k: None if props[k] is None else props.pop(k).isoformat() for k in TIME_PROPS}
    return {"props": props, "times": times, "scope_key": scope_key(record.scope)}
