"""Connection settings: where the Neo4j server is and how to reach it.

Resolution order (issue 2, SPEC section 10):
1. ``NEO4J_URI`` (+ ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``) when set;
   any URI scheme the driver accepts, including routing ``neo4j://`` and ``neo4j+s://``.
2. Otherwise the server that ``graphmem db start`` runs, read from its state file in
   the user data directory, with the password from its password file
   (:mod:`graphmem.db.credentials`, issue 17 item 4).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from neo4j import Driver, GraphDatabase, NotificationDisabledClassification

__all__ = ["ConnectionSettings", "data_dir", "open_driver"]

DEFAULT_DATABASE = "neo4j"


def data_dir() -> Path:
    """The user data directory graphmem keeps its local server under.

    ``GRAPHMEM_DATA_DIR`` overrides the platform default (``~/.local/share/graphmem``).
    """
    override = os.environ.get("GRAPHMEM_DATA_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("graphmem", appauthor=False))


@dataclass(frozen=True)
class ConnectionSettings:
    """How to reach one Neo4j database.

    Attributes:
        uri: a Bolt or routing URI (``bolt://``, ``neo4j://``, ``neo4j+s://`` ...).
        user: user name (ignored by a server without auth).
        password: password (never logged).
        database: the database name every query is sent to.
    """

    uri: str
    user: str = "neo4j"
    password: str = "graphmem-local"
    database: str = DEFAULT_DATABASE

    @classmethod
    def from_env(cls) -> ConnectionSettings | None:
        """Settings from ``NEO4J_*`` environment variables, or None when ``NEO4J_URI`` is unset."""
        uri = os.environ.get("NEO4J_URI")
        if not uri:
            return None
        return cls(
            uri=uri,
            user=os.environ.get("NEO4J_USER", "neo4j"),
            password=os.environ.get("NEO4J_PASSWORD", "graphmem-local"),
            database=os.environ.get("NEO4J_DATABASE", DEFAULT_DATABASE),
        )

    def __repr__(self) -> str:
        return (
            f"ConnectionSettings(uri={self.uri!r}, user={self.user!r}, "
            f"password='***', database={self.database!r})"
        )


def open_driver(settings: ConnectionSettings) -> Driver:
    """A driver for ``settings``.

    "Unknown property key" notifications are silenced: graphmem's queries name optional
    properties (``expires_at``, ``valid_from``) that a young store may not hold yet.
    """
    return GraphDatabase.driver(
        settings.uri,
        auth=(settings.user, settings.password),
        notifications_disabled_classifications=[NotificationDisabledClassification.UNRECOGNIZED],
    )
