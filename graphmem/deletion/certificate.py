"""Erasure certificates (docs/spec/deletion.md): what a privacy team files and an auditor checks.

A certificate states who asked for an erasure, why and when, the digest of the plan that was
applied, how many nodes each disposition took (and a digest of which), every verification
check that ran with its result, and what stays outside graphmem's reach
(:mod:`~graphmem.deletion.disk`). Its ``digest`` is the SHA-256 of the canonical JSON of every
other field, ``previous`` names the digest of each tenant's certificate before it, so the
certificates of a tenant form a chain, whose head the store keeps
(``(:ErasureChain {tenant, head, length})``), and the request keeps the certificate it was
issued. Issuing a request's certificate again returns the one issued.

:func:`check` tells whether a certificate was altered (its digest) and whether the store still
agrees with it: the request was issued this very certificate, disposed of the same nodes the
same way, every check still passes, and each predecessor is a certificate the store issued.

A request a confined principal made (its ``reach``: :class:`~graphmem.deletion.models.
PlanReach`) is chained with the tenant's requests of that very reach only, in a chain of its
own (keyed by tenant and reach), so its certificate's ``previous`` and ``position`` say
nothing of requests beyond that reach.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict

from graphmem.db.access import Access
from graphmem.db.ops.certificate import CertificateOps, CertificateTx, StoredCertificate
from graphmem.db.store import Neo4jStore
from graphmem.deletion.disk import DiskResidue, OutsideReach, record_residue, settle
from graphmem.deletion.models import DeletionReport, PlanReach, ReportEntry, Verification
from graphmem.deletion.reach import reach_key
from graphmem.deletion.verify import report
from graphmem.errors import CertificateError, DeletionError
from graphmem.fields import AwareDatetime
from graphmem.limits import DEFAULT_LIMITS, InputLimits

__all__ = ["CERTIFICATE_FORMAT", "CertificateCheck", "CertificateMethods", "CertificateVerdict",
           "ErasureCertificate", "check", "issue", "load"]

CERTIFICATE_FORMAT: Literal["graphmem-erasure-certificate"] = "graphmem-erasure-certificate"


class CertificateCheck(BaseModel):
    """One verification check of the erasure and its result.

    Attributes:
        name: what was checked (``deleted_with_content``: no erased record holds content ...).
        passed: whether it held. detail: counts, never content.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    passed: bool
    detail: str = ""


class ErasureCertificate(BaseModel):
    """The certificate of one applied deletion request (docs/spec/deletion.md); JSON on disk.

    Attributes:
        format, version: identify the document.
        request_id, tenants, requested_by, reason, subject: the request.
        planned_at, started_at, finished_at: when it was planned and applied (aware UTC).
        issued_at: when this certificate was issued (aware UTC).
        plan_digest: the applied plan's digest.
        counts: nodes by disposition. disposed: nodes disposed of in all.
        entries_digest: SHA-256 of the sorted ``node id disposition`` lines of every node.
        redact_term_count: how many terms the request named (never the terms).
        checks: every verification check that ran, with its result.
        disk: what the apply did to the server's files (None when not recorded).
        outside_reach: what stays outside graphmem's reach.
        previous: each tenant's certificate digest before this one (None: the first).
        position: this certificate's place in each tenant's chain (1 = first).
        reach: the request's reach (a confined principal's; None: the whole of its tenants):
            its checks looked no further, and its chain holds that reach's requests only.
        digest: SHA-256 of the canonical JSON of every other field (``reach`` left out when
            None, so certificates issued before it existed keep their digest).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["graphmem-erasure-certificate"] = CERTIFICATE_FORMAT
    version: Literal[1] = 1
    request_id: str
    tenants: tuple[str, ...]
    requested_by: str
    reason: str
    subject: dict[str, str] | None = None
    planned_at: AwareDatetime | None = None
    started_at: AwareDatetime | None = None
    finished_at: AwareDatetime | None = None
    issued_at: AwareDatetime
    plan_digest: str
    counts: dict[str, int]
    disposed: int
    entries_digest: str
    redact_term_count: int
    checks: tuple[CertificateCheck, ...]
    disk: DiskResidue | None = None
    outside_reach: tuple[OutsideReach, ...] = ()
    previous: dict[str, str | None]
    position: dict[str, int]
    reach: PlanReach | None = None
    digest: str = ""

    def compute_digest(self) -> str:
        """SHA-256 (hex) of the canonical JSON of every field but ``digest`` (and ``reach``
        when None)."""
        body = self.model_dump(mode="json", exclude={"digest"} | (
            {"reach"} if self.reach is None else set()))
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_json(self) -> str:
        """The certificate as indented JSON (what ``-o`` writes)."""
        return self.model_dump_json(indent=2)


class CertificateVerdict(BaseModel):
    """What :func:`check` found.

    Attributes:
        request_id: the certificate's request. digest: its stated digest.
        intact: the digest matches the content (nothing was altered).
        agrees: the store still agrees with it.
        problems: each disagreement or alteration, in words (ids and counts, no content).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: str
    digest: str
    intact: bool
    agrees: bool
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """Intact and agreed with."""
        return self.intact and self.agrees


