"""What an erasure leaves in the Neo4j server's files, and what graphmem does about it
(docs/spec/deletion.md).

Neo4j Community 5.26 keeps erased text on disk after a transaction overwrites or deletes it
(measured by ``bench/erasure_residue.py``; ``docs/erasure.md``): every value written stays in
the transaction logs until they are pruned (by default logs of the last 2 days are kept), and
a freed string or array record keeps its bytes (only its in-use bit is cleared) until a later
write reuses it. A server run by graphmem's launcher (``graphmem db start``, the server a
command starts for itself, the tests' throwaway ones) keeps no old logs
(``db.tx_log.rotation.retention_policy=false``) and offers ``graphmem.purgeErased()``, which
zeroes the free records, starts a new log and checkpoints: :func:`settle` calls it when an
apply returns, so the server's home holds no copy of the erased text.

Any other server (``NEO4J_URI``) has no such procedure: :func:`settle` reads its own
settings where it may and lists what stays outside graphmem's reach (:class:`DiskResidue`),
so the privacy team knows what else to ask of the server's operators.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from graphmem.db.ops.disk import DiskOps
from graphmem.errors import StoreError

if TYPE_CHECKING:
    from graphmem.db.store import Neo4jStore

__all__ = ["DiskResidue", "OutsideReach", "outside_reach", "purge", "record_residue", "settle"]

#: Neo4j's answer when a procedure is not there (a server not run by graphmem's launcher).
PROCEDURE_NOT_FOUND = "Neo.ClientError.Procedure.ProcedureNotFound"


class OutsideReach(BaseModel):
    """One place a copy of erased text may stay that graphmem cannot clear.

    Attributes:
        what: the place (``transaction logs``, ``backups`` ...).
        detail: why it may hold the text, and what to do about it.
        setting: the server setting that decides it, when there is one.
        value: that setting's value as the server reported it (None: not read).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    what: str
    detail: str
    setting: str | None = None
    value: str | None = None


class DiskResidue(BaseModel):
    """What an apply did about the server's files (docs/spec/deletion.md).

    Attributes:
        managed: the server is run by graphmem's launcher and was purged.
        zeroed_records: free string/array records overwritten with zeros (managed only).
        log_files: transaction log files the server kept after the purge (managed only).
        seconds: how long the purge (or the reading of settings) took, in seconds.
        settings: the server's settings read (name to value); empty when refused.
        outside_reach: what stays outside graphmem's reach.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    managed: bool
    zeroed_records: int = 0
    log_files: int = 0
    seconds: float = 0.0
    settings: dict[str, str] = {}
    outside_reach: tuple[OutsideReach, ...] = ()


_MANAGED_OUTSIDE = (
    OutsideReach(what="transactions open during the erasure",
                 detail="Neo4j frees a deleted record only once every transaction open at the "
                        "erasure has closed: one another client kept open holds its freed "
                        "records, which the next purge (the next apply) zeroes"),
    OutsideReach(what="copies of the server's home",
                 detail="backups, snapshots or copies of graphmem's data directory made "
                        "before the erasure hold the text: erase or expire them"),
    OutsideReach(what="storage media",
                 detail="the blocks of deleted log files and overwritten records may stay on "
                        "the disk until reused (flash wear levelling, file-system journals): "
                        "use full-disk encryption"),
)


def outside_reach(settings: dict[str, str]) -> tuple[OutsideReach, ...]:
    """What stays outside graphmem's reach on a server it does not run.

    Args:
        settings: the server's settings by name (as :func:`settle` read them; may be empty).

    Returns:
        the places, each with the setting that decides it and its value when known.
    """
    def value(name: str) -> str | None:
        return settings.get(name)

    notes = [
        OutsideReach(
            what="transaction logs",
            detail="every value written stays in the server's transaction logs until a "
                   "checkpoint prunes them under this retention policy (Neo4j's default "
                   "keeps 2 days): ask the operator to prune them, or wait that long",
            setting="db.tx_log.rotation.retention_policy",
            value=value("db.tx_log.rotation.retention_policy")),
        OutsideReach(
            what="freed store records",
            detail="Neo4j frees a deleted or overwritten text's records without clearing "
                   "them; they keep the bytes until a later write reuses them (a store copy, "
                   "neo4j-admin database copy, rewrites the store without them)"),
        OutsideReach(
            what="backups, dumps and cluster members",
            detail="backups, dumps, snapshots (Aura) and other cluster members' stores are "
                   "not visible to graphmem: erase or expire them",
            setting="server.backup.enabled", value=value("server.backup.enabled")),
    ]
    query_log = value("db.logs.query.enabled")
    if query_log is None or query_log.upper() != "OFF":
        notes.append(OutsideReach(
            what="query log",
            detail="with query logging and parameter logging on (Enterprise), the query "
                   "log holds the parameters of the writes, the erased text among them",
            setting="db.logs.query.parameter_logging_enabled",
            value=value("db.logs.query.parameter_logging_enabled")))
    return tuple(notes)


def purge(store: Neo4jStore) -> DiskResidue | None:
    """Purge a launcher-run server's files of erased text; None on any other server.

    Zeroes the free string/array records, starts a new transaction log and checkpoints
    (``graphmem.purgeErased()``, ``docker/Launcher.java``; twice, see below): afterwards no
    file under the server's home holds text that a committed transaction erased, unless a
    transaction that another client opened before the erasure is still open (its records
    are freed, and zeroed, by the next purge).

    Raises:
        StoreError: the server has the procedure and it failed.
        DatabaseUnavailableError: the server is unreachable.
    """
    ops = DiskOps(store)
    start = time.perf_counter()
    try:
        ops.purge()
    except StoreError as exc:
        if exc.code == PROCEDURE_NOT_FOUND:
            return None
        raise
    # Neo4j frees the records a transaction deleted only once every transaction open at the
    # id generator's next maintenance has closed, and the first call's own transaction was
    # open at it: the second call, in a new transaction, zeroes what the erasure freed.
    done = ops.purge()
    return DiskResidue(managed=True, zeroed_records=done.zeroed,
                       log_files=done.log_version - done.lowest_log_version + 1,
                       seconds=time.perf_counter() - start,
                       outside_reach=_MANAGED_OUTSIDE)


def settle(store: Neo4jStore) -> DiskResidue:
    """After an apply: purge a launcher-run server, else report what stays out of reach.

    Reads the other server's settings with ``dbms.listConfig`` (administrators only; a
    refusal leaves ``settings`` empty and the values unknown).

    Raises:
        StoreError: the purge procedure failed.
        DatabaseUnavailableError: the server is unreachable.
    """
    done = purge(store)
    if done is not None:
        return done
    start = time.perf_counter()
    try:
        settings = DiskOps(store).settings()
    except StoreError:
        settings = {}
    return DiskResidue(managed=False, seconds=time.perf_counter() - start, settings=settings,
                       outside_reach=outside_reach(settings))


def record_residue(store: Neo4jStore, request_id: str, residue: DiskResidue) -> None:
    """Keep ``residue`` on deletion request ``request_id`` (its certificate lists it).

    Raises:
        DatabaseUnavailableError, StoreError: the write failed.
    """
    DiskOps(store).record(request_id,
                          json.dumps(residue.model_dump(mode="json"), sort_keys=True))
