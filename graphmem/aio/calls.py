"""The calls of :class:`graphmem.AsyncMemory` that log attribution, keep deferred intentions,
delete and certify, as :mod:`graphmem.client_calls` holds ``Memory``'s; and the one helper
every call of ``AsyncMemory`` runs through (:func:`off_loop`). Each call is ``Memory``'s own,
run on a worker thread (see :mod:`graphmem.aio.client`); citations name pages of docs/spec/.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from graphmem.db import switching
from graphmem.db.access import ScopeQuery
from graphmem.db.async_driver import Admission
from graphmem.deletion import DeletionPlan, DeletionReport, ProgressCallback
from graphmem.deletion.certificate import ErasureCertificate
from graphmem.errors import ClientClosedError, typed_calls
from graphmem.intentions import Intentions
from graphmem.lineage.graph import LineageDirection, LineageGraph
from graphmem.models import DeferredIntention, MemoryRecord, Principal

if TYPE_CHECKING:
    from graphmem.client import Memory
    from graphmem.db.ops.intentions import IntentionTransition
    from graphmem.deletion.certificate import CertificateVerdict

__all__ = ["CALL_THREADS", "AsyncAttributionCalls", "AsyncDeletionCalls", "AsyncIntentions",
           "AsyncProspective", "Threads", "off_loop"]

P = ParamSpec("P")
R = TypeVar("R")

CALL_THREADS = 32
"""Calls of one client (and its confined views) under way at once; more wait their turn.
As many threads again run the transaction functions of those calls."""


@dataclass(eq=False)
class Threads:
    """The worker threads of an :class:`~graphmem.AsyncMemory` and its confined views, and
    whether it was closed."""

    calls: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(
        CALL_THREADS, thread_name_prefix="graphmem-async"))
    transactions: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(
        CALL_THREADS, thread_name_prefix="graphmem-async-tx"))
    #: which of them run Python at once (:class:`~graphmem.db.async_driver.Admission`)
    admission: Admission = field(default_factory=Admission)
    closed: bool = False

    def shutdown(self) -> None:
        """Refuse new calls (ClientClosedError) and let the threads end after theirs."""
        self.closed = True
        self.calls.shutdown(wait=False)
        self.transactions.shutdown(wait=False)


async def off_loop(threads: Threads, call: Callable[P, R], *args: P.args,
                   **kwargs: P.kwargs) -> R:
    """Await ``call`` (one of ``Memory``'s, a blocking call over the async driver) run on one
    of ``threads``' worker threads, in a copy of the caller's context, so the event loop only
    carries its round trips. The one way every call of ``AsyncMemory`` runs.

    Raises:
        ClientClosedError: the client was closed. Whatever ``call`` raises.
    """
    if threads.closed:
        raise ClientClosedError("this graphmem client is closed")
    run = functools.partial(contextvars.copy_context().run, threads.admission.run,
                            functools.partial(call, *args, **kwargs))
    try:
        with switching.lowered():  # the loop takes the interpreter lock back sooner
            return await asyncio.get_running_loop().run_in_executor(threads.calls, run)
    except RuntimeError:  # its threads were shut down by a close racing this call
        if threads.closed:
            raise ClientClosedError("this graphmem client is closed") from None
        raise


class _Calls:
    """What the calls use of the client."""

    _memory: Memory
    _threads: Threads

    async def _off_loop(self, call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        return await off_loop(self._threads, call, *args, **kwargs)


class AsyncAttributionCalls(_Calls):
    """Exposure and use of retrieved memories (docs/spec/evaluation.md's attribution loop)."""

    async def record_exposure(self, retrieval_id: str, action_id: str,
                              memory_ids: Sequence[str], *, at: datetime | None = None
                              ) -> None:
        """:meth:`graphmem.Memory.record_exposure` (RecordNotFoundError, ValidationError)."""
        await self._off_loop(self._memory.record_exposure, retrieval_id, action_id,
                             memory_ids, at=at)

    async def record_use(self, retrieval_id: str, action_id: str, memory_ids: Sequence[str],
                         *, helped: bool | None = None, at: datetime | None = None) -> None:
        """:meth:`graphmem.Memory.record_use` (``helped`` tri-state; errors as exposure)."""
        await self._off_loop(self._memory.record_use, retrieval_id, action_id, memory_ids,
                             helped=helped, at=at)

    async def get_retrieval(self, retrieval_id: str) -> dict[str, Any]:
        """:meth:`graphmem.Memory.get_retrieval` (RecordNotFoundError, OutOfReachError)."""
        return await self._off_loop(self._memory.get_retrieval, retrieval_id)


@typed_calls
class AsyncIntentions:
    """:class:`graphmem.intentions.Intentions` as coroutines (docs/spec/intentions.md), each
    the blocking call run by :func:`off_loop`, with its parameters and errors.

    Args:
        intentions: the client's intentions, within its reach. threads: the client's.
    """

    def __init__(self, intentions: Intentions, threads: Threads) -> None:
        self._intentions = intentions
        self._threads = threads

    async def intend(self, intention: DeferredIntention | Mapping[str, Any]) -> bool:
        """:meth:`Intentions.intend`: True if created, False for an identical re-write."""
        return await off_loop(self._threads, self._intentions.intend, intention)

    async def intend_unless_pending(self, intention: DeferredIntention | Mapping[str, Any], *,
                                    now: datetime) -> tuple[str, bool]:
        """:meth:`Intentions.intend_unless_pending`: ``(id, created)``."""
        return await off_loop(self._threads, self._intentions.intend_unless_pending, intention,
                              now=now)

    async def get(self, intention_id: str) -> DeferredIntention:
        """:meth:`Intentions.get` (RecordNotFoundError, OutOfReachError)."""
        return await off_loop(self._threads, self._intentions.get, intention_id)

    async def history(self, intention_id: str) -> list[IntentionTransition]:
        """:meth:`Intentions.history`: who fired or cancelled it, and when, oldest first."""
        return await off_loop(self._threads, self._intentions.history, intention_id)

    async def due(self, event: Mapping[str, str], *, principal: Principal,
                  scope: dict[str, str], now: datetime) -> list[DeferredIntention]:
        """:meth:`Intentions.due` (AuthorizationError for a scope out of reach)."""
        return await off_loop(self._threads, self._intentions.due, event,
                              principal=principal, scope=scope, now=now)

    async def due_within(self, event: Mapping[str, str], reach: ScopeQuery
                         ) -> list[DeferredIntention]:
        """:meth:`Intentions.due_within` (an already authorized reach)."""
        return await off_loop(self._threads, self._intentions.due_within, event, reach)

    async def fire(self, intention_id: str, *, by: str, now: datetime,
                   reason: str = "cue matched") -> bool:
        """:meth:`Intentions.fire`: True only for the one call that fired it."""
        return await off_loop(self._threads, self._intentions.fire, intention_id, by=by,
                              now=now, reason=reason)

    async def cancel(self, intention_id: str, *, by: str, reason: str, now: datetime) -> bool:
        """:meth:`Intentions.cancel`: True if this call cancelled it."""
        return await off_loop(self._threads, self._intentions.cancel, intention_id, by=by,
                              reason=reason, now=now)

    async def process_event(self, event: Mapping[str, str], *, principal: Principal,
                            scope: dict[str, str], by: str, now: datetime
                            ) -> list[DeferredIntention]:
        """:meth:`Intentions.process_event`: the intentions this call fired."""
        return await off_loop(self._threads, self._intentions.process_event, event,
                              principal=principal, scope=scope, by=by, now=now)


class AsyncProspective(_Calls):
    """Deferred intentions (docs/spec/intentions.md)."""

    @property
    def intentions(self) -> AsyncIntentions:
        """Deferred intentions on this client's store, within its reach, as coroutines."""
        return AsyncIntentions(self._memory.intentions, self._threads)

    async def intend(self, intention: DeferredIntention | Mapping[str, Any]) -> bool:
        """:meth:`graphmem.Memory.intend` (RecordConflictError, ValidationError)."""
        return await self._off_loop(self._memory.intend, intention)

    async def due(self, event: Mapping[str, str], *, principal: Principal | None = None,
                  scope: dict[str, str], now: datetime | None = None
                  ) -> list[DeferredIntention]:
        """:meth:`graphmem.Memory.due` (AuthorizationError for a scope out of reach)."""
        return await self._off_loop(self._memory.due, event, principal=principal,
                                    scope=scope, now=now)

    async def fire(self, intention_id: str, *, by: str, now: datetime | None = None) -> bool:
        """:meth:`graphmem.Memory.fire`: True only for the one call that fired it."""
        return await self._off_loop(self._memory.fire, intention_id, by=by, now=now)

    async def cancel(self, intention_id: str, *, by: str, reason: str,
                     now: datetime | None = None) -> bool:
        """:meth:`graphmem.Memory.cancel`: False if it was not pending."""
        return await self._off_loop(self._memory.cancel, intention_id, by=by, reason=reason,
                                    now=now)

    async def process_event(self, event: Mapping[str, str], *, principal: Principal | None = None,
                            scope: dict[str, str], by: str, now: datetime | None = None
                            ) -> list[DeferredIntention]:
        """:meth:`graphmem.Memory.process_event`: the intentions this call fired."""
        return await self._off_loop(self._memory.process_event, event, principal=principal,
                                    scope=scope, by=by, now=now)


class AsyncDeletionCalls(_Calls):
    """Deletion walks, recomputation, lineage and erasure certificates
    (docs/spec/deletion.md)."""

    async def plan_deletion(self, roots: Sequence[str] | None = None,
                            subject: dict[str, str] | None = None,
                            redact_terms: Iterable[str] = (), *, requested_by: str,
                            reason: str, request_id: str | None = None,
                            allow_missing: bool = False) -> DeletionPlan:
        """:meth:`graphmem.Memory.plan_deletion` (reads only; ValidationError,
        DeletionError, OutOfReachError, AuthorizationError)."""
        return await self._off_loop(self._memory.plan_deletion, roots, subject, redact_terms,
                                    requested_by=requested_by, reason=reason,
                                    request_id=request_id, allow_missing=allow_missing)

    async def apply_deletion(self, plan: DeletionPlan, *, batch_size: int | None = None,
                             progress: ProgressCallback | None = None,
                             redact_terms: Iterable[str] | None = None) -> DeletionReport:
        """:meth:`graphmem.Memory.apply_deletion` (the verified report); ``progress`` is
        called on a worker thread. DeletionError, AuthorizationError."""
        return await self._off_loop(self._memory.apply_deletion, plan, batch_size=batch_size,
                                    progress=progress, redact_terms=redact_terms)

    async def verify_deletion(self, request_id: str, *, redact_terms: Iterable[str] = ()
                              ) -> DeletionReport:
        """:meth:`graphmem.Memory.verify_deletion` (DeletionError, OutOfReachError)."""
        return await self._off_loop(self._memory.verify_deletion, request_id,
                                    redact_terms=redact_terms)

    async def recompute(self, record_id: str, content: str, *, by: str, reason: str,
                        derived_from: Sequence[str] | None = None,
                        evidence_ids: Sequence[str] | None = None,
                        asserted_value: str | None = None) -> MemoryRecord:
        """:meth:`graphmem.Memory.recompute` (PolicyError, RecordNotFoundError,
        DanglingReferenceError, LineageCycleError, OutOfReachError)."""
        return await self._off_loop(self._memory.recompute, record_id, content, by=by,
                                    reason=reason, derived_from=derived_from,
                                    evidence_ids=evidence_ids, asserted_value=asserted_value)

    async def lineage(self, record_id: str, direction: LineageDirection = "up",
                      depth: int | None = None, *, now: datetime | None = None
                      ) -> LineageGraph:
        """:meth:`graphmem.Memory.lineage` (a ``networkx.DiGraph``; RecordNotFoundError,
        ValidationError, OutOfReachError)."""
        return await self._off_loop(self._memory.lineage, record_id, direction, depth,
                                    now=now)

    async def deletion_certificate(self, request_id: str, *, redact_terms: Iterable[str] = ()
                                   ) -> ErasureCertificate:
        """:meth:`graphmem.Memory.deletion_certificate` (DeletionError, CertificateError,
        OutOfReachError)."""
        return await self._off_loop(self._memory.deletion_certificate, request_id,
                                    redact_terms=redact_terms)

    async def check_certificate(self, certificate: str | bytes | dict[str, Any] |
                                ErasureCertificate, *, redact_terms: Iterable[str] = ()
                                ) -> CertificateVerdict:
        """:meth:`graphmem.Memory.check_certificate` (CertificateError, ValidationError,
        OutOfReachError)."""
        return await self._off_loop(self._memory.check_certificate, certificate,
                                    redact_terms=redact_terms)
