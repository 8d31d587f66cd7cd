"""How a stored record becomes a LangGraph ``Item``, and how a namespace pattern
matches: the pure helpers of :class:`~.store.GraphmemStore`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item

from . import namespaces

__all__ = ["item_meta", "path_matches", "to_item"]


def item_meta(props: Mapping[str, Any]) -> dict[str, Any] | None:
    """The LangGraph part of a stored record's metadata; None for a record this adapter
    did not write (see :func:`.namespaces.item_meta`)."""
    return namespaces.item_meta(props)


def to_item(props: Mapping[str, Any], cls: type[Item], **extra: Any) -> Any:
    """An Item (or SearchItem) from a stored record's properties."""
    meta = item_meta(props)
    assert meta is not None  # the callers keep only the adapter's own records
    updated = props["created_at"].to_native().astimezone(UTC)
    return cls(namespace=tuple(meta["namespace"]), key=meta["key"],
               value=json.loads(meta["value_json"]),
               created_at=datetime.fromisoformat(meta["created_at"]),
               updated_at=updated, **extra)


def path_matches(match_type: str, path: tuple[str, ...], namespace: tuple[str, ...]) -> bool:
    """A prefix or suffix pattern (``*`` matches any one label) against a namespace."""
    if len(namespace) < len(path):
        return False
    labels = namespace[:len(path)] if match_type == "prefix" else namespace[-len(path):]
    if not path:
        return True
    return all(p == "*" or p == label for p, label in zip(path, labels, strict=True))
