"""A launcher server the crash tests kill and restart on the same home and port."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings, open_driver

RETRY_S = 2.0  # the test clients' driver retry time: a dead server is noticed quickly
START_S = 900.0  # server start and recovery; generous: CI machines are shared
JOIN_S = 120.0  # how long a worker may take to give up after a kill before the test fails


class CrashableServer:
    """An EphemeralServer that can be killed and started again on the same home and port."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.server = EphemeralServer(home=home, heap="768m", pagecache_mb=128,
                                     timeout_s=START_S).start()
        self.port = self.server.port

    @property
    def settings(self) -> ConnectionSettings:
        """The running server's settings with a short retry time (see RETRY_S)."""
        return dataclasses.replace(self.server.settings, retry_time_s=RETRY_S,
                                   connection_timeout_s=2.0, acquisition_timeout_s=5.0)

    def kill(self) -> None:
        self.server.kill()

    def restart(self) -> None:
        self.server.close()
        self.server = EphemeralServer(home=self.home, port=self.port, heap="768m",
                                      pagecache_mb=128, timeout_s=START_S).start()

    def close(self) -> None:
        self.server.close()


def query(settings: ConnectionSettings, cypher: str, **params: Any) -> list[dict[str, Any]]:
    """Run read-only Cypher on the server directly (the test's own view of the store)."""
    with open_driver(settings) as driver:
        records, _, _ = driver.execute_query(cypher, parameters_=params,
                                             database_=settings.database)
        return [r.data() for r in records]


def wait_until(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.2)
