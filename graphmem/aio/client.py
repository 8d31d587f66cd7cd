"""``AsyncMemory``: graphmem's client for asyncio programs, every call a coroutine.

It runs the very definitions :class:`graphmem.Memory` runs, so the two cannot drift: each
call is ``Memory``'s, run by one helper, :func:`graphmem.aio.calls.off_loop`, on a worker thread
of the client, whose every round trip to Neo4j goes through the driver's async API on the
event loop (:mod:`graphmem.db.async_driver`: ``neo4j.AsyncDriver``, its sessions,
``execute_write`` and explicit transactions). The event loop only sends and receives; the
write policy, validation, authorization, reading rows into records, BM25 ranking and its
index, budget and rendering run on the worker thread. Citations name pages of docs/spec/.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast

from neo4j import Driver

from graphmem.aio.calls import (
    AsyncAttributionCalls,
    AsyncDeletionCalls,
    AsyncProspective,
    Threads,
    off_loop,
)
from graphmem.client import Memory, _access
from graphmem.client import store_of as _store_of
from graphmem.db.access import OPERATOR, Access
from graphmem.db.async_driver import BlockingAsyncDriver, LoopCall
from graphmem.db.codec import DEFAULT_MAX_CONTENT_BYTES, Clock
from graphmem.db.ops.attribution import Neo4jAttribution
from graphmem.db.resilience import connect_driver
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import typed_calls
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import Authority, Explanation, MemoryRecord, Principal
from graphmem.read.attribution import AttributionLog
from graphmem.read.pipeline import Retrieval
from graphmem.read.rankers import Ranker
from graphmem.read.resolution import ConflictResolution
from graphmem.read.steps import DecisionState, MemoryConflict
from graphmem.write.imports import IMPORT_BATCH
from graphmem.write.policy import MemoryWriteDecision, WritePolicy

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["AsyncMemory", "on_store", "store_of"]

P = ParamSpec("P")
R = TypeVar("R")

@typed_calls
class AsyncMemory(AsyncAttributionCalls, AsyncProspective, AsyncDeletionCalls):
    """graphmem's client as coroutines. Use ``await AsyncMemory.connect(...)``; close it with
    ``await client.close()`` (or use ``async with``).

    Every call of :class:`graphmem.Memory` is here with the same parameters, as a coroutine
    with the same result and the same errors (``tests/unit/aio/test_client.py`` compares
    the signatures), except :meth:`confined`, which sends nothing and stays a plain call,
    and :meth:`put_stream`, an async iterator. All of them run ``Memory``'s own definition
    through one helper, :func:`~graphmem.aio.calls.off_loop`: on a worker thread of this
    client, whose statements go through ``neo4j.AsyncDriver`` on the event loop that
    connected the client (it belongs to that loop: await its calls while it runs). Only
    :class:`~graphmem.errors.GraphmemError` subclasses leave it: ClientClosedError once closed
    (or once its event loop stopped), DatabaseUnavailableError for a lost server.

    A call cancelled while it waits still completes on its worker thread (a write is made or
    refused whole, as with ``Memory``); a ``progress`` callback (:meth:`apply_deletion`) and
    a :meth:`put_stream` input iterable are called on a worker thread.

    Args:
        memory: the blocking client over the async driver whose calls this one runs.
        threads: the worker threads (shared with the confined views).
        view: a confined view (closing it does nothing).
    """

    def __init__(self, memory: Memory, *, threads: Threads, view: bool = False) -> None:
        self._memory = memory
        self._threads = threads
        self._view = view

    # -- connection ---------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        settings: ConnectionSettings | None = None,
        *,
        start_if_needed: bool = True,
        policy: WritePolicy | None = None,
        clock: Clock = utc_now,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        ensure_schema: bool = True,
        principal: Principal | None = None,
        max_authority: Authority | str = Authority.HUMAN_INSTRUCTION,
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> AsyncMemory:
        """Connect to Neo4j through the async driver and make sure the schema exists; the
        arguments, the settings found and the errors are :meth:`graphmem.Memory.connect`'s.

        The client opens an async driver of its own (an ``AsyncDriver`` belongs to one
        event loop: this one) and closes it with :meth:`close`; a local server started for
        it is leased as for ``Memory``. The schema is set up by the first client of the
        settings while any is open in this process (the next ones find it done, as clients
        of ``Memory``'s shared driver do).

        Raises:
            DatabaseUnavailableError, DatabaseAuthError, StoreError: as ``Memory.connect``.
            ValidationError: ``principal`` is not a Principal, a bad ``max_authority``, or
                ``max_content_bytes`` < 1 (before any server is looked for).
        """
        from graphmem.db.connect import open_store
        from graphmem.db.drivers import schema_once, schema_owner

        access = OPERATOR if principal is None else _access(principal, max_authority)
        threads = Threads()
        call = LoopCall(asyncio.get_running_loop(), threads.admission)

        def open_blocking(found: ConnectionSettings) -> Driver:
            # the calls the store makes of a driver (graphmem.db.async_driver), over this loop's
            return cast(Driver, BlockingAsyncDriver.open(found, call, threads.transactions))

        owners: list[object] = []

        def driver_for(found: ConnectionSettings, *, deadline_s: float
                       ) -> tuple[Driver, Callable[[], None]]:
            driver = connect_driver(found, deadline_s=deadline_s, open_with=open_blocking)
            owner, release_owner = schema_owner(found)  # the schema, once per open settings
            owners.append(owner)

            def release() -> None:
                release_owner()
                driver.close()

            return driver, release

        def open_memory() -> Memory:
            store, release = open_store(settings, start_if_needed=start_if_needed, clock=clock,
                                        max_content_bytes=max_content_bytes,
                                        ensure_schema=False, limits=limits,
                                        driver_for=driver_for)
            try:
                if ensure_schema:
                    schema_once(owners[-1], store.database, store.ensure_schema)
            except BaseException:
                release()
                raise
            memory = Memory(store, policy=policy, owns_driver=False, on_close=release,
                            access=access)
            # every round trip of this client's calls is carried by the one event loop thread:
            # retrievals are logged together, in one statement (graphmem.db.batches)
            memory._log = AttributionLog(Neo4jAttribution(store), grouped=True)
            store.share_checks()  # and concurrent reads of one scope share their version check
            return memory

        try:
            memory = await off_loop(threads, open_memory)
        except BaseException:
            threads.shutdown()
            raise
        return cls(memory, threads=threads)

    def confined(self, principal: Principal, *,
                 max_authority: Authority | str = Authority.HUMAN_INSTRUCTION) -> AsyncMemory:
        """A client bound to ``principal``, sharing this client's connection, threads and log:
        :meth:`graphmem.Memory.confined`'s rules, refusals and errors exactly (it is that
        call). Sends nothing, so it is not a coroutine. Closing it does nothing."""
        return AsyncMemory(self._memory.confined(principal, max_authority=max_authority),
                           threads=self._threads, view=True)

    @property
    def access(self) -> Access:
        """Who this client acts for and the authority it may claim (the operator: all)."""
        return self._memory.access

    @property
    def policy(self) -> WritePolicy:
        """The write-policy settings (docs/spec/write-path.md)."""
        return self._memory.policy

    @policy.setter
    def policy(self, policy: WritePolicy) -> None:
        self._memory.policy = policy

    async def close(self) -> None:
        """Close the async driver and stop this client's threads (a local server started
        for it stops with its last client); later calls raise ClientClosedError. Calls
        under way finish first. A confined view closes nothing (its parent does)."""
        if self._view or self._threads.closed:
            return
        try:
            await self._off_loop(self._memory.close)
        finally:
            self._threads.shutdown()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- records (docs/spec/records.md) ---------------------------------------------------

    async def put(self, record: MemoryRecord | dict[str, Any]) -> bool:
        """:meth:`graphmem.Memory.put` (validated write without policy; operator only)."""
        return await self._off_loop(self._memory.put, record)

    async def put_many(self, records: Iterable[MemoryRecord | dict[str, Any]]) -> list[str]:
        """:meth:`graphmem.Memory.put_many` (one transaction; the ids created)."""
        return await self._off_loop(self._memory.put_many, records)

    async def import_jsonl(self, path: str | Path, *, batch_size: int = IMPORT_BATCH
                           ) -> list[str]:
        """:meth:`graphmem.Memory.import_jsonl` (the file is read on a worker thread)."""
        return await self._off_loop(self._memory.import_jsonl, path, batch_size=batch_size)

    def put_stream(self, batches: Iterable[Sequence[MemoryRecord | dict[str, Any]]]
                   ) -> AsyncIterator[list[str]]:
        """:meth:`graphmem.Memory.put_stream` as an async iterator: the ids each batch
        created. AuthorizationError for a bound client at the call; a batch's errors when
        its turn comes. ``batches`` is iterated on a worker thread."""
        return self._stream(self._memory.put_stream(batches))  # a generator: sends nothing

    async def _stream(self, batches: Iterator[list[str]]) -> AsyncIterator[list[str]]:
        while (ids := await self._off_loop(next, batches, None)) is not None:
            yield ids

    async def get(self, record_id: str) -> MemoryRecord:
        """:meth:`graphmem.Memory.get`. RecordNotFoundError (OutOfReachError, one)."""
        return await self._off_loop(self._memory.get, record_id)

    async def retract(self, record_id: str, *, by: str, reason: str,
                      at: datetime | None = None) -> None:
        """:meth:`graphmem.Memory.retract` (a tombstone with who/why/when)."""
        await self._off_loop(self._memory.retract, record_id, by=by, reason=reason, at=at)

    async def expire(self, record_id: str, *, at: datetime, by: str = "graphmem",
                     reason: str = "declared expiry") -> None:
        """:meth:`graphmem.Memory.expire` (stops being active at ``at``, aware UTC)."""
        await self._off_loop(self._memory.expire, record_id, at=at, by=by, reason=reason)

    async def candidates(self, *, principal: Principal | None = None, scope: dict[str, str],
                         now: datetime | None = None) -> list[MemoryRecord]:
        """:meth:`graphmem.Memory.candidates` (docs/spec/eligibility.md#eligible-and-active)."""
        return await self._off_loop(self._memory.candidates, principal=principal,
                                    scope=scope, now=now)

    async def explain(self, record_id: str, *, principal: Principal | None = None,
                      scope: dict[str, str], now: datetime | None = None) -> Explanation:
        """:meth:`graphmem.Memory.explain` (docs/spec/status.md)."""
        return await self._off_loop(self._memory.explain, record_id, principal=principal,
                                    scope=scope, now=now)

    async def history(self, record_id: str) -> list[dict[str, Any]]:
        """:meth:`graphmem.Memory.history` (transitions and decisions, oldest first)."""
        return await self._off_loop(self._memory.history, record_id)

    # -- write path (docs/spec/write-path.md) ----------------------------------------------

    async def write(self, proposal: MemoryRecord | dict[str, Any], *, by: str = "agent",
                    now: datetime | None = None) -> MemoryWriteDecision:
        """:meth:`graphmem.Memory.write`: the write policy, atomically with its storage;
        concurrent calls are group-committed as ``Memory``'s threads are."""
        return await self._off_loop(self._memory.write, proposal, by=by, now=now)

    async def promote(self, record_id: str, *, by: str, reason: str) -> None:
        """:meth:`graphmem.Memory.promote` (a quarantined record, after review)."""
        await self._off_loop(self._memory.promote, record_id, by=by, reason=reason)

    async def supersede(self, old_ids: Sequence[str],
                        new_record: MemoryRecord | dict[str, Any], *, by: str, reason: str
                        ) -> MemoryWriteDecision:
        """:meth:`graphmem.Memory.supersede`."""
        return await self._off_loop(self._memory.supersede, old_ids, new_record, by=by,
                                    reason=reason)

    async def consolidate(self, ids: Sequence[str], *, into: MemoryRecord | dict[str, Any],
                          by: str, reason: str) -> MemoryWriteDecision:
        """:meth:`graphmem.Memory.consolidate`."""
        return await self._off_loop(self._memory.consolidate, ids, into=into, by=by,
                                    reason=reason)

    async def promote_procedure(self, episode_ids: Sequence[str], procedure: MemoryRecord |
                                dict[str, Any], *, by: str, reason: str
                                ) -> MemoryWriteDecision:
        """:meth:`graphmem.Memory.promote_procedure`."""
        return await self._off_loop(self._memory.promote_procedure, episode_ids, procedure,
                                    by=by, reason=reason)

    # -- read path (docs/spec/read-path.md) --------------------------------------------------

    async def retrieve(
        self,
        state: DecisionState | dict[str, Any],
        *,
        principal: Principal | None = None,
        now: datetime | None = None,
        budget_chars: int = 4000,
        ranker: Ranker | str | None = None,
        k: int = 10,
        context_window: int = 1,
    ) -> Retrieval:
        """:meth:`graphmem.Memory.retrieve`: trigger, query, eligible candidates, conflicts,
        rank, partners, budget (characters), render, logged; all but the round trips on a
        worker thread. Rankers by name are this client's, shared with ``Memory``'s code."""
        return await self._off_loop(self._memory.retrieve, state, principal=principal,
                                    now=now, budget_chars=budget_chars, ranker=ranker, k=k,
                                    context_window=context_window)

    async def resolve(self, conflict: MemoryConflict,
                      records: Iterable[MemoryRecord] | None = None) -> ConflictResolution:
        """:meth:`graphmem.Memory.resolve` (docs/spec/read-path.md precedence)."""
        return await self._off_loop(self._memory.resolve, conflict, records)


def store_of(client: AsyncMemory) -> Neo4jStore:
    """The store behind an async client, for graphmem's own packages above the client (not
    public API). Only its parts that send nothing (``clock``, ``limits``) may be used on the
    event loop; its operations go through :func:`on_store`."""
    return _store_of(client._memory)


async def on_store(client: AsyncMemory, call: Callable[Concatenate[Neo4jStore, P], R],
                   *args: P.args, **kwargs: P.kwargs) -> R:
    """Await ``call(store, *args, **kwargs)`` (a blocking operation on the client's store,
    such as :meth:`~graphmem.db.store.Neo4jStore.recent`) on one of the client's worker
    threads, as every call of :class:`AsyncMemory` runs (for graphmem's own packages above
    the client; not public API).

    Raises:
        ClientClosedError: the client was closed. Whatever ``call`` raises.
    """
    store = store_of(client)

    def run() -> R:
        return call(store, *args, **kwargs)

    return await client._off_loop(run)
