"""graphmem: memory for LLM agents whose records, lineage and relationships live in Neo4j.

The public surface is what ``__all__`` lists (pinned by ``tests/test_public_api.py``).
Importing graphmem does nothing else: no connection, no environment reads.
"""

from .client import Memory, Retrieval
from .errors import (
    AuthorizationError,
    ContentTooLargeError,
    DanglingReferenceError,
    DatabaseUnavailableError,
    DeletionError,
    EvaluationError,
    GraphmemError,
    LineageCycleError,
    NaiveDatetimeError,
    PolicyError,
    RecordConflictError,
    RecordNotFoundError,
    ValidationError,
)
from .models import (
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
from .policy import MemoryWriteDecision, WriteDisposition, WritePolicy
from .ranking import BM25Ranker, EmbeddingRanker, HybridRanker, Ranker
from .readpath import DecisionState, MemoryConflict, RetrievalTrace, RetrievedMemory
from .resolution import ConflictResolution
from .settings import ConnectionSettings

__all__ = [
    "Authority",
    "AuthorizationError",
    "BM25Ranker",
    "ConflictResolution",
    "ConnectionSettings",
    "ContentTooLargeError",
    "DanglingReferenceError",
    "DatabaseUnavailableError",
    "DecisionState",
    "DeferredIntention",
    "DeletionError",
    "EmbeddingRanker",
    "EvaluationError",
    "Explanation",
    "GraphmemError",
    "HybridRanker",
    "IntentionStatus",
    "LineageCycleError",
    "Memory",
    "MemoryConflict",
    "MemoryKind",
    "MemoryRecord",
    "MemoryWriteDecision",
    "NaiveDatetimeError",
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
    "ValidationError",
    "WriteDisposition",
    "WritePolicy",
]