def entries_digest(entries: Iterable[ReportEntry]) -> str:
    """SHA-256 (hex) of the sorted ``node<TAB>id<TAB>disposition`` lines of ``entries``."""
    lines = sorted(f"{e.node.value}\t{e.id}\t{e.disposition.value}" for e in entries)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def checks_of(done: DeletionReport) -> tuple[CertificateCheck, ...]:
    """Every check of ``done``'s verification, named as its fields are, with its result."""
    v = done.verification
    out = [CertificateCheck(name="request_applied", passed=v.state == "applied",
                            detail=f"state {v.state}"),
           CertificateCheck(name="every_planned_node_disposed", passed=v.disposed == v.planned,
                            detail=f"{v.disposed} of {v.planned}"),
           CertificateCheck(name="terms_checked",
                            passed=v.terms_checked >= done.request.redact_term_count,
                            detail=f"{v.terms_checked} of {done.request.redact_term_count}")]
    for name, value in v:
        if isinstance(value, tuple) and name != "problems" and name in Verification.model_fields:
            out.append(CertificateCheck(name=name, passed=not value,
                                        detail=f"{len(value)} found"))
    return tuple(out)


def _stored(store: Neo4jStore, request_id: str) -> StoredCertificate:
    stored = CertificateOps(store).stored(request_id)
    if stored is None:
        raise DeletionError(f"no deletion request {request_id!r}", record_ids=[request_id])
    return stored


def chain_keys(tenants: Iterable[str], reach: PlanReach | None) -> dict[str, str]:
    """The ``ErasureChain`` key of each tenant for requests of ``reach``: the tenant itself
    for the whole of it, else the tenant and the reach's canonical JSON."""
    return {t: t if reach is None else f"{t} {reach_key(reach)}" for t in tenants}


