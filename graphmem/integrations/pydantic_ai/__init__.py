"""Pydantic AI memory on graphmem: ``GraphmemMemory``, a capability (``AbstractCapability``).

Needs the optional extra ``graphmem[pydantic-ai]`` (``pydantic-ai-slim``); importing
:mod:`graphmem` alone never imports Pydantic AI.
"""

from .capability import GraphmemMemory

__all__ = ["GraphmemMemory"]
