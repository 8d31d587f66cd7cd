"""The launcher of a real Neo4j without Docker: the jars (fetched with Maven), the Java command
that runs ``Launcher.java``, and the process and port helpers the servers in
:mod:`graphmem.db.server` share.

The server is an embedded Neo4j Community behind Bolt. It needs a Java 17+ JDK
(``Launcher.java`` is compiled once: :mod:`graphmem.db.launcher_classes`) and the Neo4j
jars, which :func:`ensure_jars` fetches once with Maven into the data directory. POSIX only
(signals, sessions, ``fcntl``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmem.db.credentials import read_password
from graphmem.db.launch_settings import check_launch, heap_flags
from graphmem.db.launcher_classes import launcher_entry
from graphmem.db.maven import run_maven
from graphmem.db.progress import report
from graphmem.db.resilience import file_errors
from graphmem.db.settings import ConnectionSettings, data_dir
from graphmem.errors import DatabaseUnavailableError

__all__ = [
    "DEFAULT_PORT",
    "HOST",
    "NEO4J_VERSION",
    "ServerInfo",
    "ensure_jars",
    "launcher_dir",
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
#: The environment variable of extra JVM options for every server the launcher starts, split
#: as a shell splits words and passed after :data:`JVM_FLAGS` (a later flag wins), e.g.
#: ``-XX:TieredStopAtLevel=1`` (faster start, slower peak; the test suite sets it:
#: docs/operations.md#running-the-tests).
JVM_OPTIONS_ENV = "GRAPHMEM_JVM_OPTIONS"

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
        password_file: the file holding the ``neo4j`` user's password;
            None for a server recorded by a graphmem that ran Neo4j without authentication.
        kept: started (or adopted) by ``graphmem db start``, so it runs until ``graphmem db
            stop``; False for a server a command or ``Memory.connect()`` started for itself,
            which stops when the last client using it closes (:mod:`graphmem.db.server`).
    """

    uri: str
    pid: int
    home: Path
    port: int
    password_file: Path | None = None
    kept: bool = True

    @property
    def settings(self) -> ConnectionSettings:
        """Connection settings for this server, with the password read from its file.

        Raises:
            DatabaseUnavailableError: the password file cannot be read.
        """
        if self.password_file is None:
            return ConnectionSettings(uri=self.uri)
        return ConnectionSettings(uri=self.uri, password=read_password(self.password_file))


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


