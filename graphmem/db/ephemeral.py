"""Throwaway Neo4j servers for tests, demos and benchmarks (see :class:`EphemeralServer`).

The long-lived local server is :mod:`graphmem.db.server`; both are run by
:mod:`graphmem.db.launcher`."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from graphmem.db.credentials import (
    generate_password_file,
    read_password,
)
from graphmem.db.launch_settings import check_launch
from graphmem.db.launcher import (
    EXIT_PORT_TAKEN,
    PORT_ATTEMPTS,
    LauncherExited,
    ensure_jars,
    free_port,
    launcher_command,
    logs_for,
    wait_ready,
)
from graphmem.db.resilience import file_errors
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import DatabaseUnavailableError

__all__ = ["EphemeralServer"]


class EphemeralServer:
    """A throwaway Neo4j on a free port with a fresh temporary store, as a context manager.

    Runs the launcher attached: its stdin is a pipe from this process, and the launcher exits
    when that pipe reaches EOF, i.e. on :meth:`close` or when this process dies for any reason.
    The temporary home is deleted on exit, unless ``home`` was given.

    Crash tests pass ``home`` (kept on close, so a new server can recover the same
    store) and ``port`` (so a live client finds the restarted server where it was), and call
    :meth:`kill` to ``kill -9`` the Java process. Like the local server it requires authentication,
    with a random password of its own (:attr:`settings` carries it), kept in its home so a restart
    on the same home keeps it.

    Usage::

        with EphemeralServer() as server:
            with open_driver(server.settings) as driver: ...

    Args:
        pagecache_mb: page cache size in MiB.
        heap: JVM max heap (``-Xmx``), e.g. ``"1g"``.
        timeout_s: how long to wait for readiness.
        lib_dir: jar directory passed to :func:`ensure_jars` (default: the shared one).
        home: Neo4j home to use (created if missing) and keep on close; default a fresh
            temporary directory, deleted on close.
        port: Bolt port to use; default a free one (a port taken by another process is then
            retried on a new port, a given one is not).
        jvm_options: JVM options for this server, after all others (e.g.
            :mod:`graphmem.db.class_data` records its class-data archive with one).

    Raises:
        ValidationError: (when made) a port, page cache or heap out of range
            (:func:`graphmem.db.launch_settings.check_launch`).

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
        home: Path | None = None,
        port: int | None = None,
        jvm_options: Sequence[str] = (),
    ) -> None:
        check_launch(port=port, pagecache_mb=pagecache_mb, heap=heap)  # before any start
        self._jvm_options = tuple(jvm_options)
        self._given_home = home.absolute() if home is not None else None
        self._given_port = port
        self._pagecache_mb = pagecache_mb
        self._heap = heap
        self._timeout_s = timeout_s
        self._lib_dir = lib_dir
        self._proc: subprocess.Popen[bytes] | None = None
        self._home: Path | None = None
        self._uri: str | None = None
        self._port: int | None = None
        self._password_file: Path | None = None

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
    def password_file(self) -> Path:
        """The file holding this server's password (mode 0600); only while running."""
        if self._password_file is None:
            raise RuntimeError("EphemeralServer is not running")
        return self._password_file

    @property
    def settings(self) -> ConnectionSettings:
        """Connection settings for this server, its password included."""
        return ConnectionSettings(uri=self.uri, password=read_password(self.password_file))

    @file_errors("the throwaway server's home or graphmem's data directory cannot be used")
    def start(self) -> EphemeralServer:
        """Start the server and wait until it answers; returns self.

        The port is chosen by Python and handed to Java, so another process may take it in
        between; the launcher then exits with code 3 and this retries on a new port (at most
        three attempts).

        Raises:
            DatabaseUnavailableError: see the class docstring; also a home or data directory
                whose files cannot be made or read.
            RuntimeError: already started.
        """
        if self._proc is not None:
            raise RuntimeError("EphemeralServer already started")
        lib_dir = ensure_jars(self._lib_dir)
        for attempt in range(1, PORT_ATTEMPTS + 1):
            try:
                self._launch(lib_dir)
                return self
            except LauncherExited as exc:
                logs = logs_for(self.home)
                self.close()
                if (exc.code != EXIT_PORT_TAKEN or attempt == PORT_ATTEMPTS
                        or self._given_port is not None):
                    raise DatabaseUnavailableError(f"{exc}.\n{logs}") from None
            except DatabaseUnavailableError as exc:
                logs = logs_for(self.home)
                self.close()
                raise DatabaseUnavailableError(f"{exc}.\n{logs}") from None
            except BaseException:
                self.close()
                raise
        raise AssertionError("unreachable")

    def _launch(self, lib_dir: Path) -> None:
        if self._given_home is not None:
            self._home = self._given_home
            self._home.mkdir(parents=True, exist_ok=True)
        else:
            self._home = Path(tempfile.mkdtemp(prefix="graphmem-neo4j-"))
        self._port = self._given_port if self._given_port is not None else free_port()
        self._password_file = generate_password_file(self._home / "password")
        cmd = launcher_command(
            lib_dir,
            self._home,
            self._port,
            pagecache_mb=self._pagecache_mb,
            heap=self._heap,
            detached=False,
            password_file=self._password_file,
            jvm_options=self._jvm_options,
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
        self._uri = wait_ready(log, self._proc.poll, self._timeout_s)

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
        if self._home is not None and self._given_home is None:
            shutil.rmtree(self._home, ignore_errors=True)
        self._home = self._uri = self._port = self._password_file = None

    def kill(self) -> None:
        """``kill -9`` the Java process (a crash: no shutdown hook, no checkpoint) and reap it.

        The home is left as the crash left it (also a temporary one, until :meth:`close`);
        with ``home`` given, a new server on the same home recovers the store.

        Raises:
            RuntimeError: not running.
        """
        if self._proc is None:
            raise RuntimeError("EphemeralServer is not running")
        self._proc.kill()
        self._proc.wait()

    def __enter__(self) -> EphemeralServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
