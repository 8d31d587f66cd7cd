"""A real Neo4j without Docker: embedded Neo4j Community behind Bolt, run by ``Launcher.java``.

Two ways to run it:

* :func:`start` / :func:`status` / :func:`stop` manage the long-lived local server behind
  ``graphmem db start``. It runs detached (own session, survives the Python process), keeps its
  store under ``data_dir()/server/home`` and is recorded in ``data_dir()/server/state.json``.
* :class:`EphemeralServer` is a throwaway server for tests and demos: a fresh temporary store, a
  free port, and *attached* mode, where the Java process exits as soon as its stdin reaches EOF.
  The owning Python process holds the only write end of that pipe, so the server goes away with
  it even if Python crashes or is killed.

Both need a Java 17+ JDK (``Launcher.java`` runs in source-file mode, which compiles it in memory)
and the Neo4j jars, which :func:`ensure_jars` fetches once with Maven into the data directory.
POSIX only (signals, sessions, ``fcntl``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from graphmem.db.settings import ConnectionSettings, data_dir
from graphmem.errors import DatabaseUnavailableError

__all__ = [
    "NEO4J_VERSION",
    "EphemeralServer",
    "ServerInfo",
    "ensure_jars",
    "launcher_dir",
    "resolve_settings",
    "start",
    "status",
    "stop",
]

NEO4J_VERSION = "5.26.30"
"""Neo4j release the launcher runs; must equal ``neo4j.version`` in ``docker/pom.xml``."""

DEFAULT_PORT = 7687
HOST = "127.0.0.1"
_READY_RE = re.compile(r"^NEO4J_READY (bolt://\S+)\r?\n", re.MULTILINE)  # whole line only

# Flags the 5.26 server passes through ``server.jvm.additional`` (embedded Neo4j does not read
# neo4j.conf), plus java.lang as Neo4j's own harness tests open it. Without the add-opens the
# page cache fails with "LinkageError: Cannot to link java.nio.DirectByteBuffer".
JVM_FLAGS: tuple[str, ...] = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
)

_INSTALL_HINT = (
    "graphmem runs Neo4j locally with a Java 17 or 21 JDK and Maven "
    "(e.g. `apt install openjdk-17-jdk-headless maven`, or set JAVA_HOME); "
    "alternatively start Neo4j with `docker compose -f docker/compose.yaml up --wait` "
    "or point NEO4J_URI at an existing server."
)
_MVN_TIMEOUT_S = 1800.0
_LOG_TAIL_LINES = 25


@dataclass(frozen=True)
class ServerInfo:
    """A running local Neo4j server.

    Attributes:
        uri: its Bolt URI, ``bolt://127.0.0.1:PORT``.
        pid: process id of the Java launcher.
        home: the Neo4j home directory (store in ``home/data``, log in ``home/logs/debug.log``).
        port: the Bolt port.
    """

    uri: str
    pid: int
    home: Path
    port: int

    @property
    def settings(self) -> ConnectionSettings:
        """Connection settings for this server (auth is off, so any credentials work)."""
        return ConnectionSettings(uri=self.uri)


# --------------------------------------------------------------------------- launcher and jars


def launcher_dir() -> Path:
    """The directory holding the launcher sources, ``pom.xml`` and ``Launcher.java``.

    An installed wheel ships them as ``graphmem/_launcher/``; a source checkout has them in
    ``<repo>/docker/`` (repo = the parent of the ``graphmem`` package directory).

    Returns:
        that directory.

    Raises:
        DatabaseUnavailableError: neither location holds both files.
    """
    package = Path(__file__).resolve().parents[1]  # graphmem/
    candidates = (package / "_launcher", package.parent / "docker")
    for candidate in candidates:
        if (candidate / "pom.xml").is_file() and (candidate / "Launcher.java").is_file():
            return candidate
    raise DatabaseUnavailableError(
        "Neo4j launcher sources (pom.xml, Launcher.java) not found in "
        + " or ".join(str(c) for c in candidates)
        + "; reinstall graphmem."
    )


def _default_lib_dir() -> Path:
    return data_dir() / f"neo4j-{NEO4J_VERSION}" / "lib"


def _marker_jar(lib_dir: Path) -> Path:
    return lib_dir / f"neo4j-{NEO4J_VERSION}.jar"


def ensure_jars(lib_dir: Path | None = None) -> Path:
    """Make sure the Neo4j jars are in ``lib_dir``, fetching them with Maven if needed.

    Maven runs on a copy of ``pom.xml`` in a temporary directory (so nothing is written next to
    an installed package) and copies the jars into a staging directory beside ``lib_dir``; they
    are then moved in with the ``neo4j-<version>.jar`` marker last, so an interrupted fetch is
    simply redone.

    Args:
        lib_dir: where the jars go; default ``data_dir()/neo4j-<NEO4J_VERSION>/lib``.

    Returns:
        ``lib_dir``, holding ``neo4j-<NEO4J_VERSION>.jar`` and its dependencies.

    Raises:
        DatabaseUnavailableError: Maven is not installed, or the fetch failed (message carries
            the tail of Maven's output).
    """
    lib_dir = (lib_dir if lib_dir is not None else _default_lib_dir()).absolute()
    if _marker_jar(lib_dir).is_file():
        return lib_dir
    mvn = shutil.which("mvn")
    if mvn is None:
        raise DatabaseUnavailableError(f"Maven (`mvn`) is not on PATH. {_INSTALL_HINT}")
    pom = launcher_dir() / "pom.xml"
    lib_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".lib-", dir=lib_dir.parent))
    try:
        with tempfile.TemporaryDirectory(prefix="graphmem-mvn-") as build:
            shutil.copy2(pom, Path(build) / "pom.xml")
            cmd = [
                mvn,
                "-q",
                "-B",
                "-f",
                str(Path(build) / "pom.xml"),
                "package",
                f"-Dlib.dir={staging}",
            ]
            try:
                done = subprocess.run(
                    cmd,
                    cwd=build,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=_MVN_TIMEOUT_S,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise DatabaseUnavailableError(
                    f"Fetching Neo4j {NEO4J_VERSION} jars with Maven timed out after "
                    f"{exc.timeout:.0f} s."
                ) from exc
        fetched = _marker_jar(staging)
        if done.returncode != 0 or not fetched.is_file():
            output = _tail_text(done.stdout + done.stderr)
            raise DatabaseUnavailableError(
                f"Fetching Neo4j {NEO4J_VERSION} jars with Maven failed "
                f"(exit {done.returncode}). {_INSTALL_HINT}\n{output}"
            )
        lib_dir.mkdir(parents=True, exist_ok=True)
        for jar in sorted(staging.iterdir()):
            if jar != fetched:
                os.replace(jar, lib_dir / jar.name)
        os.replace(fetched, _marker_jar(lib_dir))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return lib_dir


# --------------------------------------------------------------------------- process helpers


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise DatabaseUnavailableError(f"Java (`java`) is not on PATH. {_INSTALL_HINT}")
    return java


def _heap_flags(heap: str) -> list[str]:
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", heap)
    if match is None:
        raise ValueError(f"heap must look like '1g' or '768m', got {heap!r}")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[match.group(2).lower()]
    initial = heap if int(match.group(1)) * scale < 512 << 20 else "512m"
    return [f"-Xms{initial}", f"-Xmx{heap}"]


def _launcher_command(
    lib_dir: Path, home: Path, port: int, *, pagecache_mb: int, heap: str, detached: bool
) -> list[str]:
    cmd = [
        _java(),
        *_heap_flags(heap),
        *JVM_FLAGS,
        "-cp",
        str(lib_dir / "*"),  # expanded by java itself
        str(launcher_dir() / "Launcher.java"),
        "--home",
        str(home),
        "--host",
        HOST,
        "--port",
        str(port),
        "--pagecache-mb",
        str(int(pagecache_mb)),
    ]
    if detached:
        cmd.append("--detached")
    return cmd


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
    return port


def _tail_text(text: str, lines: int = _LOG_TAIL_LINES) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _tail_file(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 64 * 1024))
            data = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return _tail_text(data, lines)


def _logs_for(home: Path) -> str:
    parts = []
    for name, path in (
        ("launcher output", home / "launcher.log"),
        ("debug.log", home / "logs" / "debug.log"),
    ):
        tail = _tail_file(path)
        if tail:
            parts.append(f"--- last lines of {name} ({path}):\n{tail}")
    return "\n".join(parts) if parts else f"(no logs under {home})"


_EXIT_PORT_TAKEN = 3  # Launcher.java's exit code when the Bolt port cannot be bound
_PORT_ATTEMPTS = 3  # EphemeralServer: tries with a fresh port when another process won the race


class _LauncherExited(DatabaseUnavailableError):
    """The launcher exited before it was ready; ``code`` is its exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(f"Neo4j launcher exited with code {code} before ready")
        self.code = code


def _wait_ready(log: Path, exit_code: Callable[[], int | None], timeout_s: float) -> str:
    """Poll ``log`` for the launcher's ready line; return its URI.

    Raises:
        _LauncherExited: the process exited first (``exit_code()`` not None).
        DatabaseUnavailableError: ``timeout_s`` passed. The caller adds the log tails.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            text = log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        ready = _READY_RE.search(text)
        if ready is not None:
            return ready.group(1)
        code = exit_code()
        if code is not None:
            raise _LauncherExited(code)
        if time.monotonic() > deadline:
            raise DatabaseUnavailableError(f"Neo4j did not become ready within {timeout_s:.0f} s")
        time.sleep(0.1)


def _child_exit_code(pid: int) -> int | None:
    """Exit code of our child ``pid`` if it has exited (reaping it), else None."""
    try:
        done, status_ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return None if _pid_alive(pid) else -1
    if done == 0:
        return None
    return os.waitstatus_to_exitcode(status_)


def _pid_alive(pid: int) -> bool:
    """True when ``pid`` runs the launcher (reaps it first if it is our exited child)."""
    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] != 0:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process: the pid was reused
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.parent.is_dir():
        try:
            return b"Launcher.java" in cmdline.read_bytes()
        except OSError:
            return False
    return True


def _bolt_answers(uri: str, timeout_s: float = 5.0) -> bool:
    from neo4j import GraphDatabase  # deferred: the driver is slow to import

    try:
        with GraphDatabase.driver(
            uri, auth=("neo4j", "graphmem-local"), connection_timeout=timeout_s
        ) as driver:
            driver.verify_connectivity()
    except Exception:
        return False
    return True


def _terminate(pid: int, timeout_s: float) -> None:
    """SIGTERM ``pid``, wait up to ``timeout_s``, then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            kill_deadline = time.monotonic() + 10
            while _pid_alive(pid) and time.monotonic() < kill_deadline:
                time.sleep(0.05)
            return
        time.sleep(0.1)


# --------------------------------------------------------------------------- the local server


def _server_dir() -> Path:
    return data_dir() / "server"


def _state_file() -> Path:
    return _server_dir() / "state.json"


@contextlib.contextmanager
def _state_lock() -> Iterator[None]:
    _server_dir().mkdir(parents=True, exist_ok=True)
    with (_server_dir() / "lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _read_state() -> ServerInfo | None:
    try:
        raw = json.loads(_state_file().read_text(encoding="utf-8"))
        return ServerInfo(
            uri=str(raw["uri"]),
            pid=int(raw["pid"]),
            home=Path(raw["home"]),
            port=int(raw["port"]),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        _state_file().unlink(missing_ok=True)  # unreadable: treat as stale
        return None


def _write_state(info: ServerInfo) -> None:
    state = {
        "uri": info.uri,
        "pid": info.pid,
        "home": str(info.home),
        "port": info.port,
        "neo4j_version": NEO4J_VERSION,
    }
    tmp = _state_file().with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, _state_file())


def status() -> ServerInfo | None:
    """The running ``graphmem db start`` server, or None.

    A state file whose process is gone is removed. A live process whose Bolt port does not
    answer is reported as None but left alone (:func:`stop` still stops it).

    Returns:
        the server's :class:`ServerInfo` when its process is alive and Bolt answers, else None.
    """
    info = _read_state()
    if info is None:
        return None
    if not _pid_alive(info.pid):
        _state_file().unlink(missing_ok=True)
        return None
    return info if _bolt_answers(info.uri) else None


def start(
    home: Path | None = None,
    port: int | None = None,
    *,
    pagecache_mb: int = 256,
    heap: str = "1g",
    timeout_s: float = 180,
) -> ServerInfo:
    """Start the local Neo4j server detached, or return the one already running.

    Idempotent: if ``state.json`` names a live launcher whose Bolt port answers, that server is
    returned unchanged (whatever ``home`` and ``port`` say). Otherwise the jars are fetched if
    needed (:func:`ensure_jars`), the launcher is spawned in its own session with stdin from
    /dev/null and stdout/stderr to ``home/launcher.log``, and this waits for its ready line.

    Args:
        home: Neo4j home (store and logs); default ``data_dir()/server/home``.
        port: Bolt port on 127.0.0.1; default 7687 if free, else any free port.
        pagecache_mb: page cache size in MiB.
        heap: JVM max heap (``-Xmx``), e.g. ``"1g"`` or ``"768m"``.
        timeout_s: how long to wait for readiness.

    Returns:
        the running server.

    Raises:
        DatabaseUnavailableError: Java or Maven missing, the port is taken, a recorded server is
            alive but unresponsive, or the launcher died or timed out (message carries the tails
            of ``launcher.log`` and ``logs/debug.log``).
        ValueError: ``heap`` is malformed.
    """
    with _state_lock():
        running = status()
        if running is not None:
            return running
        stale = _read_state()
        if stale is not None:  # status() returned None but the process is alive
            raise DatabaseUnavailableError(
                f"A graphmem Neo4j server (pid {stale.pid}) is running but {stale.uri} does not "
                "answer; run `graphmem db stop` first."
            )
        lib_dir = ensure_jars()
        home = (home if home is not None else _server_dir() / "home").absolute()
        home.mkdir(parents=True, exist_ok=True)
        if port is None:
            port = DEFAULT_PORT if _port_free(DEFAULT_PORT) else _free_port()
        elif not _port_free(port):
            raise DatabaseUnavailableError(f"Port {port} on {HOST} is already in use.")
        cmd = _launcher_command(
            lib_dir, home, port, pagecache_mb=pagecache_mb, heap=heap, detached=True
        )
        log = home / "launcher.log"
        # posix_spawn rather than Popen: a Popen object for a child that outlives it warns
        # (ResourceWarning) when collected. setsid = Popen's start_new_session.
        pid = os.posix_spawn(
            cmd[0],
            cmd,
            dict(os.environ),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, str(log), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2),
            ],
            setsid=True,
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM),
        )
        try:
            uri = _wait_ready(log, lambda: _child_exit_code(pid), timeout_s)
        except BaseException as exc:
            _terminate(pid, 30)
            if isinstance(exc, DatabaseUnavailableError):
                raise DatabaseUnavailableError(f"{exc}.\n{_logs_for(home)}") from None
            raise
        info = ServerInfo(uri=uri, pid=pid, home=home, port=port)
        _write_state(info)
        return info