def issue(store: Neo4jStore, request_id: str, *, redact_terms: Iterable[str] = ()
          ) -> ErasureCertificate:
    """The certificate of applied request ``request_id``: issued now and linked to the head
    of each of its tenants' chains, or the one issued before.

    Args:
        store: the store. request_id: an applied deletion request.
        redact_terms: the request's terms, passed to its verification when it needs them.

    Raises:
        DeletionError: no such request.
        CertificateError: a verification check fails (nothing is issued).
        ValidationError: the request id or the terms over their bounds
            (:class:`graphmem.limits.InputLimits`).
    """
    store.limits.check_id("the deletion request id", request_id)
    redact_terms = store.limits.check_terms(redact_terms)
    stored = _stored(store, request_id)
    if stored.certificate:
        return load(stored.certificate)
    done = report(store, request_id, redact_terms=redact_terms)
    checks = checks_of(done)
    failed = [c.name for c in checks if not c.passed]
    if failed:
        raise CertificateError("the erasure's verification failed, so no certificate is "
                               f"issued: {', '.join(failed)}", record_ids=[request_id])
    if stored.disk:
        residue = DiskResidue.model_validate_json(stored.disk)
    else:  # applied without settling the server's files: do it now
        residue = settle(store)
        record_residue(store, request_id, residue)
    tenants = tuple(sorted(done.request.tenants))
    keys = chain_keys(tenants, done.request.reach)
    at = store.clock()

    def work(tx: CertificateTx) -> ErasureCertificate:
        chains = {head.tenant: head for head in tx.lock_chains(list(keys.values()), at)}
        heads = {t: chains[keys[t]] for t in tenants}
        again = tx.stored(request_id)
        if again.certificate:  # issued meanwhile by another caller
            return load(again.certificate)
        req = done.request
        cert = ErasureCertificate(
            request_id=req.id, tenants=tenants, requested_by=req.requested_by,
            reason=req.reason, subject=req.subject, planned_at=req.planned_at,
            started_at=req.started_at, finished_at=req.finished_at, issued_at=at,
            plan_digest=req.digest, counts=done.counts, disposed=len(done.entries),
            entries_digest=entries_digest(done.entries),
            redact_term_count=req.redact_term_count, checks=checks, disk=residue,
            outside_reach=residue.outside_reach,
            previous={t: heads[t].head for t in tenants},
            position={t: int(heads[t].length) + 1 for t in tenants}, reach=req.reach)
        cert = cert.model_copy(update={"digest": cert.compute_digest()})
        tx.link(request_id, list(keys.values()), certificate=cert.to_json(), digest=cert.digest)
        return cert

    return CertificateOps(store).atomic("erasure_certificate", work)


def load(source: str | bytes | dict[str, Any] | ErasureCertificate,
         limits: InputLimits = DEFAULT_LIMITS) -> ErasureCertificate:
    """A certificate from its JSON text or a dict (as ``-o`` wrote it).

    Args:
        source: the certificate. limits: ``certificate_bytes``, ``json_depth`` and
            ``number_chars`` bound it before it is parsed.

    Raises:
        CertificateError: not JSON, or not a certificate of this format.
        ValidationError: over a bound (:meth:`InputLimits.check_document`).
    """
    if isinstance(source, ErasureCertificate):
        return source
    if not isinstance(source, dict | str | bytes):
        raise CertificateError("not an erasure certificate: expected JSON text, bytes or a "
                               f"dict, got {type(source).__name__}")
    if isinstance(source, dict):
        limits.check_json_value("certificate", source)
        limits.check_document("certificate", json.dumps(source, ensure_ascii=False,
                                                        default=str), "certificate_bytes")
    else:
        source = limits.check_document("certificate", source, "certificate_bytes")
    try:
        if isinstance(source, dict):
            return ErasureCertificate.model_validate(source)
        return ErasureCertificate.model_validate_json(source)
    except pydantic.ValidationError as exc:
        raise CertificateError(f"not an erasure certificate: {exc.error_count()} problem(s), "
                               f"first at {'.'.join(map(str, exc.errors()[0]['loc']))}: "
                               f"{exc.errors()[0]['msg']}") from None


def check(store: Neo4jStore, source: str | bytes | dict[str, Any] | ErasureCertificate, *,
          redact_terms: Iterable[str] = ()) -> CertificateVerdict:
    """Whether certificate ``source`` was altered and whether the store still agrees with it.

    Args:
        store: the store. source: the certificate (see :func:`load`).
        redact_terms: the request's terms, passed to the fresh verification.

    Returns:
        the verdict; ``passed`` when intact and agreed with.

    Raises:
        CertificateError: ``source`` is not a certificate.
        ValidationError: ``source`` or the terms over their bounds
            (:class:`graphmem.limits.InputLimits`).
    """
    cert = load(source, store.limits)
    problems: list[str] = []
    intact = cert.compute_digest() == cert.digest
    if not intact:
        problems.append("altered: the digest does not match the certificate's content")
    agrees = _agreement(store, cert, problems, redact_terms)
    return CertificateVerdict(request_id=cert.request_id, digest=cert.digest, intact=intact,
                              agrees=agrees, problems=tuple(problems))


