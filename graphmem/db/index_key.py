"""Keyed digests for indexes, so that no index holds text an erasure removes (docs/spec/deletion.md
and docs/spec/intentions.md).

A Neo4j range index keeps the bytes of a key it removed: a GB+tree leaf only marks it dead,
and a page changed after a checkpoint is copied and the old copy freed, not cleared
(measured: ``bench/erasure_residue.py``, ``docs/erasure.md``). So an index on a property
that an erasure empties keeps the erased text in its file for as long as the file lives, and
neither a checkpoint nor graphmem's purge of the store files reaches it.

graphmem therefore indexes no text that an erasure can remove. An intention's cue is found
through ``cue_digest``, the HMAC-SHA256 of ``[tenant, trigger_kind, trigger_value]`` under a
random 256-bit key kept in the graph (one ``(:GraphmemKey {name: "index", key})`` node per
database, made on first use: :func:`index_key`); the cue query seeks the digests of the
event's cues and then compares the clear cue, so matching stays exact (docs/spec/intentions.md).

What the digest protects: an index file (or a freed page of one) holds no term, in any
encoding. The key is in the same database as the digests, like a deletion request's
``redact_key`` beside its term digests: whoever can read the database can test a guessed cue
against a digest left in an index page, which is no more than what a live cue shows them.

A client keeps the key it read (:func:`cached_key`); a query that uses it checks that it is
still the database's key (``intentions/due``), so a store whose key node was deleted (a wiped
test database) is seen at once: :func:`index_key` makes a new key, and a new key re-digests
every stored cue (:func:`redigest_cues`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neo4j import ManagedTransaction

    from graphmem.db.base import StoreBase

__all__ = ["INDEX_KEY", "cached_key", "cue_digest", "index_key", "read_key", "redigest_cues"]

#: The name of the index key's node.
INDEX_KEY = "index"

PAGE = 5_000

_cache: weakref.WeakKeyDictionary[StoreBase, bytes] = weakref.WeakKeyDictionary()


def cue_digest(key: bytes, tenant: str, kind: str, value: str) -> str:
    """The indexed digest of an intention's cue (hex HMAC-SHA256 of the JSON of
    ``[tenant, kind, value]`` under ``key``), docs/spec/intentions.md.

    Args:
        key: the database's index key (:func:`index_key`).
        tenant, kind, value: the cue exactly as stored or as an event names it (no
            normalisation: a cue matches exactly).
    """
    payload = json.dumps([tenant, kind, value], ensure_ascii=False, separators=(",", ":"))
    return hmac.new(key, payload.encode("utf-8"), hashlib.sha256).hexdigest()


def cached_key(store: StoreBase) -> bytes | None:
    """The index key this process last read for ``store`` (None: not read yet)."""
    return _cache.get(store)


def read_key(store: StoreBase) -> bytes | None:
    """The database's index key as stored now, read only (None: it has none, so no stored
    intention has a cue digest yet); kept as :func:`cached_key`.

    Raises:
        DatabaseUnavailableError, StoreError: the read failed.
    """
    rows = store.read_values("keys/index_key_get", key_name=INDEX_KEY)
    if not rows:
        _cache.pop(store, None)
        return None
    key = bytes.fromhex(str(rows[0]["key"]))
    _cache[store] = key
    return key


def index_key(store: StoreBase, tx: ManagedTransaction | None = None) -> tuple[bytes, bool]:
    """The database's index key, made if it has none; and whether this call made it.

    Args:
        store: the store. tx: run inside this write transaction (else a transaction of its
            own).

    Returns:
        ``(key, created)``. A caller that made a new key outside ``tx`` has the stored cues
        re-digested already; inside ``tx``, call :func:`redigest_cues` after the commit.

    Raises:
        DatabaseUnavailableError, StoreError: the read or write failed.
    """
    params = {"key_name": INDEX_KEY, "candidate": secrets.token_hex(32)}
    rows = (store.run(tx, "keys/index_key", **params) if tx is not None
            else store.write("keys/index_key", **params))
    key, created = bytes.fromhex(str(rows[0]["key"])), bool(rows[0]["created"])
    _cache[store] = key
    if created and tx is None:
        redigest_cues(store, key)
    return key, created


def redigest_cues(store: StoreBase, key: bytes) -> int:
    """Give every stored cue its digest under ``key`` (intentions stored before cues were
    digested, or under a key that is gone); batched, idempotent.

    Returns:
        How many intentions changed.

    Raises:
        DatabaseUnavailableError, StoreError: a read or write failed.
    """
    changed, after = 0, ""
    while True:
        page = store.read_values("migration/cue_page", after=after, limit=PAGE)
        if not page:
            return changed
        rows = [{"id": row["id"], "cue_digest": digest} for row in page
                if (digest := cue_digest(key, row["tenant"], row["kind"], row["value"]))
                != row["cue_digest"]]
        if rows:
            changed += int(store.write("migration/cue_set", rows=rows)[0]["updated"])
        after = page[-1]["id"]