def stop(timeout_s: float = 60) -> bool:
    """Stop the ``graphmem db start`` server.

    Sends SIGTERM (the launcher's shutdown hook checkpoints and closes the store), waits up to
    ``timeout_s``, then SIGKILLs. The state file is removed either way.

    Args:
        timeout_s: how long to wait for a clean shutdown before SIGKILL.

    Returns:
        True if a live server was stopped, False if none was running.
    """
    with _state_lock():
        info = _read_state()
        if info is None:
            return False
        alive = _pid_alive(info.pid)
        if alive:
            _terminate(info.pid, timeout_s)
        _state_file().unlink(missing_ok=True)
        return alive


def resolve_settings(start_if_needed: bool = True) -> ConnectionSettings:
    """Where graphmem's Neo4j is: ``NEO4J_URI`` env, else the local server, else start it.

    Args:
        start_if_needed: start the local server (:func:`start`) when nothing else is found.

    Returns:
        connection settings for the database to use.

    Raises:
        DatabaseUnavailableError: nothing is configured or running and ``start_if_needed`` is
            False, or starting failed.
    """
    from_env = ConnectionSettings.from_env()
    if from_env is not None:
        return from_env
    running = status()
    if running is not None:
        return running.settings
    if start_if_needed:
        return start().settings
    raise DatabaseUnavailableError(
        "No Neo4j configured: set NEO4J_URI (and NEO4J_USER/NEO4J_PASSWORD), "
        "or run `graphmem db start`."
    )


