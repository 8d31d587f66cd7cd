"""The async driver behind the store's one definition of each operation.

Every operation of the store (which statement, with which parameters, and what its rows
mean: :mod:`graphmem.db.base` and the concerns composed in
:class:`~graphmem.db.store.Neo4jStore`) is written once, against the few driver calls
:class:`~graphmem.db.base.StoreBase` makes: ``execute_query``, sessions that run auto-commit
statements, ``execute_write`` transaction functions, explicit transactions and
``verify_connectivity``. :class:`BlockingAsyncDriver` offers exactly those calls over a
``neo4j.AsyncDriver``: each one, made from a worker thread, is one coroutine handed to the
event loop that owns the async driver and waited for there (:class:`LoopCall`). So with it:

- every round trip is the async driver's, on the event loop (its connection pool, its
  retries of transaction functions, its bookmark manager);
- everything else an operation does (validation, parameters, reading rows into records,
  the write policy, ranking, budget, rendering) runs on the calling worker thread, off the
  event loop, in the same code :class:`graphmem.Memory` runs.

:class:`graphmem.AsyncMemory` runs each call of :class:`graphmem.Memory` that way. A
transaction function (``execute_write``) runs on a worker thread of its own
(``tx_executor``), while the async driver holds its transaction on the loop; it may be
retried, as with the blocking driver.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager, suppress
from types import TracebackType
from typing import Any, TypeVar

from neo4j import (
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
    AsyncTransaction,
    EagerResult,
    Record,
    RoutingControl,
    unit_of_work,
)

from graphmem.db import retries
from graphmem.db.settings import ConnectionSettings, driver_options
from graphmem.errors import ClientClosedError

__all__ = ["Admission", "BlockingAsyncDriver", "LoopCall", "Rows", "released"]

T = TypeVar("T")

LOOP_CHECK_S = 1.0
"""How often, in seconds, a worker thread waiting for the event loop checks that it still
runs (a loop stopped while a call waits would otherwise leave the thread waiting forever)."""


ADMIT_SLOTS = 1
"""Worker threads of one client that run Python at once (see :class:`Admission`)."""
ADMIT_WAIT_S = 0.05
"""The longest a worker thread waits for admission before it runs anyway, in seconds."""


class Admission:
    """How many of a client's worker threads run Python at once, so that the event loop's
    thread, which needs the interpreter lock for every round trip it carries, competes for it
    with :data:`ADMIT_SLOTS` threads instead of every call under way (each waiter costs it up
    to the interpreter's 5 ms switch interval; twenty calls on twenty threads left it waiting
    well over 50 ms). A worker thread holds a slot while it runs and gives it back while it
    waits for the loop (:class:`LoopCall`). A thread that waits for something else with a
    slot (another thread's group commit, a lock) keeps it, so admission is never waited for
    longer than :data:`ADMIT_WAIT_S`: then the thread runs without a slot, and asks again
    after its next round trip. No deadlock, at worst a short wait.
    """

    def __init__(self, slots: int | None = None) -> None:
        self._slots = threading.BoundedSemaphore(slots or ADMIT_SLOTS)
        self._local = threading.local()

    def enter(self) -> None:
        """This thread runs calls of the client: take a slot (waits at most
        :data:`ADMIT_WAIT_S`)."""
        self._local.member = True
        _admitted.admission = self
        self._local.held = self._slots.acquire(timeout=ADMIT_WAIT_S)

    def leave(self) -> None:
        """This thread is done with the client's call: give its slot back, if it has one."""
        self._local.member = False
        _admitted.admission = None
        self._give_back()

    def _give_back(self) -> None:
        if getattr(self._local, "held", False):
            self._local.held = False
            self._slots.release()

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """Around a wait for the event loop: the slot goes back meanwhile (threads that did
        not :meth:`enter`, such as the attribution log's, take none)."""
        if not getattr(self._local, "member", False):
            yield
            return
        self._give_back()
        try:
            yield
        finally:
            self._local.held = self._slots.acquire(timeout=ADMIT_WAIT_S)

    def run(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` admitted (:meth:`enter`, then :meth:`leave`)."""
        self.enter()
        try:
            return call(*args)
        finally:
            self.leave()


_admitted = threading.local()  # .admission: the Admission this thread runs a call under


@contextmanager
def released() -> Iterator[None]:
    """Around a wait of this thread for another thread's work (a retrieval logged with
    others: :mod:`graphmem.db.batches`): the slot of the :class:`Admission` it runs a
    call under goes back meanwhile, as while it waits for the event loop, so the thread doing
    that work runs; nothing when the thread runs under none (``Memory``'s own threads)."""
    admission: Admission | None = getattr(_admitted, "admission", None)
    if admission is None:
        yield
        return
    with admission.waiting():
        yield


class LoopCall:
    """Run a coroutine on ``loop`` from another thread and wait for its result.

    Args:
        loop: the event loop that owns the async driver.
        admission: the admission of the worker threads that call it (see
            :class:`Admission`; a slot is given back while the loop works).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop,
                 admission: Admission | None = None) -> None:
        self.loop = loop
        self.admission = admission or Admission()
        #: clean-ups started by :meth:`soon` and not done yet
        self._pending: set[concurrent.futures.Future[None]] = set()

    def __call__(self, coro: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, or the exception it raised (the driver's, untranslated:
        :mod:`graphmem.db.resilience` translates it in the store, as for the blocking driver).

        Raises:
            ClientClosedError: the event loop is closed or stopped (nothing more can be sent).
            RuntimeError: called on the loop's own thread (it would wait for itself).
        """
        if _running_loop() is self.loop:
            coro.close()
            raise RuntimeError("a blocking driver call made on its own event loop's thread")
        if not self.loop.is_running():  # closed, or stopped: nothing would run it
            coro.close()
            raise ClientClosedError("the event loop of this graphmem client is not running")
        try:
            future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        except RuntimeError:  # the loop closed meanwhile
            coro.close()
            raise ClientClosedError("the event loop of this graphmem client is closed") from None
        with self.admission.waiting():
            return self._wait(future)

    def soon(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Start ``coro`` on the loop without waiting for it (its errors are ignored: for
        clean-ups whose outcome changes nothing, such as handing a connection back)."""
        async def quietly() -> None:
            with suppress(Exception):
                await coro

        try:
            future = asyncio.run_coroutine_threadsafe(quietly(), self.loop)
        except RuntimeError:  # the loop is closed: nothing is left to clean up
            coro.close()
            return
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

    def _wait(self, future: concurrent.futures.Future[T]) -> T:
        while True:
            try:
                return future.result(timeout=LOOP_CHECK_S)
            except concurrent.futures.TimeoutError:
                if not self.loop.is_running():
                    future.cancel()
                    raise ClientClosedError("the event loop of this graphmem client "
                                            "stopped") from None
            except concurrent.futures.CancelledError:
                raise ClientClosedError("the event loop of this graphmem client stopped "
                                        "while a call was waiting for it") from None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Rows(list[Record]):
    """The records of a statement, all fetched: iterate them as a blocking result's;
    ``consume()`` (the summary, unused by graphmem) returns None."""

    def consume(self) -> None:
        """Nothing more to fetch: the rows are all here."""


async def _fetched(result_of: Coroutine[Any, Any, Any]) -> Rows:
    result = await result_of
    return Rows((await result.to_eager_result()).records)


class BlockingAsyncDriver:
    """The blocking driver calls the store makes, over a ``neo4j.AsyncDriver`` whose event
    loop runs in another thread (see the module's docstring).

    Args:
        driver: the async driver (created on ``call.loop``).
        call: how a coroutine is run on that loop and waited for.
        tx_executor: the worker threads that run transaction functions.
    """

    def __init__(self, driver: AsyncDriver, call: LoopCall, tx_executor: Executor) -> None:
        self.driver = driver
        self.call = call
        self.tx_executor = tx_executor
        self._closed = False

    @classmethod
    def open(cls, settings: ConnectionSettings, call: LoopCall, tx_executor: Executor
             ) -> BlockingAsyncDriver:
        """An async driver for ``settings``, configured as
        :func:`graphmem.db.settings.open_driver` configures the blocking one.

        Raises:
            neo4j ConfigurationError, ValueError: malformed settings (as ``open_driver``).
        """
        retries.install()

        async def make() -> AsyncDriver:
            return AsyncGraphDatabase.driver(settings.uri, **driver_options(settings))

        return cls(call(make()), call, tx_executor)

    @property
    def execute_query_bookmark_manager(self) -> Any:
        """The async driver's bookmark manager, for the sessions chained to it."""
        return self.driver.execute_query_bookmark_manager

    def execute_query(self, query: Any, parameters_: dict[str, Any] | None = None, *,
                      database_: str | None = None,
                      routing_: RoutingControl = RoutingControl.WRITE) -> EagerResult:
        """``AsyncDriver.execute_query`` (a retried transaction function), waited for."""
        return self.call(self.driver.execute_query(query, parameters_, database_=database_,
                                                   routing_=routing_))

    def verify_connectivity(self) -> None:
        """``AsyncDriver.verify_connectivity``, waited for."""
        self.call(self.driver.verify_connectivity())

    def session(self, **config: Any) -> BlockingSession:
        """A session with ``config`` (``AsyncDriver.session``'s), opened on first use."""
        return BlockingSession(self, config)

    def close(self) -> None:
        """Close the async driver (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.call(self.driver.close())


class BlockingSession:
    """An ``AsyncSession`` used from a worker thread: ``run``, ``execute_write``,
    ``begin_transaction`` and ``close``, each waited for."""

    def __init__(self, owner: BlockingAsyncDriver, config: dict[str, Any]) -> None:
        self._owner = owner
        self._config = config
        self._session: AsyncSession | None = None

    async def _open(self) -> AsyncSession:
        if self._session is None:
            self._session = self._owner.driver.session(**self._config)
        return self._session

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Rows:
        """Run one auto-commit statement; all its rows."""
        async def go() -> Rows:
            session = await self._open()
            return await _fetched(session.run(query, parameters))

        return self._owner.call(go())

    def execute_write(self, work: Callable[[BlockingTransaction], T]) -> T:
        """Run ``work`` as a write transaction function (retried by the async driver on
        transient errors); ``work`` runs on a worker thread, its statements on the loop. The
        metadata and timeout ``unit_of_work`` gave ``work`` are kept."""
        owner, context = self._owner, contextvars.copy_context()

        @unit_of_work(metadata=getattr(work, "metadata", None),
                      timeout=getattr(work, "timeout", None))
        async def on_loop(tx: AsyncManagedTransaction) -> T:
            return await asyncio.get_running_loop().run_in_executor(
                owner.tx_executor, context.copy().run, owner.call.admission.run, work,
                BlockingTransaction(owner, tx))

        async def go() -> T:
            session = await self._open()
            return await session.execute_write(on_loop)

        return owner.call(go())

    def begin_transaction(self, metadata: dict[str, Any] | None = None
                          ) -> BlockingTransaction:
        """An explicit transaction, committed or closed by its caller. It begins with its
        first statement (or commit), in the same trip to the event loop: errors of the
        beginning are raised there."""
        async def begin() -> AsyncTransaction:
            session = await self._open()
            return await session.begin_transaction(metadata=metadata)

        return BlockingTransaction(self._owner, begin)

    def close(self) -> None:
        """Close the session, if it was opened, without waiting for it: its statements
        are all done (their rows fetched, or their transaction closed), so closing only hands
        its connection back to the pool, which the loop does meanwhile."""
        if self._session is not None:
            self._owner.call.soon(self._session.close())

    def __enter__(self) -> BlockingSession:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class BlockingTransaction:
    """A managed or explicit async transaction used from a worker thread: ``run`` (all the
    rows), and for an explicit one ``commit`` and ``close``.

    Args:
        owner: the driver. tx: the managed transaction, or how to begin the explicit one
            (with its first statement or commit).
    """

    def __init__(self, owner: BlockingAsyncDriver,
                 tx: AsyncManagedTransaction | Callable[[], Awaitable[AsyncTransaction]]
                 ) -> None:
        self._owner = owner
        self._managed: AsyncManagedTransaction | None = None
        self._explicit: AsyncTransaction | None = None
        self._begin: Callable[[], Awaitable[AsyncTransaction]] | None = None
        if callable(tx):
            self._begin = tx
        else:
            self._managed = tx
        self._committed = False

    async def _started(self) -> AsyncManagedTransaction | AsyncTransaction:
        return self._managed or await self._explicit_started()

    async def _explicit_started(self) -> AsyncTransaction:
        if self._explicit is None:
            assert self._begin is not None, "a managed transaction is not committed here"
            self._explicit = await self._begin()
        return self._explicit

    def run(self, query: Any, parameters: dict[str, Any] | None = None) -> Rows:
        """Run a statement in the transaction; all its rows."""
        async def go() -> Rows:
            tx = await self._started()
            return await _fetched(tx.run(query, parameters))

        return self._owner.call(go())

    def commit(self) -> None:
        """Commit an explicit transaction."""
        async def go() -> None:
            await (await self._explicit_started()).commit()

        self._owner.call(go())
        self._committed = True

    def close(self) -> None:
        """Roll back what an explicit transaction did not commit, and end it (after a
        commit, or before it began, there is nothing to do)."""
        if self._committed or self._explicit is None:
            return
        self._owner.call(self._explicit.close())
