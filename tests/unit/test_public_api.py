"""The public surface changes only on purpose."""

import graphmem


def test_exported_members() -> None:
    assert sorted(graphmem.__all__) == graphmem.__all__
    for name in graphmem.__all__:
        assert getattr(graphmem, name) is not None
        assert getattr(graphmem, name).__doc__, f"{name} has no docstring"
    assert set(graphmem.__all__) == {
        "AsyncMemory", "Authority", "AuthorityCeilingError", "AuthorizationError", "BM25Ranker",
        "ClientClosedError", "ConflictResolution",
        "ConnectionSettings", "ConstraintViolationError", "ContentTooLargeError",
        "DanglingReferenceError", "DatabaseAuthError", "DatabaseUnavailableError",
        "DecisionState", "DeferredIntention", "DeletionError", "EmbeddingRanker",
        "EvaluationError", "Explanation", "GraphmemError", "HybridRanker", "InputLimits",
        "IntentionStatus",
        "LineageCycleError", "Memory", "MemoryConflict", "MemoryKind", "MemoryRecord",
        "MemoryWriteDecision", "NaiveDatetimeError", "OutOfReachError", "PolicyError",
        "Principal", "Ranker",
        "RecordConflictError", "RecordNotFoundError", "Retrieval", "RetrievalTrace",
        "RetrievedMemory", "Sensitivity", "Status", "StoreError", "ValidationError",
        "WriteDisposition", "WritePolicy",
    }


def test_every_error_derives_from_the_root() -> None:
    for name in graphmem.__all__:
        obj = getattr(graphmem, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, graphmem.GraphmemError)


def test_the_clients_store_is_not_public() -> None:
    """Agents use the client's calls; graphmem's own packages above the client reach its
    store through graphmem.client.store_of, which graphmem does not export."""
    from typing import cast

    from graphmem.client import store_of
    from graphmem.db.store import Neo4jStore

    stand_in = cast(Neo4jStore, object())
    memory = graphmem.Memory(stand_in)
    assert not hasattr(memory, "store")
    assert store_of(memory) is stand_in
    assert not hasattr(graphmem, "store_of")