# --------------------------------------------------------------------------- throwaway servers


class EphemeralServer:
    """A throwaway Neo4j on a free port with a fresh temporary store, as a context manager.

    Runs the launcher attached: its stdin is a pipe from this process, and the launcher exits
    when that pipe reaches EOF, i.e. on :meth:`close` or when this process dies for any reason.
    The temporary home is deleted on exit.

    Usage::

        with EphemeralServer() as server:
            with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver: ...

    Args:
        pagecache_mb: page cache size in MiB.
        heap: JVM max heap (``-Xmx``), e.g. ``"1g"``.
        timeout_s: how long to wait for readiness.
        lib_dir: jar directory passed to :func:`ensure_jars` (default: the shared one).

    Raises (from ``__enter__``/:meth:`start`):
        DatabaseUnavailableError: Java or Maven missing, or the server died or timed out (the
            message carries the tails of the launcher output and ``logs/debug.log``).
    """

    def __init__(
        self,
        *,
        pagecache_mb: int = 256,
        heap: str = "1g",
        timeout_s: float = 180,
        lib_dir: Path | None = None,
    ) -> None:
        _heap_flags(heap)  # validate early
        self._pagecache_mb = pagecache_mb
        self._heap = heap
        self._timeout_s = timeout_s
        self._lib_dir = lib_dir
        self._proc: subprocess.Popen[bytes] | None = None
        self._home: Path | None = None
        self._uri: str | None = None
        self._port: int | None = None

    @property
    def uri(self) -> str:
        """The Bolt URI (``bolt://127.0.0.1:PORT``); only while running."""
        if self._uri is None:
            raise RuntimeError("EphemeralServer is not running")
        return self._uri

    @property
    def port(self) -> int:
        """The Bolt port; only while running."""
        if self._port is None:
            raise RuntimeError("EphemeralServer is not running")
        return self._port

    @property
    def home(self) -> Path:
        """The temporary Neo4j home; only while running (deleted on exit)."""
        if self._home is None:
            raise RuntimeError("EphemeralServer is not running")
        return self._home

    @property
    def pid(self) -> int:
        """Process id of the Java launcher; only while running."""
        if self._proc is None:
            raise RuntimeError("EphemeralServer is not running")
        return self._proc.pid

    @property
    def settings(self) -> ConnectionSettings:
        """Connection settings for this server (auth is off, so any credentials work)."""
        return ConnectionSettings(uri=self.uri)

    def start(self) -> EphemeralServer:
        """Start the server and wait until it answers; returns self.

        The port is chosen by Python and handed to Java, so another process may take it in
        between; the launcher then exits with code 3 and this retries on a new port (at most
        three attempts).

        Raises:
            DatabaseUnavailableError: see the class docstring.
            RuntimeError: already started.
        """
        if self._proc is not None:
            raise RuntimeError("EphemeralServer already started")
        lib_dir = ensure_jars(self._lib_dir)
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            try:
                self._launch(lib_dir)
                return self
            except _LauncherExited as exc:
                logs = _logs_for(self.home)
                self.close()
                if exc.code != _EXIT_PORT_TAKEN or attempt == _PORT_ATTEMPTS:
                    raise DatabaseUnavailableError(f"{exc}.\n{logs}") from None
            except DatabaseUnavailableError as exc:
                logs = _logs_for(self.home)
                self.close()
                raise DatabaseUnavailableError(f"{exc}.\n{logs}") from None
            except BaseException:
                self.close()
                raise
        raise AssertionError("unreachable")

    def _launch(self, lib_dir: Path) -> None:
        self._home = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-"))
        self._port = _free_port()
        cmd = _launcher_command(
            lib_dir,
            self._home,
            self._port,
            pagecache_mb=self._pagecache_mb,
            heap=self._heap,
            detached=False,
        )
        log = self._home / "launcher.log"
        with log.open("wb") as out:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self._home,
            )
        self._uri = _wait_ready(log, self._proc.poll, self._timeout_s)

    def close(self, timeout_s: float = 60) -> None:
        """Stop the server (stdin EOF, then SIGKILL after ``timeout_s``) and delete its home."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
        self._home = self._uri = self._port = None

    def __enter__(self) -> EphemeralServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
