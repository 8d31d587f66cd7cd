"""LangGraph long-term memory on graphmem: ``GraphmemStore``, a ``BaseStore``.

Needs the optional extra ``graphmem[langgraph]`` (``langgraph-checkpoint``); importing
:mod:`graphmem` alone never imports LangGraph.
"""

from .store import GraphmemStore
from .vectors import EmbeddingError

__all__ = ["EmbeddingError", "GraphmemStore"]
