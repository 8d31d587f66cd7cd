"""The writing half of :class:`~.store.GraphmemStore`: puts and deletes, as graphmem records
(supersession on overwrite, a tombstone on delete, every write of a tenant under its lock),
and the namespace plumbing both halves share."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from langgraph.store.base import PutOp, get_text_at_path

from graphmem.client import Memory, store_of
from graphmem.db.access import Access
from graphmem.db.codec import record_row, scope_key, scope_pairs
from graphmem.db.ops import langgraph as lg_ops
from graphmem.db.reserved import LANGGRAPH
from graphmem.errors import AuthorizationError, ConstraintViolationError, ValidationError
from graphmem.fields import scope_problem
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity

from .facts import value_facts
from .namespaces import (
    MARKER_KEY,
    check_labels,
    namespace_scope,
    order_key,
    record_id,
    version_prefix,
)
from .ttl import check_ttl

__all__ = ["PendingPut", "PutWrites"]


@dataclass(frozen=True)
class PendingPut:
    """One deduplicated put (value None: delete) with its place in the batch."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    value_json: str | None
    index: list[str] | None
    ttl: float | None
    tenant: str
    #: its embeddings, ``(field, vector)`` (:mod:`.vectors`); None: not embedded
    vectors: list[tuple[str, list[float]]] | None = None


