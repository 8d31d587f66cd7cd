"""graphmem for asyncio programs: :class:`AsyncMemory`, every call of :class:`graphmem.Memory`
as a coroutine over the driver's async API (:mod:`graphmem.aio.client`; the calls that log
attribution, keep intentions and delete, and the one helper every call runs through, in
:mod:`graphmem.aio.calls`)."""

from graphmem.aio.client import AsyncMemory

__all__ = ["AsyncMemory"]
