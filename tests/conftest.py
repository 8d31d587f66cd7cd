"""Test fixtures: a real Neo4j for every test that needs one.

Where the database comes from, first that applies:
1. ``NEO4J_URI`` (with ``NEO4J_USER``/``NEO4J_PASSWORD``/``NEO4J_DATABASE``): an existing
   server. The suite did not create it, so it refuses to run unless the database is empty
   at the start, and then only ever deletes what the suite itself wrote.
2. testcontainers, when a Docker engine answers: ``neo4j:5.26.30-community``.
3. The project's launcher (``graphmem.db.server.EphemeralServer``): Neo4j Community embedded,
   on a free port, in a temporary home deleted afterwards.

Under ``CI=true`` a test that needs Neo4j fails (never skips) when none can be had.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from graphmem.client import Memory, store_of
from graphmem.db import credentials, retries, server
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.errors import DatabaseUnavailableError

if TYPE_CHECKING:
    from tests.test_crash import CrashableServer

NEO4J_IMAGE = "neo4j:5.26.30-community"


@dataclass(frozen=True)
class Neo4jUnderTest:
    settings: ConnectionSettings
    origin: str  # "env", "testcontainers" or "launcher"


def unavailable(message: str) -> None:
    """Fail under ``CI=true``, else skip: what a test does when a real part it needs is missing."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Neo4j is required under CI=true: {message}", pytrace=False)
    pytest.skip(f"no Neo4j available: {message}")


def _docker_answers() -> bool:
    """True when a Docker engine answers ``GET /_ping`` (checked with a plain socket, which
    is closed whatever happens; the docker library leaks one when no engine runs)."""
    import socket

    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        return True  # a remote engine: let testcontainers try it
    path = host.removeprefix("unix://")
    if not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(3)
        try:
            sock.connect(path)
            sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            return b" 200 " in sock.recv(64)
        except OSError:
            return False


def _node_count(settings: ConnectionSettings) -> int:
    with open_driver(settings) as driver:
        records, _, _ = driver.execute_query(
            "MATCH (n) RETURN count(n) AS n", database_=settings.database
        )
        return int(records[0]["n"])


@pytest.fixture(scope="session")
def neo4j_db() -> Iterator[Neo4jUnderTest]:
    """A real Neo4j for the session (see the module docstring for where it comes from)."""
    env = ConnectionSettings.from_env()
    if env is not None:
        try:
            count = _node_count(env)
        except Exception as exc:
            unavailable(f"NEO4J_URI={env.uri} does not answer ({type(exc).__name__})")
            raise
        if count:
            pytest.fail(
                f"NEO4J_URI={env.uri} holds {count} nodes. The test suite only uses a database "
                "that is empty when it starts, and never wipes one it did not create: point "
                "NEO4J_URI at an empty database, or unset it to let the suite start its own.",
                pytrace=False,
            )
        yield Neo4jUnderTest(env, "env")
        return
    if _docker_answers():
        try:
            from testcontainers.neo4j import Neo4jContainer
        except ImportError:
            pass
        else:
            with Neo4jContainer(NEO4J_IMAGE, password="graphmem-test") as container:
                settings = ConnectionSettings(
                    uri=container.get_connection_url(), user="neo4j", password="graphmem-test"
                )
                yield Neo4jUnderTest(settings, "testcontainers")
                return
    from graphmem.db.server import EphemeralServer

    try:
        server = EphemeralServer(heap="1g").start()
    except DatabaseUnavailableError as exc:
        unavailable(str(exc))
        raise
    try:
        yield Neo4jUnderTest(server.settings, "launcher")
    finally:
        server.close()


def wipe(memory: Memory) -> None:
    """Delete everything in a database the suite owns (see neo4j_db for why that is safe)."""
    while store_of(memory).write("wipe_batch", limit=20_000)[0]["deleted"]:
        pass


@pytest.fixture()
def memory(neo4j_db: Neo4jUnderTest) -> Iterator[Memory]:
    """A connected client on an empty store; emptied again afterwards."""
    mem = Memory.connect(neo4j_db.settings, start_if_needed=False)
    wipe(mem)
    try:
        yield mem
    finally:
        wipe(mem)
        mem.close()


@pytest.fixture()
def cli(memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """An empty store the CLI connects to (through the NEO4J_* environment)."""
    s = neo4j_db.settings
    for key, value in {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
                       "NEO4J_DATABASE": s.database, "COLUMNS": "160"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GRAPHMEM_NORTHWIND", raising=False)
    return memory


def require_toolchain() -> None:
    """The launcher's Java 17+ JDK and Maven are on PATH (else :func:`unavailable`)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        unavailable(f"{' and '.join(missing)} not on PATH (need a Java 17+ JDK and Maven)")


@pytest.fixture(scope="session")
def shared_lib_dir() -> Path:
    """The jar directory every test shares (fetched once, outside per-test data dirs)."""
    require_toolchain()
    return server.ensure_jars()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty GRAPHMEM_DATA_DIR and no NEO4J_* / GRAPHMEM_PASSWORD_FILE; any server
    started in it is stopped after the test."""
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(tmp_path / "data"))
    for var in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                credentials.PASSWORD_FILE_ENV):
        monkeypatch.delenv(var, raising=False)
    yield tmp_path / "data"
    server.stop(timeout_s=30)


@pytest.fixture
def data_dir_with_jars(data_dir: Path, shared_lib_dir: Path) -> Path:
    """``data_dir`` whose default jar directory links to the shared one (no second fetch)."""
    link = data_dir / f"neo4j-{server.NEO4J_VERSION}" / "lib"
    link.parent.mkdir(parents=True)
    link.symlink_to(shared_lib_dir, target_is_directory=True)
    return data_dir


def race(work: Callable[[int], None], clients: Sequence[Memory]) -> int:
    """Run ``work(w)`` in one thread per client at once, close the clients, and return how
    many driver retries (deadlocks, transient errors) happened meanwhile."""
    before = retries.retry_count()
    threads = [threading.Thread(target=work, args=(w,)) for w in range(len(clients))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for c in clients:
            c.close()
    return retries.retry_count() - before


@pytest.fixture(scope="module")
def crash_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashableServer]:
    """A launcher server of the module's own that its tests may kill and restart
    (:class:`tests.test_crash.CrashableServer`; used by the crash tests)."""
    from tests.test_crash import CrashableServer  # (it imports this module)

    home = tmp_path_factory.mktemp("crash") / "neo4j"
    try:
        server = CrashableServer(home)
    except DatabaseUnavailableError as exc:
        unavailable(f"no Neo4j launcher available: {exc}")
        raise
    try:
        yield server
    finally:
        server.close()
        shutil.rmtree(home, ignore_errors=True)
