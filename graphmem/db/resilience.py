"""Driver errors become graphmem errors, and statements outside the driver's retried
transaction functions are retried on transient errors.

The driver retries its managed transactions (``execute_query``, ``execute_write``) itself.
Everything else graphmem sends, auto-commit schema statements and ``verify_connectivity``,
goes through :func:`with_retry`: bounded attempts, exponential backoff with jitter, and a
deadline. Whatever still fails leaves the client as a :class:`~graphmem.errors.GraphmemError`
(see :func:`translate`) with the driver's error chained; graphmem's own errors raised inside
transaction functions pass through untouched.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from neo4j import Driver
from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    ConstraintError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphmem.db import retries
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.errors import (
    ConstraintViolationError,
    DatabaseAuthError,
    DatabaseUnavailableError,
    GraphmemError,
    StoreError,
    ValidationError,
)

__all__ = ["connect_driver", "translate", "translated", "with_retry"]

T = TypeVar("T")

RETRY_ATTEMPTS = 10
"""Most attempts :func:`with_retry` makes (the first included)."""
RETRY_FIRST_DELAY_S = 0.05
RETRY_MAX_DELAY_S = 2.0
RETRY_DEADLINE_S = 30.0
"""No new attempt starts this many seconds after the first one."""

DriverFailure = (Neo4jError, DriverError)


def _code(exc: Exception) -> str | None:
    return getattr(exc, "code", None) if isinstance(exc, Neo4jError) else None


def translate(exc: Neo4jError | DriverError, action: str) -> GraphmemError:
    """The graphmem error for a driver error raised while doing ``action``.

    Credentials refused -> :class:`DatabaseAuthError`; unreachable server, expired session or
    a transient error that outlived the retries -> :class:`DatabaseUnavailableError`; a
    uniqueness constraint -> :class:`ConstraintViolationError`; anything else ->
    :class:`StoreError`. Messages name the action, the error type and the Neo4j code, never
    the server's message (it can quote parameter values, i.e. user data). The caller chains
    ``exc`` (``raise translate(exc, ...) from exc``).
    """
    code = _code(exc)
    what = f"{type(exc).__name__}" + (f" {code}" if code else "")
    if isinstance(exc, AuthError):
        return DatabaseAuthError(f"Neo4j refused the credentials while {action} ({what}); "
                                 "check NEO4J_PASSWORD or the local server's password file "
                                 "(`graphmem db status` shows where it is)")
    if isinstance(exc, ServiceUnavailable | SessionExpired):
        return DatabaseUnavailableError(f"Neo4j is unreachable while {action} ({what})")
    if isinstance(exc, TransientError):
        return DatabaseUnavailableError(f"Neo4j kept failing transiently while {action}, "
                                        f"after retries ({what})")
    if isinstance(exc, ConstraintError):
        return ConstraintViolationError(f"a uniqueness constraint refused a write while "
                                        f"{action} ({what})", code=code)
    return StoreError(f"Neo4j failed while {action} ({what})", code=code)


@contextlib.contextmanager
def translated(action: str) -> Iterator[None]:
    """Turn driver errors raised in the block into graphmem errors (see :func:`translate`).

    A ``UnicodeEncodeError`` (a parameter with a lone surrogate, found while the driver packs
    the query) becomes :class:`ValidationError`. Graphmem's own errors, and any other
    exception, pass through unchanged.
    """
    try:
        yield
    except UnicodeEncodeError:
        # A parameter the driver cannot pack (a string with a lone surrogate is not UTF-8):
        # the statement was never sent, its transaction rolls back, nothing is written.
        raise ValidationError(f"{action}: a string is not valid Unicode (it holds a lone "
                              "surrogate); nothing was written") from None
    except DriverFailure as exc:
        raise translate(exc, action) from exc


@contextlib.contextmanager
def file_errors(what: str) -> Iterator[None]:
    """Turn an ``OSError`` raised in the block by the local server's files (its data
    directory, state, leases, home: docs/operations.md#where-neo4j-comes-from) into
    :class:`DatabaseUnavailableError` naming ``what`` and the file, so that a data directory
    under a file or a home without permission is an error a command reports, not a
    traceback. Also usable as a decorator.
    """
    try:
        yield
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise DatabaseUnavailableError(f"{what}: {exc.strerror or exc}{where}") from exc


def _retryable(exc: Neo4jError | DriverError) -> bool:
    return not isinstance(exc, AuthError) and exc.is_retryable()


def with_retry(
    work: Callable[[], T],
    action: str,
    *,
    attempts: int = RETRY_ATTEMPTS,
    deadline_s: float = RETRY_DEADLINE_S,
) -> T:
    """Run ``work`` (one auto-commit statement, a connectivity check), retrying errors the
    driver marks retryable (transient errors such as DeadlockDetected, an unreachable server,
    an expired session) with exponential backoff and jitter: 50 ms doubling up to 2 s, at
    most ``attempts`` tries, none started after ``deadline_s`` seconds.

    ``work`` must be safe to repeat (schema statements with ``IF NOT EXISTS`` are).

    Raises:
        GraphmemError: what :func:`translate` makes of the last driver error.
    """
    started = time.monotonic()
    delay = RETRY_FIRST_DELAY_S
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except DriverFailure as exc:
            pause = delay * random.uniform(0.5, 1.5)
            out_of_time = time.monotonic() + pause - started > deadline_s
            if attempt == attempts or out_of_time or not _retryable(exc):
                raise translate(exc, action) from exc
            retries.note_retry(f"{action}: {type(exc).__name__} {_code(exc) or ''}".strip())
        time.sleep(pause)
        delay = min(delay * 2, RETRY_MAX_DELAY_S)
    raise AssertionError("unreachable")


def connect_driver(settings: ConnectionSettings, *, deadline_s: float = 10.0,
                   open_with: Callable[[ConnectionSettings], Driver] = open_driver) -> Driver:
    """A driver for ``settings`` whose connectivity (and credentials) have been checked.

    ``verify_connectivity`` is retried like any auto-commit statement (see
    :func:`with_retry`), for at most ``deadline_s`` seconds. ``open_with`` opens the driver
    (:func:`~graphmem.db.settings.open_driver`; :mod:`graphmem.db.async_driver` passes its
    blocking view of the async driver).

    Raises:
        DatabaseUnavailableError: the settings are malformed, or no server answers.
        DatabaseAuthError: the server refused the credentials.
    """
    try:
        driver = open_with(settings)
    except (ConfigurationError, ValueError) as exc:
        raise DatabaseUnavailableError(
            f"invalid Neo4j settings for {settings.uri!r}: {type(exc).__name__}"
        ) from exc
    try:
        with_retry(driver.verify_connectivity, f"connecting to {settings.uri}",
                   deadline_s=deadline_s)
    except BaseException:
        driver.close()
        raise
    return driver
