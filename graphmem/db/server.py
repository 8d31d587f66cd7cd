"""The local Neo4j servers graphmem runs itself (see :mod:`graphmem.db.launcher` for how).

Two ways to run one:

* :func:`start` / :func:`status` / :func:`stop` manage the long-lived local server behind
  ``graphmem db start``. It runs detached (own session, survives the Python process), keeps its
  store under ``data_dir()/server/home`` and is recorded in ``data_dir()/server/state.json``.
  Else :func:`lease` starts it for a client and records a lease per client under
  ``data_dir()/server/leases`` (:mod:`graphmem.db.leases`); it stops with the last live
  lease, released by its client or found dead by the launcher's own watch within seconds
  (every client killed), so a command never leaves a server running unless ``graphmem db
  start`` asked for one.
* :class:`EphemeralServer` is a throwaway server for tests and demos (:mod:`graphmem.db.ephemeral`):
  it goes away with the Python process that owns it, even one that crashes or is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from graphmem.db.credentials import read_password, resolve_password_file
from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.launch_settings import check_launch
from graphmem.db.launcher import (
    DEFAULT_PORT,
    HOST,
    NEO4J_VERSION,
    ServerInfo,
    bolt_answers,
    child_exit_code,
    ensure_jars,
    free_port,
    launcher_command,
    launcher_dir,
    logs_for,
    pid_alive,
    port_free,
    terminate,
    wait_ready,
)
from graphmem.db.leases import live_leases, server_lock, write_lease
from graphmem.db.resilience import file_errors
from graphmem.db.settings import ConnectionSettings, data_dir, server_home
from graphmem.errors import DatabaseUnavailableError

__all__ = [
    "NEO4J_VERSION",
    "EphemeralServer",
    "ServerInfo",
    "clients",
    "ensure_jars",
    "launcher_dir",
    "lease",
    "resolve_settings",
    "start",
    "status",
    "stop",
    "stop_unused",
]

#: What a failure of the data directory's files is (``resilience.file_errors``).
_FILES = "graphmem's data directory (GRAPHMEM_DATA_DIR) or the server's home cannot be used"


def _server_dir() -> Path:
    return data_dir() / "server"


def _state_file() -> Path:
    return _server_dir() / "state.json"


def _state_lock() -> contextlib.AbstractContextManager[None]:
    return server_lock(_server_dir())


def _read_state() -> ServerInfo | None:
    try:
        raw = json.loads(_state_file().read_text(encoding="utf-8"))
        return ServerInfo(
            uri=str(raw["uri"]),
            pid=int(raw["pid"]),
            home=Path(raw["home"]),
            port=int(raw["port"]),
            password_file=Path(raw["password_file"]) if raw.get("password_file") else None,
            kept=bool(raw.get("kept", True)),
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
        "password_file": str(info.password_file) if info.password_file else None,
        "neo4j_version": NEO4J_VERSION,
        "kept": info.kept,
    }
    tmp = _state_file().with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, _state_file())


@file_errors(_FILES)
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
    if not pid_alive(info.pid):
        _state_file().unlink(missing_ok=True)
        return None
    try:
        settings = info.settings
    except DatabaseUnavailableError:
        return info  # alive, but its password file is unreadable: connecting will say so
    return info if bolt_answers(settings) else None


@file_errors(_FILES)
def start(
    home: Path | None = None,
    port: int | None = None,
    *,
    pagecache_mb: int = 256,
    heap: str = "1g",
    timeout_s: float = 180,
    password_file: Path | None = None,
) -> ServerInfo:
    """Start the local Neo4j server detached, or return the one already running.

    Authentication is on: user ``neo4j``, password from the file that
    :func:`graphmem.db.credentials.resolve_password_file` picks (generated, mode 0600, at first
    start), set before Bolt opens on a new store. Bolt listens on 127.0.0.1 only.

    Idempotent: if ``state.json`` names a live launcher whose Bolt port answers, that server is
    returned unchanged (whatever ``home`` and ``port`` say). Otherwise the jars are fetched if
    needed (:func:`ensure_jars`), the launcher is spawned in its own session with stdin from
    /dev/null and stdout/stderr to ``home/launcher.log``, and this waits for its ready line.

    Args:
        home: Neo4j home (store and logs); default ``data_dir()/server/home``.
        port: Bolt port on 127.0.0.1; default 7687 if free, else any free port. "Free" means
            bindable with address reuse, as the server binds: a just-stopped server's
            connections in TIME_WAIT neither block an explicit port nor move the default.
        password_file: file holding the password (first line); see above.
        pagecache_mb: page cache size in MiB.
        heap: JVM max heap (``-Xmx``), e.g. ``"1g"`` or ``"768m"``.
        timeout_s: how long to wait for readiness.

    Returns:
        the running server.

    Raises:
        DatabaseUnavailableError: Java or Maven missing, the port is taken (another process
            listens on it), the password file is missing or unreadable, a recorded server is
            alive but unresponsive, or the launcher died or timed out (message carries the tails
            of ``launcher.log`` and ``logs/debug.log``).
        ValidationError: a setting out of range (:mod:`graphmem.db.launch_settings`).
    """
    check_launch(port=port, pagecache_mb=pagecache_mb, heap=heap)
    with _state_lock():
        return _start_locked(home, port, pagecache_mb=pagecache_mb, heap=heap,
                             timeout_s=timeout_s, password_file=password_file, kept=True)


def _start_locked(home: Path | None, port: int | None, *, pagecache_mb: int = 256,
                  heap: str = "1g", timeout_s: float = 180, password_file: Path | None = None,
                  kept: bool) -> ServerInfo:
    """:func:`start`, with the state lock held; ``kept`` as in :class:`ServerInfo` (a running
    server asked to be kept becomes kept)."""
    running = status()
    if running is not None:
        if kept and not running.kept:
            running = dataclasses.replace(running, kept=True)
            _write_state(running)
        return running
    stale = _read_state()
    if stale is not None:  # status() returned None but the process is alive
        raise DatabaseUnavailableError(
            f"A graphmem Neo4j server (pid {stale.pid}) is running but {stale.uri} does not "
            "answer; run `graphmem db stop` first."
        )
    lib_dir = ensure_jars()
    secret = resolve_password_file(password_file)
    read_password(secret)  # fail here, clearly, rather than in Java
    home = (home if home is not None else server_home()).absolute()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    if port is None:
        port = DEFAULT_PORT if port_free(DEFAULT_PORT) else free_port()
    elif not port_free(port):
        raise DatabaseUnavailableError(
            f"Port {port} on {HOST} is already in use (another process listens on it).")
    # a server not kept watches its leases and stops itself when no live client holds one,
    # even when every client was killed (docker/Launcher.java, --lease-dir)
    cmd = launcher_command(
        lib_dir, home, port, pagecache_mb=pagecache_mb, heap=heap, detached=True,
        password_file=secret, lease_dir=None if kept else _leases_dir(),
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
        uri = wait_ready(log, lambda: child_exit_code(pid), timeout_s)
    except BaseException as exc:
        terminate(pid, 30)
        if isinstance(exc, DatabaseUnavailableError):
            raise DatabaseUnavailableError(f"{exc}.\n{logs_for(home)}") from None
        raise
    info = ServerInfo(uri=uri, pid=pid, home=home, port=port, password_file=secret,
                      kept=kept)
    _write_state(info)
    return info


def _leases_dir() -> Path:
    return _server_dir() / "leases"


def _live_leases() -> list[Path]:
    """The lease files whose process is alive (graphmem.db.leases); the others are removed.
    Only under the state lock."""
    return live_leases(_leases_dir(), remove_dead=True)


@file_errors(_FILES)
def clients() -> int:
    """How many live processes hold a lease on the local server (read without the lock:
    nothing is removed). A server that was not kept and has none is stopping: its launcher
    stops it within seconds (docs/operations.md#where-neo4j-comes-from)."""
    return len(live_leases(_leases_dir(), remove_dead=False))


@file_errors(_FILES)
def lease(start_if_needed: bool = True, *, timeout_s: float = 180
          ) -> tuple[ConnectionSettings, Callable[[], None]]:
    """Use the local server for one client: its settings, and the function that ends the use.

    The server is the ``graphmem db start`` one if it runs; else, with ``start_if_needed``, it
    is started now (store under ``data_dir()/server/home``, as :func:`start`) but not kept:
    calling the returned function releases this client's lease (so does the interpreter's
    exit, for a script that never closes its client or ends on an uncaught exception), and
    the server stops when no live process holds a lease, so a command or script that started
    it leaves nothing running: the last release stops it, or, when every client was killed,
    its launcher within seconds (:mod:`graphmem.db.leases`; it waits for the state lock, so a
    client that takes a lease meanwhile keeps it running). A server started, or adopted, by
    ``graphmem db start`` is never stopped here. Releasing twice does nothing, and so does
    releasing in a child process made with ``os.fork()`` (the lease stays its parent's).

    Args:
        start_if_needed: start the server when none runs. timeout_s: readiness timeout (s).

    Returns:
        ``(settings, release)``.

    Raises:
        DatabaseUnavailableError: none runs and ``start_if_needed`` is False, or starting
            failed (see :func:`start`).
    """
    with _state_lock():
        running = status()
        if running is None:
            if not start_if_needed:
                raise DatabaseUnavailableError(
                    "No Neo4j configured: set NEO4J_URI (and NEO4J_USER/NEO4J_PASSWORD), "
                    "or run `graphmem db start`.")
            running = _start_locked(None, None, timeout_s=timeout_s, kept=False)
        settings = running.settings
        path = write_lease(_leases_dir())
    released = threading.Event()
    owner = os.getpid()

    def release() -> None:
        # a child made with os.fork() inherits this function (and its atexit entry): the
        # lease is its parent's, so the child's exit or close must not end it
        if released.is_set() or os.getpid() != owner:
            return
        released.set()
        atexit.unregister(release)
        with _state_lock():
            path.unlink(missing_ok=True)
            info = _read_state()
            if info is None or info.kept or _live_leases():
                return
            if pid_alive(info.pid):
                terminate(info.pid, 60)
            _state_file().unlink(missing_ok=True)

    # a script that never closes its client (or ends on an uncaught exception) still releases
    # its lease when the interpreter exits; only a killed process leaves it to the next client
    atexit.register(release)
    return settings, release


@file_errors(_FILES)
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
        return _stop_locked(timeout_s)


@file_errors(_FILES)
def stop_unused(timeout_s: float = 60) -> int:
    """Stop the local server as :func:`stop` (``timeout_s``) unless a live process holds a
    lease on it (:func:`clients`), checked and stopped under the lock every lease is taken
    under. Returns 0 when it was stopped (or none ran), else how many processes use it (it
    is left running)."""
    with _state_lock():
        users = len(_live_leases())
        if users:
            return users
        _stop_locked(timeout_s)
        return 0


def _stop_locked(timeout_s: float) -> bool:  # stop()'s work, under the state lock
    info = _read_state()
    if info is None:
        return False
    alive = pid_alive(info.pid)
    if alive:
        terminate(info.pid, timeout_s)
    _state_file().unlink(missing_ok=True)
    for path in _leases_dir().glob("*"):
        path.unlink(missing_ok=True)
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
