"""StoreBase: the driver, the query plumbing every store concern shares (named Cypher files,
read routing, retried transaction functions), schema set-up and plain record reads.

Every call that reaches the driver goes through :mod:`graphmem.db.resilience`: driver errors
leave as graphmem errors, and auto-commit statements are retried on transient errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import Any

import neo4j
from neo4j import (
    Driver,
    ManagedTransaction,
    NotificationDisabledClassification,
    RoutingControl,
    Transaction,
    unit_of_work,
)
from neo4j.exceptions import IncompleteCommit

from graphmem.db import catalogue as cypher
from graphmem.db.access import HIDDEN_SUCCESSOR, Access, decision_within
from graphmem.db.codec import (
    DEFAULT_MAX_CONTENT_BYTES,
    Clock,
    StoredState,
    checked_clock,
    content_bound,
    record_from_props,
    state_from_props,
    to_native,
)
from graphmem.db.migrations import migrate
from graphmem.db.resilience import DriverFailure, translate, translated, with_retry
from graphmem.db.settings import DEFAULT_RETRY_TIME_S
from graphmem.errors import ClientClosedError, RecordNotFoundError
from graphmem.fields import utc_now
from graphmem.limits import DEFAULT_LIMITS, InputLimits
from graphmem.models import MemoryRecord

UNKNOWN_COMMIT_RUNS = 3
"""How many times :meth:`StoreBase.transaction` runs a transaction function that knows its
own commit when its commits' acknowledgements keep being lost (the first run included)."""


