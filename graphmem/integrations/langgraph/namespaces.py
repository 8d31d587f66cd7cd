"""How a LangGraph namespace becomes a graphmem scope, and back.

A namespace ``(l0, l1, ..., ln)`` is stored as the scope::

    {"tenant": T, "langgraph": "namespace", "langgraph.0": l0, ..., "langgraph.n": ln}

where ``T`` is ``l0`` (or the store's configured tenant). Each label is a scope value
of its own, keyed by its position, so a prefix is a set of pairs a Scope must contain:
``("a",)`` never matches ``("ab",)``, and labels with dots, ``%``, ``_``, quotes,
non-ASCII or newlines are data, never syntax. The ``langgraph`` marker keeps graphmem's
own records (e.g. a tenant-wide ``{"tenant": T}`` record) out of the store's namespaces.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphmem.db.langgraph_shape import order_key
from graphmem.db.reserved import LANGGRAPH
from graphmem.errors import ValidationError
from graphmem.limits import DEFAULT_LIMITS

__all__ = [
    "MARKER_KEY",
    "MARKER_VALUE",
    "item_meta",
    "label_key",
    "namespace_from_pairs",
    "namespace_scope",
    "order_key",
    "prefix_pairs",
    "record_id",
    "version_prefix",
]

MARKER_KEY = LANGGRAPH
MARKER_VALUE = "namespace"
_ID_HASH_CHARS = 40
_SEQ_DIGITS = 16


#: The fields the adapter keeps in ``metadata[MARKER_KEY]`` of every record it writes.
_META_FIELDS = ("namespace", "key", "value_json")
#: The key's first sequence number and first put time (ISO text) of a version: record
#: properties (``langgraph/put`` decides them); versions written before kept them in the
#: metadata, under the names of the values.
_CHAIN_FIELDS = (("lg_chain_seq", "chain_seq"), ("lg_created_at", "created_at"))


def item_meta(props: Mapping[str, Any]) -> dict[str, Any] | None:
    """The adapter's own metadata (``metadata["langgraph"]``) of a stored record's
    properties, with the key's ``chain_seq`` and ``created_at``; None for a record the
    adapter did not write (one stored in a namespace's scope before its keys were reserved:
    :mod:`graphmem.db.reserved`), which it ignores."""
    try:
        meta = json.loads(props.get("metadata_json") or "{}").get(MARKER_KEY)
    except (TypeError, ValueError, AttributeError):
        return None
    if not isinstance(meta, dict) or not all(f in meta for f in _META_FIELDS):
        return None
    for prop, field in _CHAIN_FIELDS:
        if props.get(prop) is not None:
            meta[field] = props[prop]
    if not all(field in meta for _, field in _CHAIN_FIELDS):
        return None
    return meta


def label_key(position: int) -> str:
    """The scope key of the label at ``position`` (0-based)."""
    return f"{MARKER_KEY}.{position}"


def check_labels(labels: Sequence[object], *, allow_empty_tuple: bool) -> tuple[str, ...]:
    """The labels as a tuple of non-empty strings.

    Raises:
        ValidationError: a label is not a non-empty string, the labels are over
            ``InputLimits.scope_bytes``, or the tuple is empty where a namespace is required
            (LangGraph's own methods raise ``InvalidNamespaceError`` first; this guards ops
            handed straight to ``batch``).
    """
    if not isinstance(labels, tuple | list):
        raise ValidationError("a namespace must be a tuple of strings")
    if not labels and not allow_empty_tuple:
        raise ValidationError("a namespace cannot be empty")
    for label in labels:
        if not isinstance(label, str) or not label:
            raise ValidationError("namespace labels must be non-empty strings")
    DEFAULT_LIMITS.check_namespace(labels)  # no larger than a scope can hold
    return tuple(str(label) for label in labels)


def namespace_scope(namespace: Sequence[str], tenant: str) -> dict[str, str]:
    """The graphmem scope of ``namespace`` in ``tenant`` (see the module docstring)."""
    scope = {"tenant": tenant, MARKER_KEY: MARKER_VALUE}
    scope.update({label_key(i): label for i, label in enumerate(namespace)})
    return scope


def prefix_pairs(labels: Iterable[tuple[int, str]]) -> list[str]:
    """Pairs (JSON ``[key, value]``, as the store encodes them) a Scope must contain to lie
    under a prefix: the marker and each ``(position, label)`` given (wildcards left out)."""
    pairs = [json.dumps([MARKER_KEY, MARKER_VALUE], ensure_ascii=False)]
    pairs += [json.dumps([label_key(i), label], ensure_ascii=False) for i, label in labels]
    return pairs


def namespace_from_pairs(pairs: Iterable[str]) -> tuple[str, ...]:
    """The namespace a Scope's ``pairs`` encode (the labels in position order)."""
    labels: dict[int, str] = {}
    prefix = f"{MARKER_KEY}."
    for pair in pairs:
        key, value = json.loads(pair)
        if key.startswith(prefix) and key[len(prefix):].isdigit():
            labels[int(key[len(prefix):])] = value
    return tuple(labels[i] for i in sorted(labels))


def version_prefix(tenant: str, namespace: Sequence[str], key: str,
                   confinement: Mapping[str, str] | None = None) -> str:
    """The id prefix shared by every version of ``(namespace, key)`` in ``tenant`` (and, for
    a confined store, its confinement: each confinement keeps its own versions).

    A hash, so ids obey docs/spec/records.md (no whitespace, control or invisible characters,
    at most 256 characters) whatever the labels and key hold, and one index seek
    (``STARTS WITH``) finds every version.

    Raises:
        ValidationError: ``key`` over ``InputLimits.scope_bytes``.
    """
    DEFAULT_LIMITS.check_namespace((), key)  # before it is hashed
    parts: list[object] = [tenant, list(namespace), key]
    if confinement:
        parts.append(sorted(confinement.items()))
    payload = json.dumps(parts, ensure_ascii=False)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:_ID_HASH_CHARS]
    return f"lg-{digest}-"


def record_id(prefix: str, seq: int) -> str:
    """The id of the version written with sequence number ``seq``; zero-padded, so ids of
    one key sort in write order."""
    return f"{prefix}{seq:0{_SEQ_DIGITS}d}"

