"""graphmem: memory for LLM agents whose records, lineage and relationships live in Neo4j.

The public surface is what ``__all__`` lists (pinned by ``tests/unit/test_public_api.py``).
Importing graphmem does nothing else: no connection, no environment reads, and none of the
heavy modules (the driver, networkx) until a name that needs them is first used (PEP 562), so a
process that needs only the errors or the MCP server's schemas starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from graphmem.errors import (
    AuthorityCeilingError,
    AuthorizationError,
    ClientClosedError,
    ConstraintViolationError,
    ContentTooLargeError,
    DanglingReferenceError,
    DatabaseAuthError,
    DatabaseUnavailableError,
    DeletionError,
    EvaluationError,
    GraphmemError,
    LineageCycleError,
    NaiveDatetimeError,
    OutOfReachError,
    PolicyError,
    RecordConflictError,
    RecordNotFoundError,
    StoreError,
    ValidationError,
)

if TYPE_CHECKING:
    from graphmem.aio import AsyncMemory
    from graphmem.client import Memory, Retrieval
    from graphmem.db.settings import ConnectionSettings
    from graphmem.limits import InputLimits
    from graphmem.models import (
        Authority,
        DeferredIntention,
        Explanation,
        IntentionStatus,
        MemoryKind,
        MemoryRecord,
        Principal,
        Sensitivity,
        Status,
    )
    from graphmem.read.rankers import BM25Ranker, EmbeddingRanker, HybridRanker, Ranker
    from graphmem.read.resolution import ConflictResolution
    from graphmem.read.steps import DecisionState, MemoryConflict, RetrievalTrace, RetrievedMemory
    from graphmem.write.policy import MemoryWriteDecision, WriteDisposition, WritePolicy

_LAZY: dict[str, str] = {
    "AsyncMemory": "graphmem.aio",
    "Authority": "graphmem.models",
    "BM25Ranker": "graphmem.read.rankers",
    "ConflictResolution": "graphmem.read.resolution",
    "ConnectionSettings": "graphmem.db.settings",
    "DecisionState": "graphmem.read.steps",
    "DeferredIntention": "graphmem.models",
    "EmbeddingRanker": "graphmem.read.rankers",
    "Explanation": "graphmem.models",
    "HybridRanker": "graphmem.read.rankers",
    "InputLimits": "graphmem.limits",
    "IntentionStatus": "graphmem.models",
    "Memory": "graphmem.client",
    "MemoryConflict": "graphmem.read.steps",
    "MemoryKind": "graphmem.models",
    "MemoryRecord": "graphmem.models",
    "MemoryWriteDecision": "graphmem.write.policy",
    "Principal": "graphmem.models",
    "Ranker": "graphmem.read.rankers",
    "Retrieval": "graphmem.client",
    "RetrievalTrace": "graphmem.read.steps",
    "RetrievedMemory": "graphmem.read.steps",
    "Sensitivity": "graphmem.models",
    "Status": "graphmem.models",
    "WriteDisposition": "graphmem.write.policy",
    "WritePolicy": "graphmem.write.policy",
}
"""Public names imported on first use, and their modules."""


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562).

    Raises:
        AttributeError: ``name`` is not a public name of graphmem.
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "AsyncMemory",
    "Authority",
    "AuthorityCeilingError",
    "AuthorizationError",
    "BM25Ranker",
    "ClientClosedError",
    "ConflictResolution",
    "ConnectionSettings",
    "ConstraintViolationError",
    "ContentTooLargeError",
    "DanglingReferenceError",
    "DatabaseAuthError",
    "DatabaseUnavailableError",
    "DecisionState",
    "DeferredIntention",
    "DeletionError",
    "EmbeddingRanker",
    "EvaluationError",
    "Explanation",
    "GraphmemError",
    "HybridRanker",
    "InputLimits",
    "IntentionStatus",
    "LineageCycleError",
    "Memory",
    "MemoryConflict",
    "MemoryKind",
    "MemoryRecord",
    "MemoryWriteDecision",
    "NaiveDatetimeError",
    "OutOfReachError",
    "PolicyError",
    "Principal",
    "Ranker",
    "RecordConflictError",
    "RecordNotFoundError",
    "Retrieval",
    "RetrievalTrace",
    "RetrievedMemory",
    "Sensitivity",
    "Status",
    "StoreError",
    "ValidationError",
    "WriteDisposition",
    "WritePolicy",
]
