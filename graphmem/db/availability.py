"""A server that goes away is a typed error (issue 17): the driver's connection-loss
exceptions that outlive its own retries become :class:`DatabaseUnavailableError`.

The driver retries transaction functions and ``execute_query`` on a lost server for
``ConnectionSettings.retry_time_s``; what still fails after that is mapped here, at the
store's query plumbing, so no ``neo4j`` connection exception reaches a caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import neo4j
from neo4j import ManagedTransaction
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graphmem.db.base import StoreBase
from graphmem.errors import DatabaseUnavailableError

__all__ = ["Availability", "unavailable_as_typed"]


@contextlib.contextmanager
def unavailable_as_typed() -> Iterator[None]:
    """Re-raise ``ServiceUnavailable`` (including ``IncompleteCommit``) and ``SessionExpired``
    as :class:`DatabaseUnavailableError`.

    An ``IncompleteCommit`` means the commit may or may not have happened: the call's
    transaction is then either wholly applied or not at all, never half.
    """
    try:
        yield
    except (ServiceUnavailable, SessionExpired) as exc:
        raise DatabaseUnavailableError(
            f"the Neo4j server went away or does not answer ({type(exc).__name__}); "
            "the call's transaction is either wholly applied or not at all"
        ) from exc


class Availability(StoreBase):
    """The store's query plumbing with connection loss mapped to DatabaseUnavailableError."""

    def read_records(self, name: str, **params: Any) -> list[neo4j.Record]:
        with unavailable_as_typed():
            return super().read_records(name, **params)

    def read_values(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with unavailable_as_typed():
            return super().read_values(name, **params)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with unavailable_as_typed():
            return super().write(name, **params)

    def transaction(self, name: str, work: Callable[[ManagedTransaction], Any]) -> Any:
        with unavailable_as_typed():
            return super().transaction(name, work)

    def ensure_schema(self) -> None:
        with unavailable_as_typed():
            super().ensure_schema()
