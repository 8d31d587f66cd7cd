"""Driver errors that user input or a lost server can cause become typed errors (issue 17),
at the store's query plumbing, so they never reach a caller raw:

* connection loss that outlives the driver's own retries (``ServiceUnavailable``, including
  ``IncompleteCommit``, and ``SessionExpired``) -> :class:`DatabaseUnavailableError`. The
  driver retries transaction functions and ``execute_query`` for
  ``ConnectionSettings.retry_time_s``;
* a query parameter that cannot be sent (a string with a lone surrogate is not UTF-8:
  ``UnicodeEncodeError``) -> :class:`ValidationError`. It fails while the driver packs the
  query, so the transaction it belongs to is rolled back and nothing is written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import neo4j
from neo4j import ManagedTransaction
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graphmem.db.base import StoreBase
from graphmem.errors import DatabaseUnavailableError, ValidationError

__all__ = ["DriverErrors", "typed_driver_errors"]


@contextlib.contextmanager
def typed_driver_errors() -> Iterator[None]:
    """Re-raise ``ServiceUnavailable`` (including ``IncompleteCommit``) and ``SessionExpired``
    as :class:`DatabaseUnavailableError`, and ``UnicodeEncodeError`` as :class:`ValidationError`.

    An ``IncompleteCommit`` means the commit may or may not have happened: the call's
    transaction is then either wholly applied or not at all, never half.
    """
    try:
        yield
    except UnicodeEncodeError:
        raise ValidationError("a string is not valid Unicode (it holds a lone surrogate); "
                              "nothing was written") from None
    except (ServiceUnavailable, SessionExpired) as exc:
        raise DatabaseUnavailableError(
            f"the Neo4j server went away or does not answer ({type(exc).__name__}); "
            "the call's transaction is either wholly applied or not at all"
        ) from exc


class DriverErrors(StoreBase):
    """The store's query plumbing with driver errors mapped (see :func:`typed_driver_errors`)."""

    def read_records(self, name: str, **params: Any) -> list[neo4j.Record]:
        with typed_driver_errors():
            return super().read_records(name, **params)

    def read_values(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with typed_driver_errors():
            return super().read_values(name, **params)

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        with typed_driver_errors():
            return super().write(name, **params)

    def transaction(self, name: str, work: Callable[[ManagedTransaction], Any]) -> Any:
        with typed_driver_errors():
            return super().transaction(name, work)

    def ensure_schema(self) -> None:
        with typed_driver_errors():
            super().ensure_schema()
