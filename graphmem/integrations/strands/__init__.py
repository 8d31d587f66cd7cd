"""Strands Agents memory on graphmem: ``GraphmemMemoryStore``, a ``strands.memory.MemoryStore``.

Needs the optional extra ``graphmem[strands]`` (``strands-agents``); importing :mod:`graphmem`
alone never imports Strands.
"""

from .store import GraphmemMemoryStore

__all__ = ["GraphmemMemoryStore"]
