"""The attribution log's operations (docs/spec/read-path.md#attribution): a retrieval's
Retrieval node and candidate set, what it selected, and the exposure and use of its memories.

:class:`AttributionOps` is what :class:`graphmem.read.attribution.AttributionLog` needs of the
store; :class:`Neo4jAttribution` runs it on a :class:`~graphmem.db.store.Neo4jStore`. A
retrieval is logged in one transaction either way: whole in one transaction function
(:meth:`AttributionOps.log_retrieval`, retried by the driver), or begun while the read ranks
(:meth:`AttributionOps.begin_retrieval`) and completed with the selection and committed by
its caller (:class:`RetrievalLogTransaction`); nothing is logged before the commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal, NamedTuple, Protocol, TypedDict

from neo4j import ManagedTransaction

from graphmem.db.base import OpenTransaction
from graphmem.db.store import Neo4jStore
from graphmem.limits import InputLimits

__all__ = ["AttributionOps", "CandidateSetWrite", "Neo4jAttribution", "RetrievalLogTransaction",
           "RetrievalParams", "SelectedMemory", "Selection", "StoredRetrieval"]


class RetrievalParams(TypedDict):
    """A Retrieval node and its candidate set, as ``cypher/retrieval/log.cypher`` stores them.

    ``candidate_ids`` is None when the set is stored already or stored as a delta of
    ``base_digest`` (``added_ids``/``removed_ids``); ``max_depth`` bounds the chain of deltas.
    Times are aware UTC; ``budget_chars`` is in characters.
    """

    id: str
    at: datetime
    triggered: bool
    triggers: list[str]
    query: str
    ranker: str
    tenant: str
    scope_json: str
    tenants: list[str]
    clearance: str
    candidate_digest: str
    candidate_count: int
    candidate_ids: list[str] | None
    base_digest: str | None
    added_ids: list[str]
    removed_ids: list[str]
    max_depth: int
    budget_chars: int


class SelectedMemory(TypedDict):
    """One selected memory: its id, score, the reason shown and its rank (0 first)."""

    id: str
    score: float
    reason: str
    rank: int


class Selection(TypedDict):
    """What a retrieval selected (``cypher/retrieval/selected.cypher``): the memories in
    order and the keys of the conflicts among its candidates."""

    id: str
    selected_ids: list[str]
    conflict_keys: list[str]
    selected: list[SelectedMemory]


class CandidateSetWrite(NamedTuple):
    """A retrieval's log entry: its parameters, its candidate set's digest and its candidate
    ids (sent again, whole, when the set's base could not be read back)."""

    params: RetrievalParams
    digest: str
    candidate_ids: Sequence[str]


class StoredRetrieval(NamedTuple):
    """A logged retrieval as read back: the Retrieval node's properties, its CandidateSet's
    properties (None: no set was stored), those of every set of its chain of deltas, and the
    selected records with their scores and reasons."""

    retrieval: dict[str, Any]
    candidate_set: dict[str, Any] | None
    chain: list[dict[str, Any]]
    selected: list[dict[str, Any]]


class RetrievalLogTransaction(Protocol):
    """A retrieval's log transaction begun by :meth:`AttributionOps.begin_retrieval`: one
    thread at a time; driver errors leave it untranslated (nothing uncommitted was written)."""

    def add_selection(self, selection: Selection) -> None:
        """Link the Retrieval node to what it selected (nothing to do when nothing was)."""

    def commit(self) -> None:
        """Commit (``IncompleteCommit``: the outcome is unknown)."""

    def close(self) -> None:
        """Roll back what was not committed; end the session."""


class AttributionOps(Protocol):
    """What the attribution log needs of the store."""

    @property
    def limits(self) -> InputLimits:
        """The bounds of user-supplied values (the logged query, action ids)."""

    def log_retrieval(self, entry: CandidateSetWrite, selection: Selection) -> int:
        """Log a retrieval whole in one transaction function (retried by the driver); the
        depth of its candidate set's chain of deltas.

        Raises:
            GraphmemError: the store refused or could not be reached (nothing was logged).
        """

    def log_retrievals(self, batch: Sequence[tuple[CandidateSetWrite, Selection]]
                       ) -> list[int]:
        """Log several retrievals whole, each with what it selected, in one statement and one
        transaction function (retried by the driver); their chains' depths, in order.

        Raises:
            GraphmemError: the store refused or could not be reached (nothing was logged).
        """

    def begin_retrieval(self, entry: CandidateSetWrite
                        ) -> tuple[RetrievalLogTransaction, int]:
        """Begin a retrieval's log transaction and write its Retrieval node and candidate
        set in it (not committed); the transaction and the depth of the set's chain. On an
        error the transaction is rolled back and the error raised, untranslated."""

    def retrieval(self, retrieval_id: str) -> StoredRetrieval | None:
        """The logged retrieval with this id (None: no such retrieval)."""

    def log_action(self, kind: Literal["exposure", "use"], retrieval_id: str, action_id: str,
                   memory_ids: Sequence[str], at: datetime, helped: bool | None = None
                   ) -> None:
        """Log that an action was shown (``exposure``) or used (``use``, with ``helped``)
        these memories of a logged retrieval, at ``at`` (aware UTC)."""


class _OpenLog:
    """:class:`RetrievalLogTransaction` over an :class:`~graphmem.db.base.OpenTransaction`."""

    def __init__(self, tx: OpenTransaction) -> None:
        self._tx = tx

    def add_selection(self, selection: Selection) -> None:
        if selection["selected"] or selection["conflict_keys"]:
            self._tx.run("retrieval/selected", **selection)

    def commit(self) -> None:
        self._tx.commit()

    def close(self) -> None:
        self._tx.close()


def _write_set(run: Callable[..., list[dict[str, Any]]], entry: CandidateSetWrite) -> int:
    """Run retrieval/log (and candidate_set_fill when the set could not be read back); the
    depth of the set's chain of deltas."""
    row = run("retrieval/log", **entry.params)[0]
    if row["incomplete"]:
        run("candidate_set_fill", digest=entry.digest, ids=list(entry.candidate_ids))
        return 0
    return int(row["depth"])


class Neo4jAttribution:
    """:class:`AttributionOps` on a Neo4j store.

    Args:
        store: the store the log is written to.
    """

    def __init__(self, store: Neo4jStore) -> None:
        self._store = store

    @property
    def limits(self) -> InputLimits:
        """The store's input limits."""
        return self._store.limits

    def log_retrieval(self, entry: CandidateSetWrite, selection: Selection) -> int:
        """See :meth:`AttributionOps.log_retrieval`."""
        store = self._store

        def work(tx: ManagedTransaction) -> int:
            depth = _write_set(lambda name, **params: store.run(tx, name, **params), entry)
            if selection["selected"] or selection["conflict_keys"]:
                store.run(tx, "retrieval/selected", **selection)
            return depth

        depth: int = store.transaction("retrieval_log", work)
        return depth

    def log_retrievals(self, batch: Sequence[tuple[CandidateSetWrite, Selection]]
                       ) -> list[int]:
        """See :meth:`AttributionOps.log_retrievals` (``cypher/retrieval/log_batch.cypher``,
        the entries sorted by candidate digest so that sets are merged in one order)."""
        store = self._store
        order = sorted(range(len(batch)), key=lambda i: batch[i][0].digest)
        entries = [{**batch[i][0].params, **batch[i][1], "pos": i} for i in order]

        def work(tx: ManagedTransaction) -> list[int]:
            depths = [0] * len(batch)
            for row in store.run(tx, "retrieval/log_batch", entries=entries):
                entry = batch[row["pos"]][0]
                if row["incomplete"]:
                    store.run(tx, "candidate_set_fill", digest=entry.digest,
                              ids=list(entry.candidate_ids))
                else:
                    depths[row["pos"]] = int(row["depth"])
            return depths

        depths: list[int] = store.transaction("retrieval_log_batch", work)
        return depths

    def begin_retrieval(self, entry: CandidateSetWrite
                        ) -> tuple[RetrievalLogTransaction, int]:
        """See :meth:`AttributionOps.begin_retrieval`."""
        tx = self._store.begin("retrieval_log")
        try:
            return _OpenLog(tx), _write_set(tx.run, entry)
        except BaseException:
            tx.close()
            raise

    def retrieval(self, retrieval_id: str) -> StoredRetrieval | None:
        """See :meth:`AttributionOps.retrieval`."""
        rows = self._store.read("retrieval/get", id=retrieval_id)
        if not rows:
            return None
        row = rows[0]
        return StoredRetrieval(row["retrieval"], row["candidate_set"], row["chain"],
                               row["selected"])

    def log_action(self, kind: Literal["exposure", "use"], retrieval_id: str, action_id: str,
                   memory_ids: Sequence[str], at: datetime, helped: bool | None = None
                   ) -> None:
        """See :meth:`AttributionOps.log_action`."""
        params: dict[str, Any] = dict(retrieval_id=retrieval_id, action_id=action_id, at=at,
                                      memory_ids=list(memory_ids))
        if kind == "use":
            self._store.write("use_log", **params, helped=helped)
        else:
            self._store.write("exposure_log", **params)
