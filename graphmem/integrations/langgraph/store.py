"""``GraphmemStore``: LangGraph's ``BaseStore`` on graphmem. See :class:`GraphmemStore` for
the mapping. Reads are decided in Cypher (``cypher/langgraph/get``, ``langgraph/items``,
``langgraph/namespaces``: eligible and ACTIVE, docs/spec/eligibility.md#eligible-and-active); value
filters, ranking and pagination run in Python, as the read path does (docs/spec/read-path.md).
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    get_text_at_path,
)
from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

# Not in graphmem.__all__ (kept to these two lines): ranking.order_by_score and
# store.record_from_props / scope_key / scope_pairs (row decoding and scope encoding).
from graphmem.client import Memory
from graphmem.db.access import Access
from graphmem.db.codec import record_from_props, scope_key, scope_pairs
from graphmem.db.reserved import LANGGRAPH
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.models import Authority, MemoryKind, MemoryRecord, Principal, Sensitivity
from graphmem.read.rankers import BM25Ranker, Ranker, order_by_score
from graphmem.write.policy import PROCEDURE_EXEMPT_AUTHORITIES

from . import filters
from .items import item_meta, path_matches, to_item
from .namespaces import (
    MARKER_KEY,
    check_labels,
    namespace_from_pairs,
    namespace_scope,
    prefix_pairs,
    record_id,
    version_prefix,
)
from .ttl import check_ttl

__all__ = ["GraphmemStore"]


@dataclass(frozen=True)
class _Put:
    """One deduplicated put (value None: delete) with its place in the batch."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    value_json: str | None
    index: list[str] | None
    ttl: float | None
    tenant: str


