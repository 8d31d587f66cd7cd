"""graphmem: memory for LLM agents whose records, lineage and relationships live in Neo4j.

The public surface is what ``__all__`` lists (pinned by ``tests/test_public_api.py``).
Importing graphmem does nothing else: no connection, no environment reads.
"""

from graphmem.client import Memory, Retrieval
from graphmem.db.settings import ConnectionSettings
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

__all__ = [
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