class PutWrites:
    """Puts and deletes of :class:`~.store.GraphmemStore` (see its docstring for the
    mapping), and the namespace plumbing its reads share."""

    memory: Memory
    principal: Principal
    access: Access
    tenant: str | None
    confinement: dict[str, str]
    text_fields: list[str]
    authority: Authority
    kind: MemoryKind
    sensitivity: Sensitivity
    actor: str

    def tenant_of(self, namespace: Sequence[str]) -> str:
        """The tenant of a (non-empty) namespace. Raises AuthorizationError if the
        principal may not use it."""
        tenant = self.tenant or namespace[0]
        if tenant not in self.principal.tenants:
            raise AuthorizationError(
                f"principal may not use tenant {tenant!r} "
                f"(may use: {sorted(self.principal.tenants)})")
        return tenant

    def namespace_scope(self, namespace: tuple[str, ...]) -> dict[str, str]:
        """The graphmem scope a namespace is stored as (for ``Memory.retrieve``/``explain``).

        Raises:
            ValidationError: an empty namespace or label. AuthorizationError.
        """
        namespace = check_labels(namespace, allow_empty_tuple=False)
        return self._scope(namespace, self.tenant_of(namespace))

    def _scope(self, namespace: Sequence[str], tenant: str) -> dict[str, str]:
        """A namespace's scope with the principal's confinement added: where every call of
        the store that names a namespace makes it (put, get, delete, ``namespace_scope``).

        Raises:
            ValidationError: the scope is larger than a scope may be
                (docs/spec/records.md#scope): many short labels, small as the labels'
                JSON (``InputLimits.check_namespace``), make a larger scope, each label
                under a key of its own.
        """
        scope = {**namespace_scope(namespace, tenant), **self.confinement}
        problem = scope_problem(scope, what="the namespace, kept as a scope,")
        if problem is not None:
            raise ValidationError(problem)
        return scope

    def _prefix(self, tenant: str, namespace: Sequence[str], key: str) -> str:
        return version_prefix(tenant, namespace, key, self.confinement)

    def _check_put(self, op: PutOp) -> PendingPut:
        namespace = check_labels(op.namespace, allow_empty_tuple=False)
        tenant = self.tenant_of(namespace)
        if op.value is None:
            return PendingPut(namespace, str(op.key), None, None, None, None, tenant)
        if not isinstance(op.value, Mapping):
            raise ValidationError("a put value must be a dict (or None to delete)")
        value, value_json = self._value_json(dict(op.value))
        index = list(op.index) if isinstance(op.index, list) else None
        return PendingPut(namespace, str(op.key), value, value_json, index, check_ttl(op.ttl),
                          tenant)

    def _value_json(self, value: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A put value as a later read returns it (JSON's: keys as strings), and its JSON.

        Raises:
            ValidationError: the value is nested deeper than ``InputLimits.json_depth`` or
                holds a longer number than ``InputLimits.number_chars`` (the bounds of
                every JSON input), is not JSON-serialisable, holds a lone surrogate, or has
                two keys of one object that JSON writes alike (``1`` and ``"1"``).
        """
        store_of(self.memory).limits.check_json_value("a put value", value)
        try:
            value_json = json.dumps(value, ensure_ascii=False)
            value_json.encode("utf-8")
            read = json.loads(value_json, object_pairs_hook=_distinct_keys)
        except UnicodeEncodeError:
            raise ValidationError("a put value must be valid Unicode text (it holds a lone "
                                  "surrogate)") from None
        except _SameKeys as exc:
            raise ValidationError(f"a put value has keys that JSON writes alike ({exc}): "
                                  "one would be lost") from None
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"a put value must be JSON-serialisable: {exc}") from None
        return read, value_json

    def _content(self, put: PendingPut) -> str:
        assert put.value is not None and put.value_json is not None
        texts = [text for path in (put.index or self.text_fields)
                 for text in get_text_at_path(put.value, path)]
        content = "\n".join(t for t in texts if t.strip()) or put.value_json
        limit = store_of(self.memory).max_content_bytes
        encoded = content.encode("utf-8")
        if len(encoded) > limit:  # the value itself is kept whole in metadata
            content = encoded[:limit].decode("utf-8", errors="ignore")
        return content

    def _write(self, puts: list[PendingPut], now: datetime) -> None:
        """Apply ``puts`` (one per key) in one ``langgraph/put`` statement.

        Raises:
            AuthorizationError: a key is held above this store's clearance (nothing written).
        """
        counts: dict[str, int] = defaultdict(int)
        new_scopes: set[str] = set()
        rows: list[dict[str, Any]] = []
        for put in puts:
            prefix = self._prefix(put.tenant, put.namespace, put.key)
            scope = self._scope(put.namespace, put.tenant)
            key = scope_key(scope)
            row: dict[str, Any] = {"tenant": put.tenant, "prefix": prefix,
                                   "delete": put.value is None, "seq_offset": 0,
                                   "ns_offset": 0, "created_at": now.isoformat(),
                                   "scope": {"key": key, "tenant": put.tenant,
                                             "pairs": scope_pairs(scope),
                                             "langgraph_key": order_key(key)}, "row": None}
            if put.value is not None:
                counts[put.tenant] += 1
                row["seq_offset"] = counts[put.tenant]
                if key not in new_scopes:  # its number, should the statement create it
                    new_scopes.add(key)
                    counts[put.tenant] += 1
                    row["ns_offset"] = counts[put.tenant]
                record = self._record(put, record_id(prefix, 0), now)
                store_of(self.memory).check_new_record(record, adapter=LANGGRAPH)
                table = record_row(record, False, None)
                del table["props"]["id"], table["props"]["supersedes"]  # decided in Cypher
                table["props"].update(value_facts(put.value))
                table["props"]["lg_ttl"] = put.ttl  # minutes, for refresh_ttl
                row["row"] = table
                row["vectors"] = [{"field": name, "vector": vector, "zero": not any(vector)}
                                  for name, vector in put.vectors or ()]
            rows.append(row)
        tenants = sorted({put.tenant for put in puts})
        locks = sorted(({"key": scope_key({"tenant": t}), "tenant": t,
                         "pairs": scope_pairs({"tenant": t}), "count": counts[t]}
                        for t in tenants), key=lambda lock: str(lock["key"]))
        batch = lg_ops.PutBatch(
            locks=locks, puts=rows, clearance=self.principal.clearance.rank, now=now,
            actor=self.actor, by=self.access.decided_by(self.actor, self.authority),
            put_reason="LangGraph BaseStore.put: an explicit key-value write, stored without "
                       "the write policy",
            delete_reason="LangGraph BaseStore.delete",
            superseded_reason="LangGraph BaseStore.put of the same key")
        try:
            forbidden = lg_ops.put_batch(store_of(self.memory), batch)
        except ConstraintViolationError:
            # A concurrent first write created the tenant's or a namespace's Scope first:
            # decide again from what is stored now (the lock then serialises the two).
            forbidden = lg_ops.put_batch(store_of(self.memory), batch)
        if forbidden:
            raise AuthorizationError("a key is held above this store's clearance")

    def _record(self, put: PendingPut, rid: str, now: datetime) -> MemoryRecord:
        """The record a put stores, but for its id and what it supersedes (decided by the
        statement, under the tenant's lock: ``rid`` is a placeholder of the key's prefix)."""
        expires = None if put.ttl is None else now + timedelta(minutes=float(put.ttl))
        meta = {"namespace": list(put.namespace), "key": put.key,
                "value_json": put.value_json}
        return MemoryRecord(
            id=rid, kind=self.kind, content=self._content(put), created_at=now,
            scope=self._scope(put.namespace, put.tenant),
            provenance={"source": "langgraph", "by": self.actor},
            authority=self.authority, sensitivity=self.sensitivity, expires_at=expires,
            metadata={MARKER_KEY: meta},
        )


class _SameKeys(Exception):
    """Two keys of one object of a value that JSON writes alike."""


def _distinct_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook: the object, unless two of its keys are one string."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _SameKeys(repr(key)[:80])
            seen.add(key)
    return out