def _agreement(store: Neo4jStore, cert: ErasureCertificate, problems: list[str],
               redact_terms: Iterable[str]) -> bool:
    before = len(problems)
    try:
        stored = _stored(store, cert.request_id)
    except DeletionError:
        problems.append(f"the store has no deletion request {cert.request_id!r}")
        return False
    if stored.digest != cert.digest:
        problems.append("the store issued this request another certificate"
                        if stored.digest else "the store issued this request no certificate")
    done = report(store, cert.request_id, redact_terms=redact_terms)
    if done.request.digest != cert.plan_digest:
        problems.append("the request's plan digest differs")
    reach = done.request.reach  # the store's word, never the certificate's, picks the chain
    if cert.reach != reach:
        problems.append("the request's reach differs")
    if entries_digest(done.entries) != cert.entries_digest or done.counts != cert.counts:
        problems.append("the nodes disposed of differ: "
                        + ", ".join(f"{k} {v} (certified {cert.counts.get(k, 0)})"
                                    for k, v in done.counts.items()))
    now = {c.name: c for c in checks_of(done)}
    for c in cert.checks:
        fresh = now.get(c.name)
        if c.passed and (fresh is None or not fresh.passed):
            problems.append(f"check {c.name} no longer passes"
                            + (f" ({fresh.detail})" if fresh else ""))
    predecessors = {d for d in cert.previous.values() if d}
    ops = CertificateOps(store)
    known = {issued.digest: issued for issued in ops.issued(sorted(predecessors))}
    mine = reach_key(reach) if reach else None
    for tenant, prev in sorted(cert.previous.items()):
        if prev and (prev not in known or tenant not in (known[prev].tenants or ())
                     or known[prev].reach != mine):
            problems.append(f"tenant {tenant}: the previous certificate {prev[:12]}... is "
                            "not one the store issued for it")
    keys = chain_keys(done.request.tenants, reach)  # the store's tenants, as for the reach
    chains = {head.tenant: head for head in ops.heads(list(keys.values()))}
    for tenant, position in sorted(cert.position.items()):
        if tenant not in keys:
            problems.append(f"tenant {tenant}: not one of the request's tenants")
            continue
        chain = chains.get(keys[tenant])
        if chain is None or int(chain.length) < position:
            problems.append(f"tenant {tenant}: the store's chain is shorter than the "
                            f"certificate's place in it ({position})")
    return len(problems) == before


class CertificateMethods:
    """The certificate calls of :class:`graphmem.Memory` (a mixin over its ``_store``)."""

    _store: Neo4jStore
    access: Access

    if TYPE_CHECKING:
        def verify_deletion(self, request_id: str, *, redact_terms: Iterable[str] = ()
                            ) -> DeletionReport: ...

    def _reach(self, request_id: str) -> None:
        """A bound client reaches a request's certificate only as it reaches the request
        (:meth:`verify_deletion` refuses one out of reach as unknown)."""
        if self.access.bound:
            self.verify_deletion(request_id)

    def deletion_certificate(self, request_id: str, *, redact_terms: Iterable[str] = ()
                             ) -> ErasureCertificate:
        """The erasure certificate of applied request ``request_id`` (issued on first call,
        chained to its tenants' previous ones; see :func:`issue`; docs/spec/deletion.md).

        Raises:
            DeletionError: no such request. CertificateError: its verification fails.
            OutOfReachError: a bound client's request out of reach.
        """
        self._reach(request_id)
        return issue(self._store, request_id, redact_terms=redact_terms)

    def check_certificate(self, certificate: str | bytes | dict[str, Any] | ErasureCertificate,
                          *, redact_terms: Iterable[str] = ()) -> CertificateVerdict:
        """Whether ``certificate`` (JSON text, dict or model) was altered and whether the
        store still agrees with it (:func:`check`; docs/spec/deletion.md).

        Raises:
            CertificateError: not a certificate.
            ValidationError: the certificate or the terms over their bounds
                (:class:`graphmem.limits.InputLimits`).
            OutOfReachError: a bound client's certificate of a request out of reach.
        """
        self._reach(load(certificate, self._store.limits).request_id)
        return check(self._store, certificate, redact_terms=redact_terms)
