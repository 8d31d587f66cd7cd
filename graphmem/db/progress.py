"""Progress of long first-run steps (fetching the Neo4j jars, starting the server), for
whoever shows it: the command line prints it on stderr (:func:`graphmem.terminal.
stderr_progress`); a library caller gets ``logging`` records of the ``graphmem.db`` logger.

Nothing is shown unless a step takes time: the steps call :func:`report` as they go, and the
reporter in force (a context variable, set with :func:`reporting`) decides what to print.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["Reporter", "report", "reporting"]

Reporter = Callable[[str, str], None]
"""Called with a phase ("Fetching the Neo4j jars with Maven") and its latest detail
("37.2 MB in 112 files, 41 s"); the same phase comes again with newer details."""

_REPORTER: ContextVar[Reporter | None] = ContextVar("graphmem_progress", default=None)
_log = logging.getLogger("graphmem.db")


def report(phase: str, detail: str = "") -> None:
    """Tell the reporter in force (else the ``graphmem.db`` logger, at DEBUG) how a step is
    going. ``phase``: what is being done; ``detail``: how far it is."""
    reporter = _REPORTER.get()
    if reporter is not None:
        reporter(phase, detail)
    else:
        _log.debug("%s: %s", phase, detail)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """Send the :func:`report` calls made inside this block (in this thread) to
    ``reporter``."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def megabytes(size: float) -> str:
    """``size`` bytes as "37.2 MB"."""
    return f"{size / 1e6:.1f} MB"
