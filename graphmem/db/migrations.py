"""One-time data migrations run by :meth:`StoreBase.ensure_schema` (idempotent, batched).

``dedup_key``: records written before duplicate detection normalised NFC and trailing sentence
punctuation hold keys of the older normalisation, so a new "Prefers dark mode" would not find an old
active "Prefers dark mode." as its duplicate. The migration recomputes every stored key with
:func:`graphmem.db.codec.dedup_key`'s one normalisation (keys of content the two versions normalise
alike do not change and are not written), then records the version on a ``GraphmemMigration`` node,
so later connections cost one lookup. An interrupted run starts again from the beginning next time.
Version 4 folds case as every comparison does (:func:`graphmem.fields.fold_case`: NFKC and the
Turkish dotted and dotless I), so "İSTANBUL" stored before finds "istanbul" as its twin.

``tombstone_times``: tombstones erased before they kept their times and
whether they were admitted stopped superseding, so their predecessors came back; the
migration completes them (``cypher/migration/tombstone_times.cypher``).

``cue_digest``: intentions stored while their cue was indexed in clear text get the keyed
digest the cue index now holds (:mod:`graphmem.db.index_key`), so they still fire; the
clear-text index is dropped by ``cypher/schema.cypher``. ``text_keys``: likewise, assertion
groups get digest ``gkey`` s and threaded records their ``thread_key``
(:func:`graphmem.db.codec.assertion_group`, :func:`~graphmem.db.codec.thread_key`), for the
indexes that replace those on the asserted key's and the thread's text.

``langgraph_items``: items the LangGraph store wrote before it kept its search order and
value facts on each record (``lg_order``, ``lg_facts``, ``lg_num_paths``, ``lg_nums``) and its
key's chain as properties (``lg_chain_seq``, ``lg_created_at``, then in the metadata) get them,
computed by :mod:`graphmem.db.langgraph_shape` as the store computes them on a put, with the
chain the metadata held: search finds them and an overwrite continues their key's history.
An item put with a TTL gets it back (``lg_ttl``, minutes: its expiry less its creation).

``stamp_epochs``: every ScopeVersion and WriteSlot starts a new epoch
(``cypher/migration/stamp_epochs.cypher``). Delta reads of a cached candidates answer find what
changed through the indexes on each record's stamp and the epoch it was stamped in
(``cypher/candidates_delta.cypher``); records changed before carry no epoch, and a new epoch
makes any answer cached before the migration be computed again in full, so a delta never spans
a change the indexes do not hold. One pass over those nodes, none over the records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from graphmem.db import catalogue as cypher
from graphmem.db.codec import DEDUP_VERSION, assertion_group, content_dedup_key, thread_key
from graphmem.db.index_key import index_key, redigest_cues
from graphmem.db.langgraph_shape import order_key, value_facts
from graphmem.db.reserved import LANGGRAPH
from graphmem.db.resilience import with_retry

if TYPE_CHECKING:  # base runs the migrations from ensure_schema
    from graphmem.db.base import StoreBase

__all__ = ["migrate"]

PAGE = 5_000


#: Version of the tombstone migration (``cypher/migration/tombstone_times.cypher``).
TOMBSTONE_VERSION = 1

#: Version of the cue digest migration (:func:`graphmem.db.index_key.redigest_cues`).
CUE_DIGEST_VERSION = 1

#: Version of the assertion group and thread key migration.
TEXT_KEYS_VERSION = 1

#: Version of the LangGraph item migration (``cypher/migration/langgraph_*.cypher``).
LANGGRAPH_ITEMS_VERSION = 1

#: Version of the stamp epoch migration (``cypher/migration/stamp_epochs.cypher``).
STAMP_EPOCHS_VERSION = 1


def migrate(store: StoreBase) -> int:
    """Run the migrations this database has not reached yet.

    A database that holds nothing besides the versions and its index key (a new one) has
    nothing to migrate: it records every version at once, if it still holds nothing when the
    write checks again, and runs none of them (it gets its index key, as the cue migration
    gives a store that has none: :func:`graphmem.db.index_key.index_key`).

    Returns:
        The number of records and intentions changed (dedup keys recomputed, tombstones
        completed, cue digests given).
    """
    state = store.read("migration/versions")[0]
    reached: dict[str, int] = {}
    for row in state["reached"]:
        reached[row["name"]] = max(reached.get(row["name"], 0), row["version"] or 0)
    due = [(name, version, run) for name, version, run in MIGRATIONS
           if reached.get(name, 0) < version]
    if not due:
        return 0
    if state["empty"] and _record(store, [(name, version) for name, version, _ in due],
                                  if_empty=True):
        index_key(store)
        return 0
    changed = 0
    for name, version, run in due:  # an interrupted run records nothing, and runs again
        changed += run(store)
        _record(store, [(name, version)])
    return changed


def _record(store: StoreBase, versions: list[tuple[str, int]], *,
            if_empty: bool = False) -> bool:
    """Record that each migration of ``versions`` (``[(name, version)]``) reached its
    version; with ``if_empty``, only in a store holding nothing else (checked by the write).
    Whether it recorded them."""
    rows = store.write("migration/versions_set", if_empty=if_empty,
                       versions=[{"name": name, "version": version} for name, version in versions],
                       at=store.clock())
    return bool(rows[0]["recorded"])


def _tombstones(store: StoreBase) -> int:
    """Old tombstones of successors get ``admitted`` and a creation time (see the Cypher)."""
    return int(store.write("migration/tombstone_times")[0]["updated"])


def _dedup_keys(store: StoreBase) -> int:
    """Stored dedup keys of an older normalisation are recomputed."""
    changed, after = 0, ""
    while True:
        page = store.read_values("migration/dedup_page", after=after, limit=PAGE)
        if not page:
            break
        updates = [{"id": row["id"], "dedup_key": key} for row in page
                   if (key := content_dedup_key(row["kind"], row["content"]))
                   != row["dedup_key"]]
        if updates:
            changed += store.write("migration/dedup_set", rows=updates)[0]["updated"]
        after = page[-1]["id"]
    return changed


def _cue_digests(store: StoreBase) -> int:
    """Intentions of a store that indexed cues in clear text get their cue digests."""
    key, _ = index_key(store)
    return redigest_cues(store, key)


def _text_keys(store: StoreBase) -> int:
    """Assertion groups keyed by clear text get digest gkeys; threaded records thread keys."""
    changed = 0
    while page := store.read_values("migration/assertions/page", limit=PAGE):
        rows = [{"old": row["gkey"], "gkey": assertion_group(row["tenant"], row["key"])}
                for row in page]
        changed += int(store.write("migration/assertions/set", rows=rows)[0]["updated"])
    if changed:  # the constraint's file still holds the old gkeys: a new one holds none
        for statement in cypher.statements("migration/assertions/constraint"):
            with_retry(partial(store._auto_commit, statement), "rebuilding a constraint")
    after = ""
    while page := store.read_values("migration/thread_page", after=after, limit=PAGE):
        rows = [{"id": row["id"], "thread_key": key} for row in page
                if (key := thread_key(row["tenant"], row["thread"])) != row["thread_key"]]
        if rows:
            changed += int(store.write("migration/thread_set", rows=rows)[0]["updated"])
        after = page[-1]["id"]
    return changed


def _langgraph_items(store: StoreBase) -> int:
    """LangGraph items written without their search order, facts and chain properties get
    them (records of a namespace the store did not write are left as they are)."""
    changed, after = 0, ""
    while page := store.read_values("migration/langgraph_page", after=after, limit=PAGE):
        rows = [row for record in page if (row := _langgraph_row(record)) is not None]
        if rows:
            changed += int(store.write("migration/langgraph_set", rows=rows)[0]["updated"])
        after = page[-1]["id"]
    return changed


def _stamp_epochs(store: StoreBase) -> int:
    """Every ScopeVersion and WriteSlot gets a new epoch (batched transactions of its own)."""
    with_retry(partial(store._auto_commit, cypher.query("migration/stamp_epochs")),
               "starting new stamp epochs")
    return 0


def _langgraph_row(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The properties an old LangGraph item gets (see ``migration/langgraph_set``), from its
    metadata (``{"namespace", "key", "value_json", "seq", "chain_seq", "created_at"}``), or
    None for a record whose metadata is not the store's."""
    try:
        meta = json.loads(record["metadata_json"] or "{}").get(LANGGRAPH)
        value = json.loads(meta["value_json"])
        chain_seq, created_at = int(meta["chain_seq"]), str(meta["created_at"])
        seq = int(meta.get("seq") or str(record["id"])[-16:])
    except (TypeError, ValueError, AttributeError, KeyError):
        return None
    if not isinstance(value, dict):
        return None
    ttl = None if record["ttl_seconds"] is None else float(record["ttl_seconds"]) / 60.0
    scope = str(record["scope_key"])
    return {"id": record["id"], "langgraph_key": order_key(scope),
            "order": order_key(scope, chain_seq, seq), "chain_seq": chain_seq,
            "created_at": created_at, "ttl": ttl, **value_facts(value)}


#: Each migration: its name on the ``GraphmemMigration`` node, its version, and its run
#: (returning how many records and intentions it changed), in the order they run.
MIGRATIONS: tuple[tuple[str, int, Callable[[StoreBase], int]], ...] = (
    ("tombstone_times", TOMBSTONE_VERSION, _tombstones),
    ("dedup_key", DEDUP_VERSION, _dedup_keys),
    ("cue_digest", CUE_DIGEST_VERSION, _cue_digests),
    ("text_keys", TEXT_KEYS_VERSION, _text_keys),
    ("langgraph_items", LANGGRAPH_ITEMS_VERSION, _langgraph_items),
    ("stamp_epochs", STAMP_EPOCHS_VERSION, _stamp_epochs),
)
