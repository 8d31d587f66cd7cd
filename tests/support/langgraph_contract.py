"""What the LangGraph conformance suites share (tests/integration/langgraph/test_conformance*.py):
the deliberate differences of ``GraphmemStore`` from LangGraph's stores, in one place (the same
list is docs/integrations/langgraph.md, "Deliberate differences"), and small helpers."""

from __future__ import annotations

from langgraph.store.base import BaseStore, Item

from graphmem.integrations.langgraph import GraphmemStore

__all__ = ["DIFFERENCES", "differs", "keys"]

#: What GraphmemStore does differently from LangGraph's stores, on purpose.
DIFFERENCES: dict[str, str] = {
    "history_on_overwrite": "a put of an existing key supersedes the old version, which stays "
                            "stored (explain says SUPERSEDED); a delete leaves a tombstone",
    "created_at_kept": "created_at is when the key was first put since its last delete "
                       "(as PostgresStore); InMemoryStore resets it on every put",
    "expired_never_returned": "an expired item is never returned, swept or not",
    "omit_expired_false_refused": "TTLConfig(omit_expired=False) is refused (ValidationError)",
    "listed_when_live": "list_namespaces lists namespaces holding a live item (as "
                        "PostgresStore); InMemoryStore also lists emptied ones",
    "tenants_sorted": "a search over several tenants (an empty prefix) takes them in sorted "
                      "order, each tenant's namespaces in the order they were first written to",
    "query_ranked_without_index": "search(query=) without an index ranks by graphmem's "
                                  "ranker (BM25) with a score; InMemoryStore ignores the query",
    "vectors_per_version": "an overwrite's embeddings are its own: a put with index=False or "
                           "other fields leaves the key without the old vectors; InMemoryStore "
                           "and PostgresStore keep the old version's vectors of a key",
    "unscored_paged": "items without a vector follow the scored ones and are paged like them; "
                      "InMemoryStore returns its first unscored items again on every page "
                      "past the scored ones, PostgresStore none of them",
    "async_turn_reads_first": "async calls made in the same turn of the event loop (gathered) "
                              "are answered as one batch: their reads see the store before "
                              "their puts (as LangGraph's AsyncPostgresStore); InMemoryStore "
                              "runs each call to its end before the next",
}


def differs(store: BaseStore, difference: str) -> bool:
    """Whether ``store`` departs from the reference by ``difference`` (:data:`DIFFERENCES`)."""
    assert difference in DIFFERENCES
    return isinstance(store, GraphmemStore)


def keys(items: object) -> list[str]:
    """The keys of a list of items (a search's result)."""
    assert isinstance(items, list) and all(isinstance(i, Item) for i in items)
    return [i.key for i in items]