class GraphmemStore(BaseStore):
    """LangGraph long-term memory whose items are graphmem records.

    Switch a graph over with one line: ``graph.compile(store=GraphmemStore(memory,
    principal=Principal(tenants={"alice"})))``.

    Mapping (docs/integrations/langgraph.md):

    - A namespace tuple is a scope: ``{"tenant": T, "langgraph": "namespace",
      "langgraph.0": label0, ...}`` (:mod:`.namespaces`). ``T`` is the first label, or
      ``tenant`` when configured. A namespace whose tenant is not one of the principal's
      raises :class:`~graphmem.errors.AuthorizationError`, never an empty success.
    - A confined principal (``Principal(..., scope={"user": "u-17"})``) adds its pairs to
      every namespace's scope: its puts are stored there, and ``get``, ``search``,
      ``list_namespaces`` and ``delete`` reach only items stored under the same
      confinement (docs/spec/eligibility.md), never another user's of the same namespace.
    - ``put`` writes a record: content from ``text_fields`` (LangGraph path syntax; the
      whole value as JSON by default), the value kept verbatim in
      ``metadata["langgraph"]``. A second put of the same (namespace, key) is a new
      record that **supersedes** the previous one; ``get`` returns the newest and
      ``explain`` of the old says SUPERSEDED. Puts are explicit application writes, so
      they bypass the write policy's duplicate and evidence rules (which would drop a key
      whose value equals another key's, breaking get-after-put), are stored with
      ``authority`` (default human_instruction), and a PERSIST write decision with that
      reason is logged for each.
    - ``delete`` retracts the live version (a tombstone with who/why/when).
    - ``ttl`` (minutes) sets ``expires_at``; expired items are never returned. Records are
      immutable and reads never write, so ``refresh_ttl`` is ignored: a put renews.
    - ``search`` covers the prefix and every deeper namespace, eligible and ACTIVE only,
      filtered like ``InMemoryStore``. Without a query, items come in insertion order
      (namespaces by first put, keys by first put since their last delete, as in
      ``InMemoryStore``; several tenants are taken in sorted order); with a query, by the
      ranker (BM25 by default) with ``score`` set, ties as in docs/spec/read-path.md.
    - ``list_namespaces`` lists namespaces holding at least one live item (as
      PostgresStore does), with prefix/suffix ``*`` wildcards, ``max_depth``, sorted.
    - ``created_at`` is when the key was first put since its last delete; ``updated_at``
      when the live version was written (aware UTC).
    - A batch answers its reads first, then applies its puts (the last put of a key
      wins) in one transaction, as LangGraph's own stores do.

    Args:
        memory: a connected :class:`~graphmem.Memory`.
        principal: who reads and writes (tenants, clearance and confinement ``scope``).
        tenant: put every namespace in this tenant instead of its first label.
        text_fields: paths whose text becomes the record content (default ``["$"]``).
        authority, kind, sensitivity: what each written record carries.
        max_authority: the most authority puts may claim (each decision records both).
        ranker: ranks search results for a query (default :class:`~graphmem.BM25Ranker`).
        actor: the ``by`` of write decisions, supersessions and retractions.
        ttl_config: LangGraph's TTL settings (``default_ttl`` is used; ``omit_expired``
            may only be True: expired items are never returned).

    Raises:
        ValidationError: ``sensitivity`` above the principal's clearance, an empty ``actor``,
            ``ttl_config`` with ``omit_expired=False``, or procedural ``kind`` with an
            authority the procedure bar does not exempt.
        AuthorizationError: ``tenant`` outside the principal's tenants or confinement;
            AuthorityCeilingError: ``authority`` above ``max_authority``.
    """

    supports_ttl: bool = True

    def __init__(
        self,
        memory: Memory,
        *,
        principal: Principal,
        tenant: str | None = None,
        text_fields: Sequence[str] | None = None,
        authority: Authority = Authority.HUMAN_INSTRUCTION,
        kind: MemoryKind = MemoryKind.SEMANTIC,
        sensitivity: Sensitivity = Sensitivity.NORMAL,
        ranker: Ranker | None = None,
        actor: str = "langgraph",
        ttl_config: TTLConfig | None = None,
        max_authority: Authority = Authority.HUMAN_INSTRUCTION,
    ) -> None:
        if sensitivity > principal.clearance:
            raise ValidationError("the store's sensitivity is above the principal's clearance")
        if not actor:
            raise ValidationError("actor must be non-empty")
        if kind is MemoryKind.PROCEDURAL and authority not in PROCEDURE_EXEMPT_AUTHORITIES:
            raise ValidationError("procedural puts need human_instruction/authoritative_source")
        if ttl_config is not None and ttl_config.get("omit_expired", True) is False:
            raise ValidationError("omit_expired=False is not supported: graphmem never "
                                  "returns an expired item (docs/integrations/langgraph.md)")
        if tenant is not None and tenant not in principal.tenants:
            raise AuthorizationError(f"principal may not use tenant {tenant!r}")
        self.access = Access(principal=principal, max_authority=Authority(max_authority))
        self.access.check_authority(authority)  # AuthorityCeilingError
        self.confinement = {k: v for k, v in principal.scope.items() if k != "tenant"}
        tenant = principal.confine({"tenant": tenant})["tenant"] if tenant else \
            principal.scope.get("tenant")
        self.memory = memory
        self.principal = principal
        self.tenant = tenant
        self.text_fields = list(text_fields) if text_fields else ["$"]
        self.authority = authority
        self.kind = kind
        self.sensitivity = sensitivity
        self.ranker: Ranker = ranker or BM25Ranker()
        self.actor = actor
        self.ttl_config = ttl_config
    # -- graphmem views --------------------------------------------------------------

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

    def _pairs(self, labels: Iterable[tuple[int, str]]) -> list[str]:  # under a prefix
        return prefix_pairs(labels) + scope_pairs(self.confinement)

    def record_ids(self, namespace: tuple[str, ...], key: str) -> list[str]:
        """Ids of every version of (namespace, key), oldest first, deleted ones included."""
        namespace = check_labels(namespace, allow_empty_tuple=False)
        prefix = self._prefix(self.tenant_of(namespace), namespace, str(key))
        return [row["id"] for row in self.memory.store.read("langgraph/versions",
                                                            prefix=prefix)]

    # -- BaseStore ---------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops in one call: reads answered first, then the puts in one transaction.

        Returns one result per op, in op order.

        Raises:
            ValidationError: a malformed op (nothing is read or written).
            AuthorizationError: an op names a tenant the principal may not use, or writes a
                key whose live item is above the principal's clearance (nothing written).
        """
        ops = list(ops)
        puts: dict[tuple[tuple[str, ...], str], _Put] = {}
        for op in ops:  # every op is checked before anything is read or written
            if isinstance(op, PutOp):
                put = self._check_put(op)
                puts[(put.namespace, put.key)] = put
            elif isinstance(op, GetOp):
                self.tenant_of(check_labels(op.namespace, allow_empty_tuple=False))
            elif isinstance(op, SearchOp):
                self._search_tenants(check_labels(op.namespace_prefix, allow_empty_tuple=True))
                filters.check_filter(op.filter)
            elif isinstance(op, ListNamespacesOp):
                self._list_selector(op)
            else:
                raise ValidationError(f"unknown store operation {type(op).__name__}")
        now = self.memory.store.clock()
        results: list[Result] = [None] * len(ops)
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            for i, item in self._get_many([op for _, op in gets], now):
                results[gets[i][0]] = item
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._search(op, now)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op, now)
        if puts:
            self._write(list(puts.values()), now)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (graphmem's client is synchronous)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- reads -----------------------------------------------------------------------

    def _read_params(self, now: datetime) -> dict[str, Any]:
        return {"tenants": sorted(self.principal.tenants),
                "clearance": self.principal.clearance.rank, "now": now}

    def _get_many(self, ops: Sequence[GetOp], now: datetime) -> Iterator[tuple[int, Item]]:
        gets = []
        for i, op in enumerate(ops):
            namespace = check_labels(op.namespace, allow_empty_tuple=False)
            tenant = self.tenant_of(namespace)
            gets.append({"i": i, "prefix": self._prefix(tenant, namespace, str(op.key)),
                         "key": scope_key(self._scope(namespace, tenant))})
        for row in self.memory.store.read("langgraph/get", gets=gets, **self._read_params(now)):
            if item_meta(row["record"]) is not None:  # else not written by this adapter
                yield int(row["i"]), to_item(row["record"], Item)

    def _search_tenants(self, prefix: tuple[str, ...]) -> list[str]:
        if self.tenant is not None:
            return [self.tenant]
        if prefix:
            return [self.tenant_of(prefix)]
        return sorted(self.principal.tenants)

    def _search(self, op: SearchOp, now: datetime) -> list[SearchItem]:
        prefix = check_labels(op.namespace_prefix, allow_empty_tuple=True)
        tenants = self._search_tenants(prefix)
        rows = self.memory.store.read(
            "langgraph/items", search_tenants=tenants, pairs=self._pairs(enumerate(prefix)),
            **self._read_params(now))
        found = []
        for row in rows:
            meta = item_meta(row["record"])  # None: a record this adapter did not write
            if meta is not None and filters.matches(json.loads(meta["value_json"]), op.filter):
                order = (tenants.index(row["record"]["tenant"]), int(row["ns_seq"]),
                         int(meta["chain_seq"]))
                found.append((order, row["record"]))
        found.sort(key=lambda pair: pair[0])
        window = slice(op.offset, op.offset + op.limit)
        if not op.query:
            return [to_item(props, SearchItem) for _, props in found[window]]
        records = [record_from_props(props) for _, props in found]
        by_id = {props["id"]: props for _, props in found}
        ranked = order_by_score(records, self.ranker.score(op.query, records))
        return [to_item(by_id[record.id], SearchItem, score=float(score))
                for record, score in ranked[window]]

    def _list_selector(self, op: ListNamespacesOp) -> tuple[list[str], list[str] | None]:
        """(tenants, required pairs) for a listing; pairs None: nothing can match."""
        fixed: dict[int, str] = {}
        for condition in op.match_conditions or ():
            path = check_labels(condition.path, allow_empty_tuple=True)
            if condition.match_type not in ("prefix", "suffix"):
                raise ValidationError(f"unsupported match type {condition.match_type!r}")
            if condition.match_type == "prefix":
                for i, label in enumerate(path):
                    if label != "*" and fixed.setdefault(i, label) != label:
                        return [], None
        if self.tenant is None and 0 in fixed:
            tenants = [self.tenant_of((fixed[0],))]
        else:
            tenants = self._search_tenants(())
        return tenants, self._pairs(sorted(fixed.items()))

    def _list_namespaces(self, op: ListNamespacesOp, now: datetime) -> list[tuple[str, ...]]:
        tenants, pairs = self._list_selector(op)
        if pairs is None:
            return []
        rows = self.memory.store.read("langgraph/namespaces", search_tenants=tenants,
                                      pairs=pairs, **self._read_params(now))
        namespaces = [namespace_from_pairs(row["pairs"]) for row in rows]
        namespaces = [ns for ns in namespaces
                      if all(path_matches(c.match_type, tuple(c.path), ns)
                             for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = sorted({ns[:op.max_depth] for ns in namespaces})
        else:
            namespaces = sorted(set(namespaces))
        return namespaces[op.offset:op.offset + op.limit]

    # -- writes ----------------------------------------------------------------------

    def _check_put(self, op: PutOp) -> _Put:
        namespace = check_labels(op.namespace, allow_empty_tuple=False)
        tenant = self.tenant_of(namespace)
        if op.value is None:
            return _Put(namespace, str(op.key), None, None, None, None, tenant)
        if not isinstance(op.value, Mapping):
            raise ValidationError("a put value must be a dict (or None to delete)")
        value = dict(op.value)
        try:
            value_json = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"a put value must be JSON-serialisable: {exc}") from None
        index = list(op.index) if isinstance(op.index, list) else None
        return _Put(namespace, str(op.key), value, value_json, index, check_ttl(op.ttl), tenant)

    def _content(self, put: _Put) -> str:
        assert put.value is not None and put.value_json is not None
        texts = [text for path in (put.index or self.text_fields)
                 for text in get_text_at_path(put.value, path)]
        content = "\n".join(t for t in texts if t.strip()) or put.value_json
        limit = self.memory.store.max_content_bytes
        encoded = content.encode("utf-8")
        if len(encoded) > limit:  # the value itself is kept whole in metadata
            content = encoded[:limit].decode("utf-8", errors="ignore")
        return content

    def _write(self, puts: list[_Put], now: datetime) -> None:
        by_tenant: dict[str, int] = defaultdict(int)
        for put in puts:
            by_tenant[put.tenant] += 2  # one number for the put, one for a new namespace
        locks: list[dict[str, Any]] = [
            {"key": scope_key({"tenant": t}), "tenant": t, "pairs": scope_pairs({"tenant": t}),
             "count": n} for t, n in sorted(by_tenant.items())]
        locks.sort(key=lambda row: str(row["key"]))
        store = self.memory.store

        def work(tx: ManagedTransaction) -> None:
            counters = {row["tenant"]: iter(range(int(row["base"]) + 1,
                                                  int(row["base"]) + 1 + by_tenant[row["tenant"]]))
                        for row in store.run(tx, "langgraph/lock", rows=locks)}
            scopes: dict[str, dict[str, Any]] = {}
            for put in puts:
                scope = self._scope(put.namespace, put.tenant)
                key = scope_key(scope)
                if put.value is not None and key not in scopes:
                    scopes[key] = {"key": key, "tenant": put.tenant, "pairs": scope_pairs(scope),
                                   "seq": next(counters[put.tenant])}
            if scopes:
                store.run(tx, "langgraph/scopes", scopes=list(scopes.values()))
            prefixes = [self._prefix(p.tenant, p.namespace, p.key) for p in puts]
            heads = {row["prefix"]: row for row in store.run(
                tx, "langgraph/heads", prefixes=prefixes,
                clearance=self.principal.clearance.rank, now=now)}
            records: list[MemoryRecord] = []
            superseded: list[tuple[str, str]] = []
            retracted: list[str] = []
            for put, prefix in zip(puts, prefixes, strict=True):
                head = heads.get(prefix) or {"id": None, "ended": True, "live": False}
                open_head = not head["ended"]
                if open_head and not head["visible"]:  # above its clearance: never changed
                    raise AuthorizationError("a key is held above this store's clearance")
                if put.value is None:
                    if open_head:
                        retracted.append(head["id"])
                    continue
                seq = next(counters[put.tenant])
                rid = record_id(prefix, seq)
                chain = {"chain_seq": seq, "created_at": now.isoformat()}
                old = item_meta(head) if head["live"] else None
                if old is not None:
                    chain = {"chain_seq": old["chain_seq"], "created_at": old["created_at"]}
                if open_head:
                    superseded.append((head["id"], rid))
                records.append(self._record(put, rid, seq, chain, now,
                                            head["id"] if open_head else None))
            if records:
                for record in records:
                    store.check_new_record(record, adapter=LANGGRAPH)
                store.create_in_tx(tx, store.prepare_in_tx(tx, records))
                for record in records:
                    store.run(tx, "write/decision_log", record_id=record.id, tenant=record.tenant,
                              disposition="PERSIST", at=now,
                              by=self.access.decided_by(self.actor, record.authority),
                              reason="LangGraph BaseStore.put: an explicit key-value write, "
                                     "stored without the write policy")
            for old_id, new_id in superseded:
                store.log_transition(tx, old_id, "superseded", self.actor,
                                     f"LangGraph BaseStore.put of the same key "
                                     f"(successor {new_id})", now)
            for old_id in retracted:
                reason = "LangGraph BaseStore.delete"
                store.run(tx, "records/retract", id=old_id, by=self.actor, reason=reason, at=now)
                store.log_transition(tx, old_id, "retract", self.actor, reason, now)

        try:
            store.transaction("langgraph_batch", work)
        except ConstraintError:
            # A concurrent first write created the tenant's or a namespace's Scope first:
            # decide again from what is stored now (the lock then serialises the two).
            store.transaction("langgraph_batch", work)

    def _record(self, put: _Put, rid: str, seq: int, chain: dict[str, Any], now: datetime,
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
