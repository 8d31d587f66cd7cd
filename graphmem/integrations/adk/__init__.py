"""Google ADK long-term memory on graphmem: ``GraphmemMemoryService``, a ``BaseMemoryService``.

Needs the optional extra ``graphmem[adk]`` (``google-adk``); importing :mod:`graphmem` alone
never imports ADK.
"""

from .service import GraphmemMemoryService

__all__ = ["GraphmemMemoryService"]
