"""The exceptions graphmem raises, all rooted at :class:`GraphmemError`.

::

    GraphmemError
    ├── ValidationError            bad input, rejected before anything is written
    │   ├── NaiveDatetimeError     a datetime without a timezone
    │   ├── DanglingReferenceError supersedes / derived_from / evidence_ids name unknown ids
    │   ├── LineageCycleError      derived_from would form a cycle
    │   └── ContentTooLargeError   content above the configured maximum size
    ├── RecordConflictError        the same id written again with different content
    ├── RecordNotFoundError        no record (or intention) with that id
    ├── AuthorizationError         the principal may not read the query scope's tenant
    │   ├── OutOfReachError        (also a RecordNotFoundError) an id outside a bound
    │   │                          client's reach, or naming nothing: the two look alike
    │   └── AuthorityCeilingError  a write claims more authority than its caller may
    ├── PolicyError                a lifecycle call that the write policy refuses
    ├── DeletionError              a deletion plan that cannot be applied
    ├── EvaluationError            inconsistent evaluation input (e.g. a non-monotonic funnel)
    ├── UnknownQueryError          no Cypher query of that name in the catalogue
    ├── StoreError                 Neo4j refused or failed a statement (driver error chained)
    │   └── ConstraintViolationError  a uniqueness constraint refused a write
    └── DatabaseUnavailableError   no Neo4j could be reached or started, or it stayed busy
        └── DatabaseAuthError      Neo4j refused the credentials

Leaf errors carry the ids that caused them (``record_ids``), never record content:
error messages may end up in logs, and content is user data.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "AuthorityCeilingError",
    "AuthorizationError",
    "CertificateError",
    "ConstraintViolationError",
    "ContentTooLargeError",
    "DanglingReferenceError",
    "DatabaseAuthError",
    "DatabaseUnavailableError",
    "DeletionError",
    "EvaluationError",
    "GraphmemError",
    "LineageCycleError",
    "NaiveDatetimeError",
    "OutOfReachError",
    "PolicyError",
    "RecordConflictError",
    "RecordNotFoundError",
    "StoreError",
    "StoreNotEmptyError",
    "UnknownQueryError",
    "ValidationError",
]


class GraphmemError(Exception):
    """Root of every error graphmem raises.

    Args:
        message: what went wrong, free of record content.
        record_ids: the ids involved, if any.
    """

    def __init__(self, message: str, *, record_ids: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.record_ids: tuple[str, ...] = tuple(record_ids)


class ValidationError(GraphmemError):
    """Input that breaks a rule of docs/spec/records.md; nothing was written."""


class NaiveDatetimeError(ValidationError):
    """A datetime without tzinfo was given where an aware UTC time is required."""


class DanglingReferenceError(ValidationError):
    """``supersedes``, ``derived_from`` or ``evidence_ids`` name ids not in the store."""


class LineageCycleError(ValidationError):
    """``derived_from`` edges would form a cycle (lineage must stay a DAG)."""


class ContentTooLargeError(ValidationError):
    """Record content is larger than the store's ``max_content_bytes``."""


class RecordConflictError(GraphmemError):
    """A record id already exists with different content (docs/spec/records.md)."""


class RecordNotFoundError(GraphmemError):
    """No record or intention with the given id exists."""


class AuthorizationError(GraphmemError):
    """The principal may not read the tenant of the query scope
    (docs/spec/eligibility.md#tenant)."""


class OutOfReachError(AuthorizationError, RecordNotFoundError):
    """A client bound to a principal (:meth:`graphmem.Memory.confined`) was given an id that
    names no record, intention, retrieval or deletion request within the principal's reach
    (docs/spec/eligibility.md): another tenant's, another user's of a confined principal, one above
    its clearance, one it may read but not change, or none at all. The message names no id
    and says nothing of whether it exists; nothing was written."""


class AuthorityCeilingError(AuthorizationError):
    """A write claimed an authority above the ceiling its caller was configured with
    (``max_authority``; docs/spec/write-path.md); nothing was written."""


class PolicyError(GraphmemError):
    """A lifecycle transition refused by the write policy (docs/spec/write-path.md)."""


class DeletionError(GraphmemError):
    """A deletion plan that is stale, malformed or otherwise cannot be applied
    (docs/spec/deletion.md)."""


class CertificateError(DeletionError):
    """An erasure certificate that cannot be issued (its request's verification failed) or
    read (not a certificate, malformed JSON; docs/spec/deletion.md)."""


class EvaluationError(GraphmemError):
    """Evaluation input that is internally inconsistent (docs/spec/evaluation.md)."""


class UnknownQueryError(GraphmemError):
    """No query of that name in the Cypher catalogue (``graphmem cypher show NAME``).

    Args:
        name: the name asked for.
        close: the catalogue's names closest to it, best first (may be empty); for a part,
            the queries that put it in.
        part: ``name`` is a part (``cypher/parts/``), shown within the queries that name it.
    """

    def __init__(self, name: str, close: Iterable[str] = (), *, part: bool = False) -> None:
        self.name = name
        self.close: tuple[str, ...] = tuple(close)
        self.part = part
        if part:
            hint = f"; it is a part, put in by {', '.join(self.close) or 'other parts'}"
        elif self.close:
            hint = f"; did you mean {', '.join(self.close)}?"
        else:
            hint = "; `graphmem cypher list` lists them"
        super().__init__(f"no Cypher query named {name!r}{hint}")


class DatabaseUnavailableError(GraphmemError):
    """No Neo4j server could be reached or started, or it kept failing transiently (busy,
    deadlocked, leader switch) after graphmem's bounded retries. The driver's
    error, when there is one, is chained as ``__cause__``."""


class DatabaseAuthError(DatabaseUnavailableError):
    """Neo4j refused the credentials (wrong, missing or locked out)."""


class ClientClosedError(GraphmemError):
    """The client was closed (:meth:`graphmem.Memory.close`): it sends nothing more, even
    while other clients of the same settings keep the shared driver open."""


class StoreNotEmptyError(GraphmemError):
    """An initial load (``graphmem import --initial``) met a database that holds data, or a
    store graphmem does not run itself; nothing was written."""


class StoreError(GraphmemError):
    """Neo4j refused or failed a statement for a reason other than connectivity.

    Args:
        message: what graphmem was doing and the Neo4j status code, never record content.
        code: the Neo4j status code (``Neo.ClientError...``), or None for a driver-side error.

    The driver's error is chained as ``__cause__``.
    """

    def __init__(self, message: str, *, code: str | None = None,
                 record_ids: Iterable[str] = ()) -> None:
        super().__init__(message, record_ids=record_ids)
        self.code = code


class ConstraintViolationError(StoreError):
    """A uniqueness constraint refused a write (usually a concurrent writer created the same
    id first; the store's writers catch it and decide again)."""
