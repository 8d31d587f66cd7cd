"""The interpreter's switch interval, lowered while graphmem's worker threads run Python
beside an event loop (docs/guide/async.md#the-event-loop-stays-free).

An event loop thread gives up the interpreter lock at every system call (each socket
send, each poll) and must take it back to go on. While another thread runs Python, taking it
back waits for that thread to be asked to let go, which it is only after the switch interval
(5 ms by default, ``sys.getswitchinterval()``), and possibly behind other waiting threads:
one turn of a loop carrying twenty calls makes dozens of system calls, so a worker thread
decoding rows or ranking candidates kept a 5 ms ticker waiting 0.2 to 1.7 s on a loaded
two-core machine. With a 0.5 ms interval the same turns wait a tenth as long.

:func:`lowered` lowers the interval while at least one such stretch of work is under way
(an :class:`graphmem.AsyncMemory` call, a round of ``GraphmemStore``'s async calls) and puts
the previous value back when the last one ends, unless something else changed it
meanwhile. The interval is the process's: a program that set a lower one keeps it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SWITCH_INTERVAL_S", "lowered"]

SWITCH_INTERVAL_S = 0.0005
"""The switch interval, in seconds, while graphmem's worker threads run beside a loop."""

_lock = threading.Lock()
_holders = 0
_previous: float | None = None


def _enter(interval_s: float) -> None:
    global _holders, _previous
    with _lock:
        if _holders == 0:
            current = sys.getswitchinterval()
            _previous = current if current > interval_s else None
            if _previous is not None:
                sys.setswitchinterval(interval_s)
        _holders += 1


def _leave(interval_s: float) -> None:
    global _holders, _previous
    with _lock:
        _holders -= 1
        if _holders == 0 and _previous is not None:
            # someone else's setting since we lowered it stays
            if abs(sys.getswitchinterval() - interval_s) < 1e-9:
                sys.setswitchinterval(_previous)
            _previous = None


@contextmanager
def lowered(interval_s: float | None = None) -> Iterator[None]:
    """The interpreter's switch interval is at most ``interval_s`` seconds inside (default
    :data:`SWITCH_INTERVAL_S`, read at each call; nested and concurrent uses share one
    lowering; the last to leave restores the value found by the first, if nobody changed it
    meanwhile)."""
    interval = SWITCH_INTERVAL_S if interval_s is None else interval_s
    _enter(interval)
    try:
        yield
    finally:
        _leave(interval)
