"""``GraphmemStore``: LangGraph's ``BaseStore`` on graphmem. See :class:`GraphmemStore` for
the mapping. Reads are decided in Cypher (``cypher/langgraph/get``, ``langgraph/search``,
``langgraph/namespaces``, run by :mod:`graphmem.db.ops.langgraph`: eligible and ACTIVE,
docs/spec/eligibility.md#eligible-and-active). A search's value filter, order, ``offset`` and
``limit`` are decided in the query too (:mod:`.facts`); a search with a ``query`` is ranked in
Python over the filtered items, as the read path ranks (docs/spec/read-path.md).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

# Not in graphmem.__all__ (kept to these two lines): ranking.order_by_score and
# store.record_from_props / scope_key / scope_pairs (row decoding and scope encoding).
from graphmem.client import Memory, store_of
from graphmem.db.access import Access
from graphmem.db.codec import record_from_props, scope_key, scope_pairs
from graphmem.db.ops import langgraph as lg_ops
from graphmem.db.ops import langgraph_vectors as lg_vectors
from graphmem.errors import AuthorizationError, ValidationError
from graphmem.models import Authority, MemoryKind, Principal, Sensitivity
from graphmem.read.rankers import BM25Ranker, Ranker, get_ranker, order_by_score
from graphmem.write.policy import PROCEDURE_EXEMPT_AUTHORITIES

from . import filters
from .async_batch import AsyncBatcher
from .combine import PutCombiner
from .facts import compile_filter
from .items import item_meta, path_matches, to_item
from .namespaces import (
    check_labels,
    namespace_from_pairs,
    prefix_pairs,
)
from .vectors import Embedded, VectorIndex
from .writes import PendingPut, PutWrites

__all__ = ["GraphmemStore"]


class GraphmemStore(PutWrites, BaseStore):
    """LangGraph long-term memory whose items are graphmem records.

    Switch a graph over with one line: ``graph.compile(store=GraphmemStore(memory,
    principal=Principal(tenants={"alice"})))``.

    Mapping (docs/integrations/langgraph.md):

    - A namespace tuple is a scope: ``{"tenant": T, "langgraph": "namespace",
      "langgraph.0": label0, ...}`` (:mod:`.namespaces`). ``T`` is ``tenant`` when
      configured, else the principal's only tenant when it has exactly one (so langmem's
      default ``("memories", ...)`` namespaces work), else the first label. A namespace
      whose tenant is not one of the principal's raises
      :class:`~graphmem.errors.AuthorizationError`, never an empty success.
    - A confined principal (``Principal(..., scope={"user": "u-17"})``) adds its pairs to
      every namespace's scope: its puts are stored there, and ``get``, ``search``,
      ``list_namespaces`` and ``delete`` reach only items stored under the same
      confinement (docs/spec/eligibility.md), never another user's of the same namespace.
    - ``put`` writes a record: content from ``text_fields`` (LangGraph path syntax; the
      whole value as JSON by default), the value kept as JSON in
      ``metadata["langgraph"]``. A second put of the same (namespace, key) is a new
      record that **supersedes** the previous one; ``get`` returns the newest and
      ``explain`` of the old says SUPERSEDED. Puts are explicit application writes, so
      they bypass the write policy's duplicate and evidence rules (which would drop a key
      whose value equals another key's, breaking get-after-put), are stored with
      ``authority`` (default human_instruction), and a PERSIST write decision with that
      reason is logged for each.
    - ``delete`` retracts the live version (a tombstone with who/why/when).
    - ``ttl`` (minutes) sets ``expires_at``; expired items are never returned. A read
      with ``refresh_ttl`` moves the ``expires_at`` of each item it returns to the read's
      time plus its TTL, as a declared ``expiry_extended`` transition (who, when, before
      and after).
    - ``search`` covers the prefix and every deeper namespace, eligible and ACTIVE only,
      filtered like ``InMemoryStore``. Without a query, items come in insertion order
      (namespaces by first put, keys by first put since their last delete, as in
      ``InMemoryStore``; several tenants are taken in sorted order); with a query, by the
      ranker (BM25 by default) with ``score`` set, ties as in docs/spec/read-path.md.
      With an ``index``, a query ranks by vector similarity instead (:mod:`.vectors`,
      :mod:`graphmem.db.ops.langgraph_vectors`): the best cosine of each item's vectors,
      as ``score``; items without a vector follow, unscored.
    - ``list_namespaces`` lists namespaces holding at least one live item (as
      PostgresStore does), with prefix/suffix ``*`` wildcards, ``max_depth``, sorted.
    - ``created_at`` is when the key was first put since its last delete; ``updated_at``
      when the live version was written (aware UTC).
    - A batch answers its reads first, then applies its puts (the last put of a key
      wins) in one transaction, as LangGraph's own stores do.

    Args:
        memory: a connected :class:`~graphmem.Memory` (one bound to a principal already:
            ``principal`` may only narrow it).
        principal: who reads and writes (tenants, clearance and confinement ``scope``).
        tenant: put every namespace in this tenant instead of its first label (default: the
            principal's tenant when it has exactly one).
        text_fields: paths whose text becomes the record content (default ``["$"]``).
        authority, kind, sensitivity: what each written record carries.
        max_authority: the most authority puts may claim (each decision records both).
        ranker: ranks search results for a query (default :class:`~graphmem.BM25Ranker`).
        actor: the ``by`` of write decisions, supersessions and retractions.
        ttl_config: LangGraph's TTL settings (``default_ttl`` is used; ``omit_expired``
            may only be True: expired items are never returned).
        index: LangGraph's ``IndexConfig`` (``dims``, ``embed``, ``fields``) for semantic
            search (docs/integrations/langgraph.md#semantic-search); kept as
            ``index_config``. Puts then embed their fields (``put(..., index=False |
            [paths])`` as in LangGraph), and an embedding that fails or does not fit raises
            :class:`~.vectors.EmbeddingError` before anything is written.

    Raises:
        ValidationError: ``sensitivity`` above the principal's clearance, an empty ``actor``,
            ``ttl_config`` with ``omit_expired=False``, or procedural ``kind`` with an
            authority the procedure bar does not exempt, or a bad ``index`` config.
        AuthorizationError: ``tenant`` outside the principal's tenants or confinement, or
            ``principal`` reaching further than ``memory``'s own when that client is bound
            (:meth:`graphmem.Memory.confined`); AuthorityCeilingError: ``authority`` above
            ``max_authority`` or above ``memory``'s ceiling.
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
        index: IndexConfig | None = None,
    ) -> None:
        if not isinstance(memory, Memory):
            raise ValidationError(f"memory must be a graphmem Memory, got "
                                  f"{type(memory).__name__}")
        # Memory.confined: a client bound already is only narrowed (AuthorizationError), and
        # its authority ceiling is kept when lower than max_authority
        self.access: Access = memory.confined(principal, max_authority=max_authority).access
        authority, kind, sensitivity = _settings(authority, kind, sensitivity, actor)
        _check_paths(text_fields)
        if ttl_config is not None and not isinstance(ttl_config, Mapping):
            raise ValidationError("ttl_config must be a dict (LangGraph's TTLConfig)")
        if sensitivity > principal.clearance:
            raise ValidationError("the store's sensitivity is above the principal's clearance")
        if kind is MemoryKind.PROCEDURAL and authority not in PROCEDURE_EXEMPT_AUTHORITIES:
            raise ValidationError("procedural puts need human_instruction/authoritative_source")
        if ttl_config is not None and ttl_config.get("omit_expired", True) is False:
            raise ValidationError("omit_expired=False is not supported: graphmem never "
                                  "returns an expired item (docs/integrations/langgraph.md)")
        if tenant is not None and tenant not in principal.tenants:
            raise AuthorizationError(f"principal may not use tenant {tenant!r}")
        self.access.check_authority(authority)  # AuthorityCeilingError
        self.confinement = {k: v for k, v in principal.scope.items() if k != "tenant"}
        tenant = principal.confine({"tenant": tenant})["tenant"] if tenant else \
            principal.scope.get("tenant")
        if tenant is None and len(principal.tenants) == 1:  # its only tenant: the default
            (tenant,) = principal.tenants
        self.memory = memory
        self.principal = principal
        self.tenant = tenant
        self.text_fields = list(text_fields) if text_fields else ["$"]
        self.authority = authority
        self.kind = kind
        self.sensitivity = sensitivity
        self.ranker: Ranker = get_ranker(ranker) if isinstance(ranker, str) else \
            ranker or BM25Ranker()
        self.actor = actor
        self.ttl_config = ttl_config
        #: concurrent callers' puts, written together (:mod:`.combine`)
        self.combiner = PutCombiner(self._write)
        #: semantic search (:mod:`.vectors`); None: no index, a query ranks by ``ranker``
        self.vectors = VectorIndex(index) if index is not None else None
        self.index_config = self.vectors.config if self.vectors is not None else None
        #: concurrent async calls, answered together off the event loop (:mod:`.async_batch`)
        self.async_batcher = AsyncBatcher(self.batch)
    # -- graphmem views --------------------------------------------------------------

    def _pairs(self, labels: Iterable[tuple[int, str]]) -> list[str]:  # under a prefix
        return prefix_pairs(labels) + scope_pairs(self.confinement)

    def record_ids(self, namespace: tuple[str, ...], key: str) -> list[str]:
        """Ids of every version of (namespace, key), oldest first, deleted ones included."""
        namespace = check_labels(namespace, allow_empty_tuple=False)
        prefix = self._prefix(self.tenant_of(namespace), namespace, str(key))
        return lg_ops.versions(store_of(self.memory), prefix)

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
        puts: dict[tuple[tuple[str, ...], str], PendingPut] = {}
        put_ops: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:  # every op is checked before anything is read or written
            if isinstance(op, PutOp):
                put = self._check_put(op)
                puts[(put.namespace, put.key)], put_ops[(put.namespace, put.key)] = put, op
            elif isinstance(op, GetOp):
                self.tenant_of(check_labels(op.namespace, allow_empty_tuple=False))
            elif isinstance(op, SearchOp):
                self._search_tenants(check_labels(op.namespace_prefix, allow_empty_tuple=True))
                filters.check_filter(op.filter, store_of(self.memory).limits)
                filters.check_query(op.query)
                filters.check_page(op.limit, op.offset)
            elif isinstance(op, ListNamespacesOp):
                self._list_selector(op)
            else:
                raise ValidationError(f"unknown store operation {type(op).__name__}")
        embedded = self.vectors.embed(put_ops.values(), (
            op for op in ops if isinstance(op, SearchOp))) if self.vectors else Embedded()
        now = store_of(self.memory).clock()
        results: list[Result] = [None] * len(ops)
        refresh: list[str] = []  # records whose TTL the reads refresh
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            for i, item in self._get_many([op for _, op in gets], now, refresh):
                results[gets[i][0]] = item
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._search(op, now, refresh, embedded)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op, now)
        if refresh:
            lg_ops.refresh_ttl(store_of(self.memory), refresh, now, self.actor,
                               "LangGraph refresh_ttl: the item was read")
        if puts:
            self.combiner.submit([dataclasses.replace(put, vectors=embedded.puts.get(key))
                                  for key, put in puts.items()], now)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch`, combined with the other async calls made on this event loop at the
        same time, off the loop (:mod:`.async_batch`: every read of a round sees the store
        before the round's puts; each call's puts in issue order; errors stay with their
        call).

        Returns one result per op, in op order.

        Raises:
            as :meth:`batch`, for this call's own ops.
        """
        return await self.async_batcher.submit(list(ops))

    # -- reads -----------------------------------------------------------------------

    def _reader(self, now: datetime) -> lg_ops.Reader:
        return lg_ops.Reader(tenants=sorted(self.principal.tenants),
                          clearance=self.principal.clearance.rank, now=now)

    def _get_many(self, ops_: Sequence[GetOp], now: datetime,
                  refresh: list[str]) -> Iterator[tuple[int, Item]]:
        gets = []
        for i, op in enumerate(ops_):
            namespace = check_labels(op.namespace, allow_empty_tuple=False)
            tenant = self.tenant_of(namespace)
            gets.append({"i": i, "prefix": self._prefix(tenant, namespace, str(op.key)),
                         "key": scope_key(self._scope(namespace, tenant))})
        for row in lg_ops.get_items(store_of(self.memory), gets, self._reader(now)):
            if item_meta(row) is not None:  # else not written by this adapter
                if ops_[int(row["i"])].refresh_ttl and row["lg_ttl"] is not None:
                    refresh.append(row["id"])
                yield int(row["i"]), to_item(row, Item)

    def _search_tenants(self, prefix: tuple[str, ...]) -> list[str]:
        if self.tenant is not None:
            return [self.tenant]
        if prefix:
            return [self.tenant_of(prefix)]
        return sorted(self.principal.tenants)

    def _search(self, op: SearchOp, now: datetime, refresh: list[str],
                embedded: Embedded) -> list[SearchItem]:
        prefix = check_labels(op.namespace_prefix, allow_empty_tuple=True)
        conditions = compile_filter(op.filter)
        if op.query and self.vectors is not None:
            return self._vector_search(op, prefix, conditions, embedded.queries[op.query],
                                       now, refresh)
        exact = conditions is not None and not op.query  # the page is decided in Cypher
        page = lg_ops.SearchPage(
            search_tenants=self._search_tenants(prefix), pairs=self._pairs(enumerate(prefix)),
            conditions=conditions or [], offset=op.offset if exact else 0,
            limit=op.limit if exact else None, full=bool(op.query))
        rows = lg_ops.search_items(store_of(self.memory), page, self._reader(now))
        found = [row for row in rows if (meta := item_meta(row)) is not None
                 and (conditions is not None
                      or filters.matches(json.loads(meta["value_json"]), op.filter))]
        window = slice(op.offset, op.offset + op.limit)
        if not op.query:
            rows = found if exact else found[window]
            scores: list[float | None] = [None] * len(rows)
        else:
            records = [record_from_props(row["record"]) for row in found]
            by_id = {row["id"]: row for row in found}
            ranked = order_by_score(records, self.ranker.score(op.query, records))[window]
            rows = [by_id[record.id] for record, _ in ranked]
            scores = [float(score) for _, score in ranked]
        if op.refresh_ttl:
            refresh += [row["id"] for row in rows if row["lg_ttl"] is not None]
        return [to_item(row, SearchItem, score=score)
                for row, score in zip(rows, scores, strict=True)]

    def _vector_search(self, op: SearchOp, prefix: tuple[str, ...],
                       conditions: list[dict[str, Any]] | None, vector: list[float],
                       now: datetime, refresh: list[str]) -> list[SearchItem]:
        """A query ranked by vector similarity: the page decided in Cypher
        (:mod:`graphmem.db.ops.langgraph_vectors`); a filter Cypher cannot decide exactly
        (``conditions`` None) ranks every item, filters in Python, then pages."""
        assert self.vectors is not None
        exact = conditions is not None
        query = lg_vectors.VectorQuery(
            search_tenants=self._search_tenants(prefix), pairs=self._pairs(enumerate(prefix)),
            conditions=conditions or [], vector=vector, offset=op.offset if exact else 0,
            limit=op.limit if exact else lg_vectors.ALL, per_item=len(self.vectors.fields))
        rows = [row for row in lg_vectors.vector_page(
                    store_of(self.memory), query, self._reader(now),
                    cap=lg_vectors.EXACT_CAP if exact else lg_vectors.ALL)
                if (meta := item_meta(row)) is not None
                and (exact or filters.matches(json.loads(meta["value_json"]), op.filter))]
        if not exact:
            rows = rows[op.offset:op.offset + op.limit]
        if op.refresh_ttl:
            refresh += [row["id"] for row in rows if row["lg_ttl"] is not None]
        return [to_item(row, SearchItem, score=row["score"]) for row in rows]

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
        namespaces = [namespace_from_pairs(found) for found in lg_ops.list_namespaces(
            store_of(self.memory), tenants, pairs, self._reader(now))]
        namespaces = [ns for ns in namespaces
                      if all(path_matches(c.match_type, tuple(c.path), ns)
                             for c in op.match_conditions or ())]
        if op.max_depth is not None:
            namespaces = sorted({ns[:op.max_depth] for ns in namespaces})
        else:
            namespaces = sorted(set(namespaces))
        return namespaces[op.offset:op.offset + op.limit]


def _settings(authority: Authority | str, kind: MemoryKind | str,
              sensitivity: Sensitivity | str, actor: object
              ) -> tuple[Authority, MemoryKind, Sensitivity]:
    """The store's record settings as their enums (a configuration file gives strings: a
    string sensitivity compared with a clearance as text, ``"confidential"`` below
    ``"normal"``, and a normal principal's store wrote confidential records).

    Raises:
        ValidationError: a value names no authority, kind or sensitivity; ``actor`` is not a
            non-empty string.
    """
    if not isinstance(actor, str) or not actor:
        raise ValidationError("actor must be a non-empty string")
    try:
        return Authority(authority), MemoryKind(kind), Sensitivity(sensitivity)
    except (ValueError, TypeError):
        raise ValidationError(
            f"authority must be one of {', '.join(a.value for a in Authority)}; kind one of "
            f"{', '.join(k.value for k in MemoryKind)}; sensitivity one of "
            f"{', '.join(v.value for v in Sensitivity)}") from None


def _check_paths(text_fields: object) -> None:
    """Raises ValidationError unless ``text_fields`` is None or a list of LangGraph paths."""
    if text_fields is not None and (isinstance(text_fields, str)
                                    or not isinstance(text_fields, Iterable)
                                    or not all(isinstance(f, str) for f in text_fields)):
        raise ValidationError("text_fields must be a list of LangGraph paths (strings)")
