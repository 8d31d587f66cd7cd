"""A server started for clients stops by itself when they are all gone, even killed.

Found by a new user: a client killed with SIGKILL never released its lease, and the server it
had started ran on until some later graphmem command happened to look. The launcher of a
server that was not kept now watches the leases (``--lease-dir``, the rule of
graphmem/db/leases.py) under the state lock, and stops within seconds once no live process
holds one; a server kept by ``graphmem db start`` is never stopped so. Every test kills the
launchers it saw, whatever happens (the ``launchers`` fixture).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import leases, server
from graphmem.db.launcher import bolt_answers, pid_alive, port_free
from graphmem.db.settings import ConnectionSettings

#: How long a server whose clients are gone may take to stop, in seconds (a poll each second,
#: then a clean shutdown: a few seconds, more on a loaded machine).
STOP_BOUND_S = 30.0
#: How long a server that must keep running is watched, in seconds (several polls).
WATCH_S = 4.0

#: A client that connects (starting the local server), says the launcher's pid and port,
#: then waits to be killed.
CLIENT = (
    "import sys\n"
    "from graphmem.client import Memory\n"
    "from graphmem.db import server\n"
    "m = Memory.connect()\n"
    "info = server.status()\n"
    "print(info.pid, info.port, flush=True)\n"
    "sys.stdin.readline()\n"
)


@pytest.fixture
def launchers() -> Iterator[list[int]]:
    """Pids of launchers a test saw: any still running at the end is killed."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if pid_alive(pid):  # still a launcher (its command line says so), not a reused pid
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def client(data_dir_with_jars: Path, launchers: list[int]
           ) -> Iterator[Callable[[], tuple[subprocess.Popen[str], int, int]]]:
    """Starts :data:`CLIENT` processes: each call returns the process, its server's launcher
    pid and port. Every one is killed at the end."""
    started: list[subprocess.Popen[str]] = []

    def start() -> tuple[subprocess.Popen[str], int, int]:
        proc = subprocess.Popen([sys.executable, "-c", CLIENT], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ))
        started.append(proc)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, proc.communicate(timeout=60)[1]
        pid, port = (int(word) for word in line.split())
        launchers.append(pid)
        return proc, pid, port

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL


