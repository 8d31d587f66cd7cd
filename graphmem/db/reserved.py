"""Scope keys that belong to an adapter: the one registry of them (docs/spec/records.md#scope).

An adapter that maps its own model onto graphmem scopes reads back the records in those
scopes as its own: the LangGraph store keeps a namespace as the scope keys ``langgraph``
and ``langgraph.0``, ``langgraph.1``... and reads each record there as an item it wrote. A
record written there by anyone else (the client, MCP, an import) would be read as an item
too, and is not one. So a key an adapter reserves is written only by that adapter: every
other writer is refused with a ValidationError, and nothing is written
(:meth:`graphmem.db.records.RecordWrites.check_new_record`). Reading is not restricted: a
query scope may name any key.

A new adapter that reserves keys adds one :class:`ReservedKeys` to :data:`RESERVED` and
passes its name when it writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from graphmem.errors import ValidationError

__all__ = ["LANGGRAPH", "RESERVED", "ReservedKeys", "check_reserved_scope", "owner_of"]

#: The LangGraph store's adapter name (:mod:`graphmem.integrations.langgraph`).
LANGGRAPH = "langgraph"


@dataclass(frozen=True)
class ReservedKeys:
    """The scope keys one adapter reserves.

    Attributes:
        adapter: the adapter's name (what it passes when it writes).
        keys: keys reserved exactly.
        prefixes: every key that starts with one of these is reserved.
    """

    adapter: str
    keys: frozenset[str]
    prefixes: tuple[str, ...] = ()

    def holds(self, key: str) -> bool:
        """Whether ``key`` is one of these reserved keys."""
        return key in self.keys or key.startswith(self.prefixes)


#: Every adapter's reserved scope keys, by adapter name.
RESERVED: Mapping[str, ReservedKeys] = MappingProxyType({
    LANGGRAPH: ReservedKeys(LANGGRAPH, frozenset({"langgraph"}), ("langgraph.",)),
})


def owner_of(key: str) -> str | None:
    """The adapter that reserves scope key ``key``, or None."""
    for reserved in RESERVED.values():
        if reserved.holds(key):
            return reserved.adapter
    return None


def check_reserved_scope(keys: Iterable[str], *, adapter: str | None = None,
                         record_id: str | None = None) -> None:
    """Refuse a new record whose scope ``keys`` include a key another adapter reserves.

    Args:
        keys: the record's scope keys.
        adapter: the writing adapter's name, or None for the client, MCP, imports.
        record_id: the record's id, named in the error.

    Raises:
        ValidationError: a key is reserved by an adapter other than ``adapter``.
    """
    for key in sorted(keys):
        owner = owner_of(key)
        if owner is not None and owner != adapter:
            raise ValidationError(
                f"scope key {key!r} is reserved for the {owner} adapter: only it writes "
                "records in such a scope (query with it freely)",
                record_ids=[record_id] if record_id else [])
