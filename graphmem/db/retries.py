"""The driver's transaction retries, counted and logged at debug level.

The ``neo4j`` driver retries a transaction function that fails with a transient error (a
deadlock, a leader switch) and says so with a WARNING on the ``neo4j.session`` logger, which
Python prints to stderr when the application configured no logging: a long message that
agents see in their output. :func:`install` (called by
:func:`graphmem.db.settings.open_driver`) moves those messages to graphmem's own logger
``graphmem.db`` at DEBUG and counts them; :func:`retry_count` reads the count (benchmarks).
Installing twice is harmless; nothing happens at import.
"""

from __future__ import annotations

import logging
import threading

__all__ = ["install", "note_retry", "retry_count"]

_DRIVER_LOGGER = "neo4j.session"
_log = logging.getLogger("graphmem.db")
_lock = threading.Lock()
_count = 0


class _RetryFilter(logging.Filter):
    """Drops the driver's retry warnings after logging them at debug on ``graphmem.db``."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "will be retried" not in message:
            return True
        _note("neo4j driver retry", message)
        return False


_FILTER = _RetryFilter()


def note_retry(message: str) -> None:
    """Count one retry graphmem makes itself (:func:`graphmem.db.resilience.with_retry`: an
    auto-commit statement, a connectivity check), logged at debug like the driver's."""
    _note("graphmem retry", message)


def _note(who: str, message: str) -> None:
    global _count
    with _lock:
        _count += 1
    _log.debug("%s: %s", who, message)


def install() -> None:
    """Route the driver's retry warnings to debug level (idempotent)."""
    logger = logging.getLogger(_DRIVER_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


def retry_count() -> int:
    """How many retries the driver announced and graphmem made (:func:`note_retry`) in this
    process so far."""
    with _lock:
        return _count
