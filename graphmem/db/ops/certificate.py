"""Erasure certificates' operations (docs/spec/deletion.md): what a request was issued, the
tenants' chains of certificates, and the transaction that links a new one to their heads."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from neo4j import ManagedTransaction

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["CertificateOps", "CertificateTx", "ChainHead", "IssuedCertificate",
           "StoredCertificate"]

T = TypeVar("T")


class StoredCertificate(NamedTuple):
    """What a deletion request keeps of its certificate.

    Attributes:
        certificate: the certificate's JSON (None: none issued). digest: its digest.
        disk: the request's disk report as JSON (None: not settled). tenants: its tenants.
    """

    certificate: str | None
    digest: str | None
    disk: str | None
    tenants: list[str] | None


class ChainHead(NamedTuple):
    """An ``ErasureChain``: its key (``tenant``), head certificate digest and length."""

    tenant: str
    head: str | None
    length: int


class IssuedCertificate(NamedTuple):
    """A certificate the store issued: its digest, request, tenants and the request's reach
    (canonical JSON; None: the whole of its tenants)."""

    digest: str
    request_id: str
    tenants: list[str] | None
    reach: str | None


class CertificateTx:
    """The certificate operations inside one write transaction ``tx`` of ``store``."""

    def __init__(self, store: Neo4jStore, tx: ManagedTransaction) -> None:
        self.store = store
        self.tx = tx

    def lock_chains(self, keys: Sequence[str], at: datetime) -> list[ChainHead]:
        """The chains of ``keys``, made if missing, locked for this transaction."""
        return [ChainHead(**row) for row in self.store.run(
            self.tx, "deletion/certificate/chains", tenants=list(keys), at=at)]

    def stored(self, request_id: str) -> StoredCertificate:
        """What the request keeps of its certificate, read in this transaction."""
        return StoredCertificate(**self.store.run(self.tx, "deletion/certificate/stored",
                                                  id=request_id)[0])

    def link(self, request_id: str, keys: Sequence[str], *, certificate: str, digest: str
             ) -> None:
        """Keep the certificate on the request and make it the head of chains ``keys``."""
        self.store.run(self.tx, "deletion/certificate/link", id=request_id, tenants=list(keys),
                       certificate=certificate, digest=digest)


class CertificateOps:
    """Certificate operations on ``store``, each a statement (or transaction) of its own.

    Raises (every method): DatabaseUnavailableError, StoreError: the driver failed.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def stored(self, request_id: str) -> StoredCertificate | None:
        """What the request keeps of its certificate (None: no such request)."""
        rows = self.store.read("deletion/certificate/stored", id=request_id)
        return StoredCertificate(**rows[0]) if rows else None

    def issued(self, digests: Sequence[str]) -> list[IssuedCertificate]:
        """The certificates among ``digests`` that the store issued."""
        return [IssuedCertificate(**row) for row in self.store.read(
            "deletion/certificate/known", digests=list(digests))]

    def heads(self, keys: Sequence[str]) -> list[ChainHead]:
        """The chains of ``keys`` that exist."""
        return [ChainHead(**row) for row in self.store.read("deletion/certificate/heads",
                                                            tenants=list(keys))]

    def atomic(self, name: str, work: Callable[[CertificateTx], T]) -> T:
        """Run ``work`` in one write transaction (retried as a whole on transient errors).

        Raises:
            whatever ``work`` raises, and the driver's errors, translated.
        """
        result: T = self.store.transaction(name, lambda tx: work(CertificateTx(self.store, tx)))
        return result
