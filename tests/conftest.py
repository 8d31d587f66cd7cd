"""Test fixtures: a real Neo4j for every test that needs one.

Where the database comes from, first that applies:
1. ``NEO4J_URI`` (with ``NEO4J_USER``/``NEO4J_PASSWORD``/``NEO4J_DATABASE``): an existing
   server. The suite did not create it, so it refuses to run unless the database is empty
   at the start, and then only ever deletes what the suite itself wrote.
2. testcontainers, when a Docker engine answers: ``neo4j:5.26.30-community``.
3. The project's launcher (``graphmem.db.server.EphemeralServer``): Neo4j Community embedded,
   on a free port, in a temporary home deleted afterwards.

Under ``CI=true`` a test that needs Neo4j fails (never skips) when none can be had.

The suite is in two parts. ``tests/unit/`` needs no database: no test there may request a
fixture that reaches Neo4j (collection fails if one does), so ``pytest tests/unit`` runs in
about a minute with nothing started. Every test under ``tests/integration/`` is marked
``neo4j`` (``-m neo4j`` / ``-m "not neo4j"`` select by it). Helpers shared by test modules
live in ``tests/support/``; no test module imports another (tests/unit/test_suite_layout.py).

A run of folders is spread over pytest-xdist workers (``-n auto`` in pyproject.toml), each
starting its own server as above; with ``NEO4J_URI`` set the run stays in one process (one
database is never shared between processes): tests/support/parallel.py says how. ``-n 0``
runs in one process.

``--heavy`` (or ``GRAPHMEM_HEAVY_TESTS=1``) runs the crash, soak, fuzz and concurrency tests at
their full sizes instead of the smaller defaults (tests/support/sizes.py).

Every Neo4j the launcher starts for the suite (the session's, the crash server, the servers the
CLI, lease, MCP and erasure tests start, in this process or a child) runs with
:data:`TEST_JVM_OPTIONS` unless ``GRAPHMEM_JVM_OPTIONS`` is set already. When the suite
set it, each worker's session server also gets :data:`SESSION_JVM_OPTIONS`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from graphmem.client import Memory
from graphmem.db import credentials, launcher, server
from graphmem.db.settings import ConnectionSettings, open_driver
from graphmem.errors import DatabaseUnavailableError
from tests.support import parallel
from tests.support.database import (
    KeptDriver,
    Neo4jUnderTest,
    require_toolchain,
    unavailable,
    wipe,
)

if TYPE_CHECKING:
    from tests.support.crash import CrashableServer

# No per-example deadline for the property tests (most set deadline=None already): with
# parallel workers on a shared machine it measures the load, not graphmem.
settings.register_profile("graphmem-suite", deadline=None)
settings.load_profile("graphmem-suite")

NEO4J_IMAGE = "neo4j:5.26.30-community"
TESTS = Path(__file__).resolve().parent
INTEGRATION = TESTS / "integration"
UNIT = TESTS / "unit"
#: The fixtures that reach a database, or start a server, or fetch its jars.
SERVER_FIXTURES = frozenset({"neo4j_db", "memory", "cli", "crash_server", "shared_lib_dir",
                             "data_dir_with_jars", "kept_driver"})
#: JVM options of the suite's servers (``GRAPHMEM_JVM_OPTIONS``): the client compiler only,
#: and the serial garbage collector. A test server lives seconds to minutes; the optimizing
#: compiler's work at start-up and in the first queries costs more CPU than its faster code
#: saves in that time (a start about 45% less CPU, a short workload about 40% less:
#: bench/results/test-suite-20261203-c.md), and a small heap collected serially costs a
#: start and a short workload about 15% less CPU than G1's concurrent threads do
#: (bench/results/test-suite-20261204.md).
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: JVM options of each worker's session server when the suite set :data:`TEST_JVM_OPTIONS`
#: (after them, so they win): the optimizing compiler again. That server runs for the whole
#: session, most of the suite's queries and every plan; there the optimizing compiler saves
#: more than it costs (the whole suite 12-19% less wall time, 13-18% less CPU:
#: bench/results/test-suite-20261204.md).
SESSION_JVM_OPTIONS = ("-XX:TieredStopAtLevel=4",)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--heavy", action="store_true", default=False,
                     help="run the crash, soak, fuzz and concurrency tests at full size "
                          "(as GRAPHMEM_HEAVY_TESTS=1 does; see tests/support/sizes.py)")


def pytest_configure(config: pytest.Config) -> None:
    # before any test module is imported: their sizes are read at import (tests/support/sizes.py)
    if config.getoption("--heavy"):
        os.environ["GRAPHMEM_HEAVY_TESTS"] = "1"
    os.environ.setdefault(launcher.JVM_OPTIONS_ENV, TEST_JVM_OPTIONS)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: workers for a run of folders, none for named files
    (tests/support/parallel.py)."""
    return parallel.auto_workers(config.args, len(os.sched_getaffinity(0)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Hand out whole modules, the crash-server modules as one unit (tests/support/parallel.py)."""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleUnits(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return parallel.unit_of(nodeid)

    return ModuleUnits(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test under tests/integration/ ``neo4j``; refuse a test under tests/unit/ that
    requests a fixture reaching Neo4j (it belongs in tests/integration/). In a pytest-xdist
    worker, put the slow modules first (the same order in every worker: it depends only on
    the collected tests)."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: parallel.rank(_module_of(item)))
    misplaced = []
    for item in items:
        path = item.path
        if path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.neo4j)
        elif path.is_relative_to(UNIT):
            needs = SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ()))
            if needs or item.get_closest_marker("neo4j"):
                misplaced.append(f"{item.nodeid} ({', '.join(sorted(needs)) or 'neo4j mark'})")
    if misplaced:
        raise pytest.UsageError("tests under tests/unit/ need no database; move these to "
                                "tests/integration/: " + "; ".join(misplaced))


def _module_of(item: pytest.Item) -> str:
    path = item.path
    return path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else str(path)


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
        if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
            pytest.fail(f"NEO4J_URI={env.uri} names one database, which parallel workers would "
                        "share: run with -n 0 (or unset NEO4J_URI to let each worker start "
                        "its own).", pytrace=False)
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
        # generous: parallel workers start their servers at the same time on a shared machine
        suites_own = os.environ.get(launcher.JVM_OPTIONS_ENV) == TEST_JVM_OPTIONS
        server = EphemeralServer(heap="1g", timeout_s=900,
                                 jvm_options=SESSION_JVM_OPTIONS if suites_own else ()).start()
    except DatabaseUnavailableError as exc:
        unavailable(str(exc))
        raise
    try:
        yield Neo4jUnderTest(server.settings, "launcher")
    finally:
        server.close()


@pytest.fixture(scope="session")
def kept_driver(neo4j_db: Neo4jUnderTest) -> Iterator[KeptDriver]:
    """The session's :class:`KeptDriver` (held by ``memory``)."""
    kept = KeptDriver(neo4j_db.settings)
    try:
        yield kept
    finally:
        kept.release()


@pytest.fixture()
def memory(neo4j_db: Neo4jUnderTest, kept_driver: KeptDriver) -> Iterator[Memory]:
    """A connected client on an empty store; emptied again afterwards."""
    kept_driver.hold()
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


@pytest.fixture(scope="session")
def crash_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrashableServer]:
    """A launcher server of the crash tests' own that they may kill and restart
    (:class:`tests.support.crash.CrashableServer`), started once for the session: each
    test restarts it as it needs and works in a tenant of its own."""
    from tests.support.crash import CrashableServer

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


@pytest.fixture()
def chromium() -> str:
    """The path of Debian's headless Chromium (the browser tests); fails under ``CI=true``,
    else skips, when it is not installed."""
    from tests.support.headless import ci, find_chromium

    path = find_chromium()
    if path is None:
        message = "chromium is not installed (apt-get install chromium)"
        if ci():
            pytest.fail(message)
        pytest.skip(message)
    return path