class StoreBase:
    """The driver and the query plumbing shared by every store concern (see
    :class:`graphmem.db.store.Neo4jStore`, which composes them).

    Args:
        driver: an open ``neo4j`` driver (bolt://, neo4j://, neo4j+s:// ...).
        database: the database name every query targets.
        max_content_bytes: largest accepted content, in UTF-8 bytes (default 64 KiB): a
            positive int, else ValidationError (:func:`~graphmem.db.codec.content_bound`).
        clock: returns the current aware time (read as UTC); injectable for tests. A
            reading that is no aware datetime raises when read (:func:`checked_clock`).
        retry_time_s: how long :meth:`write_once` and :meth:`read_once` keep retrying, in
            seconds: the driver's retry time for transaction functions
            (``ConnectionSettings.retry_time_s``).
        limits: the bounds of every other user-supplied value (:mod:`graphmem.limits`).
    """

    def __init__(
        self,
        driver: Driver,
        *,
        database: str = "neo4j",
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        clock: Clock = utc_now,
        retry_time_s: float = DEFAULT_RETRY_TIME_S,
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> None:
        self.driver = driver
        self.limits = limits
        self.retry_time_s = retry_time_s
        self.database = database
        self.max_content_bytes = content_bound(max_content_bytes)
        #: the clock, each reading checked as a call's ``now`` is (:func:`checked_clock`)
        self.clock = checked_clock(clock)
        #: Scopes ("s" + key) and assertion groups ("a" + gkey) whose nodes this object has
        #: created or found (:mod:`graphmem.db.slots`); write transactions MATCH them.
        self.ensured: set[str] = set()
        #: set by :meth:`close`: every statement then raises ClientClosedError
        self.closed = False

    def close(self) -> None:
        """Send nothing more through this store (its driver is closed by whoever owns it)."""
        self.closed = True

    def _open_driver(self) -> Driver:
        """The driver, unless this store was closed.

        Raises:
            ClientClosedError: :meth:`close` was called.
        """
        if self.closed:
            raise ClientClosedError("this graphmem client is closed")
        return self.driver

    # -- plumbing -------------------------------------------------------------------

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run read query ``name`` (routed to a reader in a cluster); rows as dicts."""
        return [r.data() for r in self.read_records(name, **params)]

    def read_records(self, name: str, **params: Any) -> list[neo4j.Record]:
        """Run read query ``name``; the driver's rows (tuples, cheaper than dicts).

        Raises:
            GraphmemError: a driver error, translated (:mod:`graphmem.db.resilience`).
        """
        with translated(f"running {name}"):
            records, _, _ = self._open_driver().execute_query(
                cypher.query(name), parameters_=cypher.arguments(name, params),
                database_=self.database,
                routing_=RoutingControl.READ,
            )
        return records

    def read_values(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Like :meth:`read`, for results of plain values and lists only (no nodes, maps or
        temporals to convert): rows as dicts of the driver's values as received, without
        ``Record.data()``'s recursive copy, which dominates large results (deletion walks)."""
        with translated(f"running {name}"):
            records, _, _ = self._open_driver().execute_query(
                cypher.query(name), parameters_=cypher.arguments(name, params),
                database_=self.database,
                routing_=RoutingControl.READ,
            )
        return [dict(zip(r.keys(), r.values(), strict=True)) for r in records]

    def read_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Like :meth:`read_values`, as one auto-commit statement: one round trip, where
        ``execute_query`` begins a transaction, runs the query and commits, each a round trip of its
        own (the version check of a reused candidates answer, before every read). Causally chained
        like :meth:`read_values` (the driver's bookmark manager); retried on transient errors by
        :func:`~graphmem.db.resilience.with_retry`, for at most ``retry_time_s``.

        Raises:
            GraphmemError: a driver error, translated (:mod:`graphmem.db.resilience`).
        """
        return self._statement(name, params, neo4j.READ_ACCESS,
                               lambda r: dict(zip(r.keys(), r.values(), strict=True)))

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run write query ``name`` in its own transaction (retried by the driver)."""
        with translated(f"running {name}"):
            records, _, _ = self._open_driver().execute_query(
                cypher.query(name), parameters_=cypher.arguments(name, params),
                database_=self.database,
                routing_=RoutingControl.WRITE,
            )
        return [r.data() for r in records]

    def write_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run write query ``name`` as one auto-commit statement; rows as dicts.

        One round trip: the server commits as it sends the last row, where a transaction
        function (:meth:`write`) waits for its rows and then for its commit. Causally
        chained like :meth:`write` (the driver's bookmark manager). Retried on
        transient errors (a deadlock) by :func:`~graphmem.db.resilience.with_retry`, so only
        for statements safe to repeat, for at most ``retry_time_s`` (as the driver retries
        :meth:`write`).

        Raises:
            GraphmemError: a driver error, translated (:mod:`graphmem.db.resilience`).
        """
        return self._statement(name, params, neo4j.WRITE_ACCESS, neo4j.Record.data)

    def _statement(self, name: str, params: dict[str, Any], access: str,
                   row: Callable[[neo4j.Record], dict[str, Any]]) -> list[dict[str, Any]]:
        """Query ``name`` as one auto-commit statement in a session chained to the driver's
        bookmarks, retried on transient errors; each row made by ``row``."""
        def once() -> list[dict[str, Any]]:
            with self._session(access) as session:
                result = session.run(cypher.query(name), cypher.arguments(name, params))
                return [row(r) for r in result]

        with translated(f"running {name}"):
            return with_retry(once, f"running {name}", deadline_s=self.retry_time_s)

    def transaction(self, name: str, work: Callable[[ManagedTransaction], Any], *,
                    knows_its_commit: bool = False) -> Any:
        """Run ``work`` as one write transaction function (idempotent; may be retried).

        ``name`` tags the transaction's metadata so ``SHOW TRANSACTIONS`` names it.
        Graphmem errors raised by ``work`` pass through; driver errors are translated
        (a uniqueness violation becomes :class:`~graphmem.errors.ConstraintViolationError`).

        ``knows_its_commit``: ``work`` recognises what an earlier run of it committed (a
        token of the call stored with it) and then changes nothing more. A commit whose
        acknowledgement was lost (the connection cut after COMMIT was sent: the driver's
        ``IncompleteCommit``, which it never retries, since the server may have committed)
        then runs ``work`` again, up to :data:`UNKNOWN_COMMIT_RUNS` times, so the call
        reports what it did instead of an error after which its repeat would take its own
        write for another's (tests/integration/reliability/test_lost_commit_ack.py).
        Otherwise that commit raises :class:`~graphmem.errors.DatabaseUnavailableError`.
        """
        tagged = unit_of_work(metadata={"graphmem_tx": name})(work)
        runs = UNKNOWN_COMMIT_RUNS if knows_its_commit else 1
        for run in range(1, runs + 1):
            with translated(f"running {name}"):
                try:
                    with self._session() as session:
                        return session.execute_write(tagged)
                except IncompleteCommit:
                    if run == runs:
                        raise
        raise AssertionError("unreachable")

    def begin(self, name: str) -> OpenTransaction:
        """Begin a write transaction that its caller commits later, perhaps from another
        thread (one thread at a time): see :class:`OpenTransaction`. Not retried: on an error
        the caller closes it (nothing was written) and may write again another way.

        Raises:
            neo4j errors, untranslated (the caller decides; see :class:`OpenTransaction`).
        """
        session = self._session()
        try:
            tx = session.begin_transaction(metadata={"graphmem_tx": name})
        except BaseException:
            session.close()
            raise
        return OpenTransaction(session, tx)

    def _session(self, access: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        """A session of this store's database, causally chained with every ``execute_query``
        of its driver (the driver's bookmark manager): in a cluster, a read that follows a
        write, from any client of the driver, sees it, as it does after ``execute_query``.
        ``access``: where its auto-commit statements are routed (``neo4j.READ_ACCESS``: a
        reader)."""
        driver = self._open_driver()
        return driver.session(database=self.database, default_access_mode=access,
                              bookmark_manager=driver.execute_query_bookmark_manager)

    @staticmethod
    def run(
        tx: ManagedTransaction | Transaction, name: str, **params: Any
    ) -> list[dict[str, Any]]:
        """Run query ``name`` inside ``tx`` (managed or explicit); rows as dicts."""
        result = tx.run(cypher.statement(name), cypher.arguments(name, params))
        return [r.data() for r in result]

    def ensure_schema(self) -> None:
        """Create constraints and indexes if missing (idempotent), then run the data migrations
        this database has not had (:mod:`graphmem.db.migrations`).

        The statements of ``cypher/schema.cypher`` run in one transaction (a new store's
        first client, and a set-up store's, need one commit, not one for each), which the
        driver retries on transient errors (a deadlock with another client setting up the
        same store). If Neo4j refuses it (an equivalent rule another client created
        meanwhile), each statement runs again in an auto-commit transaction of its own,
        retried, as many clients at once can: ``IF NOT EXISTS`` then finds what the other
        client created.

        Raises:
            DatabaseUnavailableError: the server is unreachable, or stayed busy past the retries.
            StoreError: Neo4j refused a statement.
        """
        statements: list[Any] = list(cypher.statements("schema"))
        try:
            self._in_one_transaction(statements)
        except neo4j.exceptions.ClientError:
            for statement in statements:
                with_retry(partial(self._auto_commit, statement), "creating the schema")
        except DriverFailure as exc:  # unreachable, or busy past the driver's retries
            raise translate(exc, "creating the schema") from exc
        with_retry(partial(self._auto_commit, cypher.query("schema_await")),
                   "waiting for the indexes")
        migrate(self)

    def _schema_session(self) -> neo4j.Session:
        # A schema statement whose rule exists already "has no effect": Neo4j says so with a
        # SCHEMA notification, which the driver turns into a Neo4jWarning under `python -X
        # dev` (one for each rule, for every client that connects to a set-up database). That is
        # what IF NOT EXISTS is for; the category is silenced for these statements only.
        return self._open_driver().session(
            database=self.database,
            notifications_disabled_classifications=[NotificationDisabledClassification.SCHEMA])

    def _in_one_transaction(self, statements: Sequence[Any]) -> None:
        def work(tx: ManagedTransaction) -> None:
            for statement in statements:
                tx.run(statement).consume()

        with self._schema_session() as session:
            session.execute_write(work)

    def _auto_commit(self, statement: Any) -> None:
        with self._schema_session() as session:
            try:
                session.run(statement).consume()
            except neo4j.exceptions.ClientError as exc:
                # IF NOT EXISTS racing another client's identical statement: it created the
                # very rule this one asked for, which is what was wanted.
                if exc.code != "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists":
                    raise

    # -- validation -----------------------------------------------------------------

    # -- reads ----------------------------------------------------------------------

    def get_props(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Stored properties by id (missing ids are absent from the result)."""
        rows = self.read("records/get", ids=list(ids))
        return {row["record"]["id"]: row["record"] for row in rows}

    def get(self, record_id: str) -> MemoryRecord:
        """The record with this id, in its current lifecycle state.

        Raises:
            RecordNotFoundError: no such id, or it was erased (``explain`` reports ERASED).
        """
        props = self.get_props([record_id]).get(record_id)
        if props is None:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        if props.get("erased"):
            raise RecordNotFoundError(f"record {record_id!r} was erased; only its tombstone "
                                      "remains", record_ids=[record_id])
        return record_from_props(props)

    def get_many(self, ids: Sequence[str]) -> dict[str, MemoryRecord]:
        """Records by id, leaving out missing and erased ones."""
        return {
            rid: record_from_props(p) for rid, p in self.get_props(ids).items()
            if not p.get("erased")
        }

    def state(self, record_id: str) -> StoredState:
        """Lifecycle flags of a record (quarantine, recompute, erasure, retraction detail)."""
        props = self.get_props([record_id]).get(record_id)
        if props is None:
            raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
        return state_from_props(props)


    def transitions(self, record_id: str, access: Access | None = None
                    ) -> list[dict[str, Any]]:
        """Declared transitions and write decisions of a record, oldest first (``kind``,
        ``by``, ``reason``, ``at``). Given a bound caller's ``access``, only the decisions on
        proposals within its reach (:func:`~graphmem.db.access.decision_within`: a proposal
        the policy discarded left its id free for a later record of someone else), and a
        supersession's reason without the id of a successor it cannot read, and a bound
        writer's claim in ``by`` naming only the caller's tenants
        (docs/spec/eligibility.md#confinement)."""
        principal = access.principal if access is not None else None
        rows = [row for row in self.read("transitions_for", id=record_id)
                if principal is None or not row["foreign"] or decision_within(principal, row)]
        hidden: set[str] = set()
        if access is not None and principal is not None:
            successors = {row["successor"] for row in rows if row["successor"]}
            hidden = successors - access.visible(self, successors, node="record")
        out = []
        for row in rows:
            item = {k: to_native(row[k]) for k in ("kind", "by", "reason", "at")}
            if row["successor"] in hidden and isinstance(item["reason"], str):
                item["reason"] = item["reason"].replace(row["successor"], HIDDEN_SUCCESSOR)
            if access is not None:
                item["by"] = access.by_shown(item["by"])
            out.append(item)
        return out

    def counts(self) -> dict[str, int]:
        """Node counts per graphmem label."""
        return {row["label"]: row["n"] for row in self.read("store_counts")}


class OpenTransaction:
    """A write transaction begun by :meth:`StoreBase.begin`: named queries run in it, one
    thread at a time, until :meth:`commit`; :meth:`close` rolls back whatever was not
    committed and ends its session. Driver errors leave it untranslated: the caller decides
    whether to write again another way (nothing of an uncommitted transaction was written)."""

    def __init__(self, session: neo4j.Session, tx: Transaction) -> None:
        self._session = session
        self._tx = tx

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run query ``name`` in this transaction; rows as dicts."""
        return StoreBase.run(self._tx, name, **params)

    def commit(self) -> None:
        """Commit.

        Raises:
            neo4j errors, untranslated: ``IncompleteCommit`` when the outcome is unknown (a
            connection lost while committing), others when nothing was written.
        """
        self._tx.commit()

    def close(self) -> None:
        """Roll back what was not committed and close the session (errors of a broken
        connection are ignored: an uncommitted transaction was not written)."""
        for end in (self._tx.close, self._session.close):
            with suppress(Exception):  # a torn-down connection raises more than DriverError
                end()
