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
from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from graphmem.client import Memory
from graphmem.db.access import Access
from graphmem.db.codec import record_row, scope_key, scope_pairs
from graphmem.db.ops import langgraph as lg_ops
from graphmem.db.reserved import LANGGRAPH
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity

from .facts import value_facts
from .items import item_meta
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
        """A namespace's scope with the principal's confinement added."""
        return {**namespace_scope(namespace, tenant), **self.confinement}

    def _prefix(self, tenant: str, namespace: Sequence[str], key: str) -> str:
        return version_prefix(tenant, namespace, key, self.confinement)

    def _check_put(self, op: PutOp) -> PendingPut:
        namespace = check_labels(op.namespace, allow_empty_tuple=False)
        tenant = self.tenant_of(namespace)
        if op.value is None:
            return PendingPut(namespace, str(op.key), None, None, None, None, tenant)
        if not isinstance(op.value, Mapping):
            raise ValidationError("a put value must be a dict (or None to delete)")
        value = dict(op.value)
        try:
            value_json = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"a put value must be JSON-serialisable: {exc}") from None
        index = list(op.index) if isinstance(op.index, list) else None
        return PendingPut(namespace, str(op.key), value, value_json, index, check_ttl(op.ttl),
                          tenant)

    def _content(self, put: PendingPut) -> str:
        assert put.value is not None and put.value_json is not None
        texts = [text for path in (put.index or self.text_fields)
                 for text in get_text_at_path(put.value, path)]
        content = "\n".join(t for t in texts if t.strip()) or put.value_json
        limit = self.memory.store.max_content_bytes
        encoded = content.encode("utf-8")
        if len(encoded) > limit:  # the value itself is kept whole in metadata
            content = encoded[:limit].decode("utf-8", errors="ignore")
        return content

    def _write(self, puts: list[PendingPut], now: datetime) -> None:
        by_tenant: dict[str, int] = defaultdict(int)
        for put in puts:
            by_tenant[put.tenant] += 2  # one number for the put, one for a new namespace
        locks: list[dict[str, Any]] = [
            {"key": scope_key({"tenant": t}), "tenant": t, "pairs": scope_pairs({"tenant": t}),
             "count": n} for t, n in sorted(by_tenant.items())]
        locks.sort(key=lambda row: str(row["key"]))
        store = self.memory.store

        def work(tx: ManagedTransaction) -> None:
            bases = lg_ops.lock_tenants(tx, locks)
            counters = {t: iter(range(base + 1, base + 1 + by_tenant[t]))
                        for t, base in bases.items()}
            scopes: dict[str, dict[str, Any]] = {}
            for put in puts:
                scope = self._scope(put.namespace, put.tenant)
                key = scope_key(scope)
                if put.value is not None and key not in scopes:
                    scopes[key] = {"key": key, "tenant": put.tenant, "pairs": scope_pairs(scope),
                                   "seq": next(counters[put.tenant]),
                                   "langgraph_key": order_key(key)}
            if scopes:
                lg_ops.merge_scopes(tx, list(scopes.values()))
            prefixes = [self._prefix(p.tenant, p.namespace, p.key) for p in puts]
            found = lg_ops.heads(tx, prefixes, self.principal.clearance.rank, now)
            records: list[MemoryRecord] = []
            rows: dict[str, dict[str, Any]] = {}
            superseded: list[tuple[str, str]] = []
            retracted: list[str] = []
            for put, prefix in zip(puts, prefixes, strict=True):
                head = found.get(prefix) or {"id": None, "ended": True, "live": False}
                open_head = not head["ended"]
                if open_head and not head["visible"]:  # above its clearance: never changed
                    raise AuthorizationError("a key is held above this store's clearance")
                if put.value is None:
                    if open_head:
                        retracted.append(head["id"])
                    continue
                seq = next(counters[put.tenant])
                rid = record_id(prefix, seq)
                chain: dict[str, Any] = {"chain_seq": seq, "created_at": now.isoformat()}
                old = item_meta(head) if head["live"] else None
                if old is not None:
                    chain = {"chain_seq": old["chain_seq"], "created_at": old["created_at"]}
                if open_head:
                    superseded.append((head["id"], rid))
                record = self._record(put, rid, seq, chain, now,
                                      head["id"] if open_head else None)
                records.append(record)
                row = record_row(record, False, None)
                row["props"].update(value_facts(put.value))
                row["props"]["lg_order"] = order_key(scope_key(record.scope), int(
                    chain["chain_seq"]), seq)
                rows[rid] = row
            if records:
                for record in records:
                    store.check_new_record(record, adapter=LANGGRAPH)
                todo = store.prepare_in_tx(tx, records)
                store.create_in_tx(tx, todo, rows=rows)
                for record in records:
                    lg_ops.log_decision(
                        tx, record.id, record.tenant,
                        self.access.decided_by(self.actor, record.authority),
                        "LangGraph BaseStore.put: an explicit key-value write, "
                        "stored without the write policy", now)
            for old_id, new_id in superseded:
                store.log_transition(tx, old_id, "superseded", self.actor,
                                     f"LangGraph BaseStore.put of the same key "
                                     f"(successor {new_id})", now)
            for old_id in retracted:
                reason = "LangGraph BaseStore.delete"
                lg_ops.retract(tx, old_id, self.actor, reason, now)
                store.log_transition(tx, old_id, "retract", self.actor, reason, now)

        try:
            store.transaction("langgraph_batch", work)
        except ConstraintError:
            # A concurrent first write created the tenant's or a namespace's Scope first:
            # decide again from what is stored now (the lock then serialises the two).
            store.transaction("langgraph_batch", work)

    def _record(self, put: PendingPut, rid: str, seq: int, chain: dict[str, Any], now: datetime,
                supersedes: str | None) -> MemoryRecord:
        expires = None if put.ttl is None else now + timedelta(minutes=float(put.ttl))
        meta = {"namespace": list(put.namespace), "key": put.key,
                "value_json": put.value_json, "seq": seq, **chain}
        return MemoryRecord(
            id=rid, kind=self.kind, content=self._content(put), created_at=now,
            scope=self._scope(put.namespace, put.tenant),
            provenance={"source": "langgraph", "by": self.actor},
            authority=self.authority, sensitivity=self.sensitivity, expires_at=expires,
            supersedes=(supersedes,) if supersedes else (), metadata={MARKER_KEY: meta},
        )
