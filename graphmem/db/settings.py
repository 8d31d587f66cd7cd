"""Connection settings: where the Neo4j server is and how to reach it.

Resolution order (docs/spec/scale.md):
1. ``NEO4J_URI`` (+ ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``) when set;
   any URI scheme the driver accepts, including routing ``neo4j://`` and ``neo4j+s://``.
2. Otherwise the server that ``graphmem db start`` runs, read from its state file in the user data
   directory, with the password from its password file (:mod:`graphmem.db.credentials`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from graphmem.db import retries
from graphmem.errors import ValidationError

if TYPE_CHECKING:
    from neo4j import Driver

__all__ = ["ConnectionSettings", "data_dir", "open_driver", "server_home"]

DEFAULT_DATABASE = "neo4j"


def data_dir() -> Path:
    """The user data directory graphmem keeps its local server under.

    ``GRAPHMEM_DATA_DIR`` overrides the platform default (``~/.local/share/graphmem``).
    """
    override = os.environ.get("GRAPHMEM_DATA_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_data_dir("graphmem", appauthor=False))


def server_home() -> Path:
    """The Neo4j home of ``graphmem db start`` when none is given (and of ``graphmem import
    --initial``): ``data_dir()/server/home``."""
    return data_dir() / "server" / "home"


SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
"""The URI schemes of the Bolt driver (``ConnectionSettings.uri``)."""

DEFAULT_RETRY_TIME_S = 15.0
"""How long a write is retried by default, in seconds (``ConnectionSettings.retry_time_s``)."""


@dataclass(frozen=True)
class ConnectionSettings:
    """How to reach one Neo4j database.

    Attributes:
        uri: a Bolt or routing URI (``bolt://``, ``neo4j://``, ``neo4j+s://`` ...).
        user: user name (ignored by a server without auth).
        password: password (never logged).
        database: the database name every query is sent to.
        connection_timeout_s: how long opening one connection may take, in seconds.
        acquisition_timeout_s: how long a call may wait for a pooled connection, in seconds
            (includes opening one).
        retry_time_s: how long the driver keeps retrying a transaction that failed because
            the server went away (or another retryable error), in seconds. A server that
            restarts within it is never noticed by the caller; after it, the call raises
            :class:`~graphmem.errors.DatabaseUnavailableError`. So a call against a
            dead server returns within about ``retry_time_s + acquisition_timeout_s``.
        liveness_check_s: a pooled connection idle for longer than this many seconds is
            checked (one round trip) before it is used, so a connection to a server that
            restarted meanwhile is replaced instead of failing the call; None (the driver's
            default) never checks (a short ``retry_time_s`` then leaves no time to retry).
    """

    uri: str
    user: str = "neo4j"
    password: str = "graphmem-local"
    database: str = DEFAULT_DATABASE
    connection_timeout_s: float = 5.0
    acquisition_timeout_s: float = 10.0
    retry_time_s: float = DEFAULT_RETRY_TIME_S
    liveness_check_s: float | None = None

    def __post_init__(self) -> None:
        """Refuse what no driver can use, here rather than at the first call (where it was a
        raw AttributeError, ModuleNotFoundError or ValueError).

        Raises:
            ValidationError: ``uri`` is not a string of a Bolt scheme (:data:`SCHEMES`);
                ``user``, ``password`` or ``database`` not a string (``database`` empty); a
                connection or acquisition timeout not a finite number above 0; a retry time
                or liveness check below 0 or NaN.
        """
        if not isinstance(self.uri, str) or self.uri.partition("://")[0].lower() not in SCHEMES:
            raise ValidationError(f"uri must be a Bolt URI ({', '.join(SCHEMES)}://host:port), "
                                  f"got {self.uri!r}"[:300])
        for name in ("user", "password", "database"):
            if not isinstance(getattr(self, name), str) or (name == "database"
                                                            and not self.database):
                raise ValidationError(f"{name} must be a{' non-empty' * (name == 'database')} "
                                      f"string, got {type(getattr(self, name)).__name__}")
        for name in ("connection_timeout_s", "acquisition_timeout_s", "retry_time_s",
                     "liveness_check_s"):
            value = getattr(self, name)
            if value is None and name == "liveness_check_s":
                continue
            timeout = name in ("connection_timeout_s", "acquisition_timeout_s")
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or math.isnan(value) or value < 0 or (timeout and not 0 < value < math.inf)):
                raise ValidationError(f"{name} must be a number of seconds "
                                      f"{'above 0 and finite' if timeout else '>= 0'}, got "
                                      f"{value!r}"[:200])

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
    Timeouts come from ``settings`` (connection, pool acquisition, transaction retry, liveness
    check of idle connections; the driver's defaults are 30 s, 60 s, 30 s and none).
    The driver is imported here, not with the settings: a process that only reads them
    (the MCP server before its first call) starts without it.
    """
    from neo4j import GraphDatabase

    retries.install()
    return GraphDatabase.driver(settings.uri, **driver_options(settings))


def driver_options(settings: ConnectionSettings) -> dict[str, Any]:
    """The keyword arguments :func:`open_driver` gives the driver (credentials, timeouts,
    silenced notifications), for the async driver opened with the same settings
    (:mod:`graphmem.db.async_driver`)."""
    from neo4j import NotificationDisabledClassification

    return {
        "auth": (settings.user, settings.password),
        "connection_timeout": settings.connection_timeout_s,
        "connection_acquisition_timeout": settings.acquisition_timeout_s,
        "max_transaction_retry_time": settings.retry_time_s,
        "liveness_check_timeout": settings.liveness_check_s,
        "notifications_disabled_classifications": [
            NotificationDisabledClassification.UNRECOGNIZED],
    }