def _stops_within(pid: int, port: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not pid_alive(pid) and port_free(port):
            return True
        time.sleep(0.2)
    return False


def _keeps_answering(settings: ConnectionSettings, pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not (pid_alive(pid) and bolt_answers(settings)):
            return False
        time.sleep(0.5)
    return True


def _server_dir(data_dir: Path) -> Path:
    return data_dir / "server"


def test_the_server_of_killed_clients_stops_by_itself(
        data_dir_with_jars: Path, client: Callable[[], tuple[subprocess.Popen[str], int, int]],
        ) -> None:
    """No graphmem process runs after the kill: the launcher stops on its own. Leases that
    graphmem counts dead (a pid reused by a later process, a dead pid, no start time, no
    pid) keep it no more than no lease does."""
    proc, pid, port = client()
    lease_dir = _server_dir(data_dir_with_jars) / "leases"
    assert b"--lease-dir" in Path(f"/proc/{pid}/cmdline").read_bytes()
    with subprocess.Popen([sys.executable, "-c", "pass"]) as dead:
        dead.wait()
    with leases.server_lock(_server_dir(data_dir_with_jars)):
        for name, content in ((f"{os.getpid()}-reused", "1\n"),  # our pid, another start
                              (f"{dead.pid}-dead", f"{leases.process_start(os.getpid())}\n"),
                              (f"{os.getpid()}-blank", "\n"),
                              ("notapid-0", f"{leases.process_start(os.getpid())}\n")):
            (lease_dir / name).write_text(content, encoding="ascii")
    second, second_pid, _ = client()  # a second client shares the server
    assert second_pid == pid
    _kill(proc)
    assert _keeps_answering(server.status().settings, pid, 2.5)  # type: ignore[union-attr]
    _kill(second)
    assert leases.live_leases(lease_dir, remove_dead=False) == []  # graphmem's rule agrees
    assert _stops_within(pid, port, STOP_BOUND_S)
    log = (_server_dir(data_dir_with_jars) / "home" / "launcher.log").read_text()
    assert "no live process holds a lease" in log
    assert server.status() is None
    assert not (_server_dir(data_dir_with_jars) / "state.json").exists()


def test_the_watch_waits_for_the_lock_and_status_says_stopping(
        data_dir_with_jars: Path, client: Callable[[], tuple[subprocess.Popen[str], int, int]],
        ) -> None:
    proc, pid, port = client()
    assert CliRunner().invoke(app, ["db", "status"]).exit_code == 0
    with leases.server_lock(_server_dir(data_dir_with_jars)):
        _kill(proc)
        time.sleep(WATCH_S)
        assert pid_alive(pid)  # the watch waits while a graphmem process holds the lock
        result = CliRunner().invoke(app, ["db", "status"])
        assert result.exit_code == 3, result.output
        assert "stopping" in result.output
    assert _stops_within(pid, port, STOP_BOUND_S)


def test_a_lease_taken_as_the_last_client_dies_keeps_the_server(
        data_dir_with_jars: Path, client: Callable[[], tuple[subprocess.Popen[str], int, int]],
        launchers: list[int]) -> None:
    """The race: a client takes a lease while the watch waits for the lock, having found no
    live lease a moment before; the server must not stop under it. Then the other order: the
    watch stops the server first, and the client's lease (waiting for the lock) starts a new
    one rather than get a stopping one."""
    proc, pid, port = client()
    with leases.server_lock(_server_dir(data_dir_with_jars)):
        _kill(proc)
        time.sleep(2)  # the watch now waits for the lock
        info = server.status()  # what server.lease does under the lock
        assert info is not None and info.pid == pid
        mine = leases.write_lease(_server_dir(data_dir_with_jars) / "leases")
    assert _keeps_answering(info.settings, pid, WATCH_S)
    with leases.server_lock(_server_dir(data_dir_with_jars)):
        mine.unlink()  # released: the watch stops it
    assert _stops_within(pid, port, STOP_BOUND_S)

    proc, pid, port = client()
    got: list[tuple[ConnectionSettings, Callable[[], None]]] = []
    with leases.server_lock(_server_dir(data_dir_with_jars)):
        _kill(proc)
        waiting = threading.Thread(target=lambda: got.append(server.lease()))
        waiting.start()
        time.sleep(2)  # both the watch and this lease wait for the lock
    waiting.join(timeout=300)
    assert got, "server.lease() did not return"
    settings, release = got[0]
    running = server.status()
    assert running is not None and not running.kept
    launchers.append(running.pid)
    try:
        assert _keeps_answering(settings, running.pid, WATCH_S)
        assert server.clients() == 1
    finally:
        release()
    assert _stops_within(running.pid, running.port, STOP_BOUND_S)
    assert _stops_within(pid, port, STOP_BOUND_S)


def test_a_server_kept_by_db_start_outlives_killed_clients(
        data_dir_with_jars: Path, client: Callable[[], tuple[subprocess.Popen[str], int, int]],
        ) -> None:
    """A server started for a client, then adopted by ``graphmem db start``: its launcher
    still watches the leases, and finds it kept."""
    proc, pid, _ = client()
    result = CliRunner().invoke(app, ["db", "start"])
    assert result.exit_code == 0, result.output
    _kill(proc)
    info = server.status()
    assert info is not None and info.kept and info.pid == pid
    assert _keeps_answering(info.settings, pid, WATCH_S)
    result = CliRunner().invoke(app, ["db", "status"])
    assert result.exit_code == 0 and "running" in result.output, result.output
    assert server.stop() is True
    assert not pid_alive(pid)