@file_errors("the folder of the Neo4j jars in graphmem's data directory cannot be used")
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
        DatabaseUnavailableError: Maven is not installed, the fetch failed (message carries
            the tail of Maven's output), or the folder cannot be made or read.
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
            cmd = [  # not quiet: "Downloaded from ..." lines measure the progress
                mvn,
                "-B",
                "-f",
                str(Path(build) / "pom.xml"),
                "package",
                f"-Dlib.dir={staging}",
            ]
            code, output = run_maven(
                cmd, build, phase=f"Fetching the Neo4j {NEO4J_VERSION} jars with Maven "
                "(first run only, about 150 MB)", timeout_s=_MVN_TIMEOUT_S,
                tail_lines=_LOG_TAIL_LINES)
        fetched = _marker_jar(staging)
        if code is None:
            raise DatabaseUnavailableError(
                f"Fetching Neo4j {NEO4J_VERSION} jars with Maven timed out after "
                f"{_MVN_TIMEOUT_S:.0f} s.")
        if code != 0 or not fetched.is_file():
            raise DatabaseUnavailableError(
                f"Fetching Neo4j {NEO4J_VERSION} jars with Maven failed "
                f"(exit {code}). {_INSTALL_HINT}\n{_tail_text(output)}"
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


def java_executable() -> str:
    """``$JAVA_HOME/bin/java``, else ``java`` on PATH. Raises DatabaseUnavailableError."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        return str(Path(java_home) / "bin" / "java")
    java = shutil.which("java")
    if java is None:
        raise DatabaseUnavailableError(f"Java (`java`) is not on PATH. {_INSTALL_HINT}")
    return java


def extra_jvm_options() -> list[str]:
    """The JVM options of :data:`JVM_OPTIONS_ENV` (none when unset or blank).

    Raises:
        DatabaseUnavailableError: the variable does not split (an unclosed quote).
    """
    raw = os.environ.get(JVM_OPTIONS_ENV, "")
    try:
        return shlex.split(raw)
    except ValueError as exc:
        raise DatabaseUnavailableError(f"{JVM_OPTIONS_ENV}={raw!r} does not split into JVM "
                                       f"options: {exc}") from None


def launcher_command(
    lib_dir: Path, home: Path, port: int, *, pagecache_mb: int, heap: str, detached: bool,
    password_file: Path | None = None, jvm_options: Sequence[str] = (),
    lease_dir: Path | None = None,
) -> list[str]:
    """The ``java`` command line running ``Launcher.java`` (:mod:`graphmem.db.launcher_classes`)
    on ``HOST:port``, with the JVM options of :data:`JVM_OPTIONS_ENV`, then ``jvm_options``.

    With ``password_file`` the server requires authentication as ``neo4j`` with the password
    in that file (set before Bolt opens on a new store; see ``Launcher.java``); without it
    authentication is off. With ``lease_dir`` (the ``leases/`` folder of a server not kept,
    :mod:`graphmem.db.leases`) the server stops itself once no live process holds a lease.

    Raises:
        ValidationError: a port, page cache or heap out of range
            (:func:`graphmem.db.launch_settings.check_launch`), before anything runs.
        DatabaseUnavailableError: no Java, or a malformed :data:`JVM_OPTIONS_ENV`.
    """
    check_launch(port=port, pagecache_mb=pagecache_mb, heap=heap)
    java = java_executable()
    cmd = [java, *heap_flags(heap), *JVM_FLAGS, *extra_jvm_options(), *jvm_options,
           *launcher_entry(java, lib_dir, launcher_dir() / "Launcher.java"),
           "--home", str(home), "--host", HOST, "--port", str(port),
           "--pagecache-mb", str(int(pagecache_mb))]
    if password_file is not None:
        cmd += ["--password-file", str(password_file)]
    if lease_dir is not None:
        cmd += ["--lease-dir", str(lease_dir)]
    if detached:
        cmd.append("--detached")
    return cmd


def port_free(port: int) -> bool:
    """True when the launcher could bind ``HOST:port`` now.

    Binds the way the server does, with ``SO_REUSEADDR`` (Java sets it on server sockets on
    POSIX), so connections of a just-stopped server lingering in TIME_WAIT do not count as
    "in use", while another process listening on the port still does.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port() -> int:
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


def logs_for(home: Path) -> str:
    parts = []
    for name, path in (
        ("launcher output", home / "launcher.log"),
        ("debug.log", home / "logs" / "debug.log"),
    ):
        tail = _tail_file(path)
        if tail:
            parts.append(f"--- last lines of {name} ({path}):\n{tail}")
    return "\n".join(parts) if parts else f"(no logs under {home})"


EXIT_PORT_TAKEN = 3  # Launcher.java's exit code when the Bolt port cannot be bound
PORT_ATTEMPTS = 3  # EphemeralServer: tries with a fresh port when another process won the race


class LauncherExited(DatabaseUnavailableError):
    """The launcher exited before it was ready; ``code`` is its exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(f"Neo4j launcher exited with code {code} before ready")
        self.code = code


_START_PHASE = "Starting Neo4j"


def _start_step(log_text: str) -> str:
    """Which step of a start the launcher's output so far shows: the JVM loads the launcher
    and the jars until the launcher writes its first line (setting the password), then Neo4j
    creates or opens the database."""
    if not log_text.strip():
        return "starting the JVM and loading the launcher"
    return "creating or opening the database"


def wait_ready(log: Path, exit_code: Callable[[], int | None], timeout_s: float) -> str:
    """Poll ``log`` for the launcher's ready line; return its URI.

    Raises:
        LauncherExited: the process exited first (``exit_code()`` not None).
        DatabaseUnavailableError: ``timeout_s`` passed. The caller adds the log tails.
    """
    started = time.monotonic()
    deadline = started + timeout_s
    shown = -1.0
    while True:
        try:
            text = log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        ready = _READY_RE.search(text)
        if ready is not None:
            report(_START_PHASE, f"ready at {ready.group(1)} after "
                                 f"{time.monotonic() - started:.0f} s")
            return ready.group(1)
        elapsed = time.monotonic() - started
        if elapsed - shown >= 1:  # the phase, from what the launcher has written so far
            shown = elapsed
            report(_START_PHASE, f"{_start_step(text)}, {elapsed:.0f} s")
        code = exit_code()
        if code is not None:
            raise LauncherExited(code)
        if time.monotonic() > deadline:
            raise DatabaseUnavailableError(f"Neo4j did not become ready within {timeout_s:.0f} s")
        time.sleep(0.1)


def child_exit_code(pid: int) -> int | None:
    """Exit code of our child ``pid`` if it has exited (reaping it), else None."""
    try:
        done, status_ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return None if pid_alive(pid) else -1
    if done == 0:
        return None
    return os.waitstatus_to_exitcode(status_)


def pid_alive(pid: int) -> bool:
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


def bolt_answers(settings: ConnectionSettings, timeout_s: float = 5.0) -> bool:
    """True when a Bolt server answers at ``settings.uri``, with these credentials or
    refusing them (it answered; a wrong password is the caller's to report)."""
    from neo4j import GraphDatabase  # deferred: the driver is slow to import
    from neo4j.exceptions import AuthError

    try:
        with GraphDatabase.driver(
            settings.uri, auth=(settings.user, settings.password), connection_timeout=timeout_s
        ) as driver:
            driver.verify_connectivity()
    except AuthError:
        return True
    except Exception:
        return False
    return True


def terminate(pid: int, timeout_s: float) -> None:
    """SIGTERM ``pid``, wait up to ``timeout_s``, then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while pid_alive(pid):
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            kill_deadline = time.monotonic() + 10
            while pid_alive(pid) and time.monotonic() < kill_deadline:
                time.sleep(0.05)
            return
        time.sleep(0.1)
