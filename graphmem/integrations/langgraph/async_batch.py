"""The async path of :class:`~.store.GraphmemStore`: concurrent async calls combined
(docs/integrations/langgraph.md#async-calls).

Every ``abatch`` (so every ``aget``, ``aput``, ``asearch``, ``adelete``,
``alist_namespaces``) made on one event loop while a round of them is being answered waits
beside the others; the calls made in the same turn of the loop (``asyncio.gather``) start a
round together. A round runs in one worker thread, never on the event loop: the statements,
the driver's decoding and the items are made there, so the loop stays free (the switch
interval is lowered meanwhile, :mod:`graphmem.db.switching`, so the loop's thread gets the
interpreter lock back quickly after each of its system calls).

A round is planned (:func:`plan`) and run (:func:`run`) through the store's own ``batch``,
so it keeps every rule of a batch (checks before anything is read or written, eligibility,
the tenant lock, supersession history, tombstones, ``refresh_ttl``, group commit with
concurrent synchronous callers):

- **Reads first.** The reads of all the round's calls are one batch's reads: every get in
  one statement, each distinct search and listing once (identical reads are answered once
  and each caller gets its own copy of the result). Every read of a round sees the store as
  it was before the round's puts, as in LangGraph's own batched async stores
  (``AsyncBatchedBaseStore``); a call awaited after another's end sees it.
- **Then the puts, in issue order,** as the puts of one batch: the last put of a key in the
  round wins (as in a batch, and as ``AsyncBatchedBaseStore`` dedupes them), so a key put by
  several concurrent calls gets one new version, superseding the one stored before the
  round; puts awaited one after another each leave a version. The calls' puts are written
  in batches of consecutive calls putting at most :data:`MAX_PUTS` distinct keys, one
  statement each; a call's puts are never cut.
- **Errors stay with their call.** A batch refused for one call's input or rights
  (``ValidationError``, ``AuthorizationError``...) is run again in halves until the call is
  found alone (a batch checks everything before it reads or writes, and its puts are one
  statement, so nothing of a refused batch was written); the others are answered. An
  unreachable or closed database fails every call not yet answered.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import cast

from langgraph.store.base import Op, PutOp, Result

from graphmem.db import switching
from graphmem.errors import ClientClosedError, DatabaseUnavailableError

__all__ = ["MAX_PUTS", "AsyncBatcher", "Plan", "plan", "run"]

#: The most distinct keys a round puts in one statement (a call putting more is written alone).
MAX_PUTS = 512

#: Errors of the database, not of a call's input: every call of the failed batch gets them.
_SHARED_ERRORS = (DatabaseUnavailableError, ClientClosedError)

Batch = Callable[[list[Op]], list[Result]]
Outcome = list[Result] | BaseException


def read_key(op: Op) -> Hashable:
    """What makes two read ops the same read (the second is answered by the first): the op
    itself when hashable, else its fields as JSON (``1`` and ``True`` stay apart); an op that
    is neither is a read of its own."""
    try:
        hash(op)
        return (type(op).__name__, op)
    except TypeError:
        pass
    try:
        return (type(op).__name__, json.dumps(list(op), sort_keys=True))
    except (TypeError, ValueError):
        return ("own", id(op))


def _put_key(op: PutOp) -> Hashable:
    try:
        key = (tuple(op.namespace), str(op.key))
        hash(key)
        return key
    except TypeError:  # a malformed namespace: the batch refuses it; it meets no other put
        return ("own", id(op))


@dataclass(frozen=True)
class Plan:
    """A round of calls (each a list of ops), planned.

    ``reads``: the distinct read ops, first seen first; ``slots[c][j]``: for op ``j`` of call
    ``c``, its index in ``reads`` (None: a put); ``writes``: the batches of puts, in order,
    each the indexes of the calls whose puts it writes (in issue order)."""

    reads: list[Op]
    slots: list[list[int | None]]
    writes: list[list[int]]


def plan(calls: Sequence[Sequence[Op]], max_puts: int = MAX_PUTS) -> Plan:
    """Plan a round: its distinct reads, and its calls' puts in issue order, cut into
    batches of consecutive calls putting at most ``max_puts`` distinct keys (a call putting
    more is a batch alone; a call's puts are never cut)."""
    reads: list[Op] = []
    seen: dict[Hashable, int] = {}
    slots: list[list[int | None]] = []
    writes: list[list[int]] = []
    keys: set[Hashable] = set()  # of the last batch
    for c, ops in enumerate(calls):
        own: list[int | None] = []
        mine: set[Hashable] = set()
        for op in ops:
            if isinstance(op, PutOp):
                mine.add(_put_key(op))
                own.append(None)
            else:
                own.append(seen.setdefault(read_key(op), len(reads)))
                if own[-1] == len(reads):
                    reads.append(op)
        slots.append(own)
        if mine:
            if not writes or len(keys) + len(mine - keys) > max_puts:
                writes.append([])
                keys = set()
            writes[-1].append(c)
            keys |= mine
    return Plan(reads, slots, writes)


def _copy(result: Result) -> Result:
    """A caller's own copy of a list result (identical reads share one answer)."""
    return cast(Result, list(result)) if isinstance(result, list) else result


def _shared(exc: BaseException) -> bool:
    return isinstance(exc, _SHARED_ERRORS)


def run(batch: Batch, calls: Sequence[Sequence[Op]], max_puts: int = MAX_PUTS
        ) -> list[Outcome]:
    """Answer a round of calls through ``batch`` (a store's synchronous batch), as the
    module docstring says: the distinct reads in one batch, then each statement of puts in
    a batch of its own. One outcome per call: its results in op order, or its error.

    Raises:
        only what is not an ``Exception`` (an interrupt); every error is an outcome. An
        unreachable or closed database fails every call not yet answered.
    """
    p = plan(calls, max_puts)
    puts: list[list[Op]] = [[op for op in ops if isinstance(op, PutOp)] for ops in calls]
    answers = _isolated(batch, [[op] for op in p.reads]) if p.reads else []
    failed: dict[int, BaseException] = {}
    for c, slots in enumerate(p.slots):
        for s in slots:
            if s is not None and isinstance(answers[s], BaseException):
                failed.setdefault(c, answers[s])  # type: ignore[arg-type]
    down = next((e for e in failed.values() if _shared(e)), None)
    for statement in p.writes:
        members = [c for c in statement if c not in failed]
        if down is not None:  # the database is gone: the rest fail with it, untried
            failed.update(dict.fromkeys(members, down))
            continue
        for c, done in zip(members, _isolated(batch, [puts[c] for c in members]), strict=True):
            if isinstance(done, BaseException):
                failed[c] = done
                if _shared(done):
                    down = done
    outcomes: list[Outcome] = []
    for c, slots in enumerate(p.slots):
        error = failed.get(c)
        outcomes.append(error if error is not None else [
            None if s is None else _copy(answers[s][0]) for s in slots])  # type: ignore[index]
    return outcomes


def _isolated(batch: Batch, groups: list[list[Op]]) -> list[Outcome]:
    """``groups`` run as one batch; if it fails for an op's own reason, each half again (so
    a failing group is found in a few batches), each group getting its results or error."""
    try:
        results = batch([op for group in groups for op in group])
    except Exception as exc:
        if _shared(exc) or len(groups) == 1:
            return [exc] * len(groups)
        half = len(groups) // 2
        return _isolated(batch, groups[:half]) + _isolated(batch, groups[half:])
    out: list[Outcome] = []
    at = 0
    for group in groups:
        out.append(results[at:at + len(group)])
        at += len(group)
    return out


@dataclass(eq=False)
class _Waiting:
    ops: list[Op]
    future: asyncio.Future[list[Result]]


@dataclass(eq=False)
class _LoopQueue:
    """The calls waiting on one event loop, and whether a round is being answered."""

    waiting: list[_Waiting] = field(default_factory=list)
    busy: bool = False
    scheduled: bool = False
    #: the round being answered (held: the loop keeps only weak references to tasks)
    task: asyncio.Task[None] | None = None


@dataclass(eq=False)
class AsyncBatcher:
    """The async calls of one store, combined per event loop (see the module docstring).

    Args:
        batch: the store's synchronous ``batch`` (run in a worker thread, one round at a
            time per loop).
        max_puts: the most puts written in one statement.
    """

    batch: Batch
    max_puts: int = MAX_PUTS
    queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopQueue] = field(
        default_factory=weakref.WeakKeyDictionary)
    #: rounds answered so far, and the calls in them (for tests and benchmarks)
    rounds: int = 0
    calls: int = 0

    async def submit(self, ops: Sequence[Op]) -> list[Result]:
        """Answer ``ops`` (one call) in the next round of this loop.

        Returns:
            one result per op, in op order.

        Raises:
            what ``batch`` raises for this call (GraphmemError subclasses).
        """
        loop = asyncio.get_running_loop()
        queue = self.queues.get(loop)
        if queue is None:
            queue = self.queues[loop] = _LoopQueue()
        own = _Waiting(list(ops), loop.create_future())
        queue.waiting.append(own)
        self._schedule(loop, queue)
        return await own.future

    def _schedule(self, loop: asyncio.AbstractEventLoop, queue: _LoopQueue) -> None:
        if not queue.busy and not queue.scheduled:
            queue.scheduled = True  # after every call made in this turn of the loop
            loop.call_soon(self._start, loop, queue)

    def _start(self, loop: asyncio.AbstractEventLoop, queue: _LoopQueue) -> None:
        queue.scheduled = False
        taken = [w for w in queue.waiting if not w.future.done()]  # cancelled: dropped
        queue.waiting = []
        if not taken:
            return
        queue.busy = True
        queue.task = loop.create_task(self._round(loop, queue, taken))

    async def _round(self, loop: asyncio.AbstractEventLoop, queue: _LoopQueue,
                     taken: list[_Waiting]) -> None:
        interrupted: BaseException | None = None
        try:
            with switching.lowered():  # the loop takes the interpreter lock back sooner
                outcomes: list[Outcome] = await asyncio.to_thread(
                    run, self.batch, [w.ops for w in taken], self.max_puts)
        except BaseException as exc:  # cancelled, or an interrupt in the worker
            outcomes = [exc] * len(taken)
            interrupted = exc
        queue.busy = False
        queue.task = None
        self.rounds += 1
        self.calls += len(taken)
        if queue.waiting:
            self._schedule(loop, queue)
        for waiting, outcome in zip(taken, outcomes, strict=True):
            if waiting.future.done():
                continue
            if isinstance(outcome, asyncio.CancelledError):
                waiting.future.cancel()
            elif isinstance(outcome, BaseException):
                waiting.future.set_exception(outcome)
            else:
                waiting.future.set_result(outcome)
        if interrupted is not None:
            raise interrupted
