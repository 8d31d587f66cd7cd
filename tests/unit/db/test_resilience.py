"""``with_retry`` (graphmem.db.resilience): transient driver errors are retried, then given up
with a typed error carrying the cause; graphmem and client errors are not retried."""

from __future__ import annotations

import pytest
from neo4j.exceptions import TransientError

from graphmem.db.resilience import with_retry
from graphmem.errors import DatabaseUnavailableError, GraphmemError

# ----------------------------------------------------------------- retry and translation


def test_with_retry_retries_transient_errors_then_succeeds() -> None:
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise TransientError._hydrate_neo4j(
                code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
            )
        return "done"

    assert with_retry(flaky, "testing") == "done"
    assert len(calls) == 3


def test_with_retry_gives_up_with_a_typed_error_and_the_cause() -> None:
    calls: list[int] = []

    def always() -> None:
        calls.append(1)
        raise TransientError._hydrate_neo4j(
            code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
        )

    with pytest.raises(DatabaseUnavailableError, match="DeadlockDetected") as info:
        with_retry(always, "testing", attempts=3)
    assert len(calls) == 3
    assert isinstance(info.value.__cause__, TransientError)


def test_graphmem_errors_and_client_errors_are_not_retried() -> None:
    calls: list[int] = []

    def refused() -> None:
        calls.append(1)
        raise GraphmemError("mine")

    with pytest.raises(GraphmemError, match="mine"):
        with_retry(refused, "testing")
    assert len(calls) == 1


