"""Neo4jStore: the one object that talks to Neo4j for records (docs/spec/records.md and
docs/spec/eligibility.md#eligible-and-active).

It is composed of one class per concern: :mod:`~graphmem.db.base` (driver, query plumbing,
schema, plain reads), :mod:`~graphmem.db.records` (writes and imports),
:mod:`~graphmem.db.transitions` (lifecycle), :mod:`~graphmem.db.eligibility`
(candidates, explain and the reused-answer cache), :mod:`~graphmem.db.decisions` (explain
of discarded and quarantined proposals) and :mod:`~graphmem.db.browse` (the newest eligible
records, counts within reach).

Graph model::

    (:Record)-[:IN_SCOPE]->(:Scope {key, tenant, pairs})
    (:Record)-[:SUPERSEDES]->(:Record)        successor -> predecessor
    (:Record)-[:DERIVED_FROM {ord}]->(:Record) child -> parent
    (:Record)-[:EVIDENCED_BY]->(:Record)
    (:Record)-[:ASSERTS]->(:Assertion {gkey})  one group per (tenant, asserts key); members with
                                               other values conflict (found among candidates)
    (:ScopeVersion {key, epoch, rev})          a scope's version (not dense)
    (:WriteSlot {key})                         write locks, SLOTS per scope (db.slots)
    (:Transition)-[:ON]->(:Record)             declared lifecycle transitions
    (:WriteDecision)-[:DECIDED]->(:Record)     write-policy decisions

A scope is stored as ``pairs``: JSON-encoded ``[key, value]`` strings, so that any key or
value (quotes, backticks, ``=``) is data and never query text. Eligibility rule 3 becomes
``all(p IN scope.pairs WHERE p IN $query_pairs)``.
"""

from __future__ import annotations

from graphmem.db.browse import Browsing
from graphmem.db.decisions import WriteDecisions
from graphmem.db.records import RecordWrites
from graphmem.db.transitions import Transitions

__all__ = ["Neo4jStore"]


class Neo4jStore(RecordWrites, Transitions, WriteDecisions, Browsing):
    """Records, scopes and lineage in one Neo4j database.

    Reads of candidates return versions (``fingerprint``, ``rev``) from Cypher; records are
    rebuilt only for versions this store object has not seen, and every query that changes
    a record bumps ``rev`` (checked by ``tests/unit/db/test_catalogue.py``), so the cache
    never serves a stale record. Eligibility is decided by Cypher; its answer is reused
    only while it provably cannot have changed (see :meth:`candidates`). A lost server
    raises DatabaseUnavailableError (:mod:`~graphmem.db.resilience`).

    Args:
        driver: an open ``neo4j`` driver (bolt://, neo4j://, neo4j+s:// ...).
        database: the database name every query targets.
        max_content_bytes: largest accepted content, in UTF-8 bytes (default 64 KiB).
        clock: returns the current aware UTC time; injectable for tests.
    """
