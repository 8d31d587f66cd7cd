"""Real tests of the no-Docker Neo4j: launcher, local server lifecycle, throwaway servers, CLI.

Nothing is mocked: these start Java processes. Without Java/Maven they skip locally and fail
under ``CI=true``.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import server
from graphmem.db.launcher import free_port, launcher_command, pid_alive, port_free
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import DatabaseUnavailableError

REPO = Path(__file__).resolve().parents[3]


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _return_one(settings: ConnectionSettings) -> int:
    with GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one", database_="neo4j")
    return int(records[0]["one"])


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.2)
    return False


# --------------------------------------------------------------------------- no Java needed


# --------------------------------------------------------------------------- real servers


def test_ephemeral_server_runs_and_cleans_up(shared_lib_dir: Path) -> None:
    with server.EphemeralServer(lib_dir=shared_lib_dir) as neo:
        home, port, pid = neo.home, neo.port, neo.pid
        assert neo.uri == f"bolt://127.0.0.1:{port}"
        assert neo.settings.uri == neo.uri
        assert home.is_dir()
        assert _return_one(neo.settings) == 1
    assert not home.exists()
    assert not _port_open(port)
    assert not pid_alive(pid)


def test_ephemeral_server_dies_with_its_owner(shared_lib_dir: Path, tmp_path: Path) -> None:
    """Attached mode: SIGKILL the owning Python process, and Java must exit on stdin EOF."""
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from graphmem.db.server import EphemeralServer
        neo = EphemeralServer(lib_dir=Path({str(shared_lib_dir)!r}), pagecache_mb=32).start()
        print(neo.pid, neo.port, neo.home, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    owner = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )
    assert owner.returncode == -signal.SIGKILL, owner.stderr
    pid_s, port_s, home_s = owner.stdout.split()
    try:
        assert _wait_gone(int(pid_s), timeout_s=60), "java outlived its owner"
        assert not _port_open(int(port_s))
    finally:
        shutil.rmtree(home_s, ignore_errors=True)  # a killed owner cannot clean up its home


def test_ephemeral_server_start_failure_reports_logs(shared_lib_dir: Path,
                                                     tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "data").write_text("a file where Neo4j wants its data folder", encoding="utf-8")
    neo = server.EphemeralServer(lib_dir=shared_lib_dir, home=home)
    with pytest.raises(DatabaseUnavailableError, match=r"exited with code 1") as info:
        neo.start()
    assert "Launcher: Neo4j failed to start" in str(info.value)
    with pytest.raises(RuntimeError):
        _ = neo.home  # cleaned up


def test_launcher_exits_3_when_its_port_is_taken(shared_lib_dir: Path, tmp_path: Path) -> None:
    """The exit code EphemeralServer retries on when another process wins the port race."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        cmd = launcher_command(
            shared_lib_dir,
            tmp_path / "home",
            busy.getsockname()[1],
            pagecache_mb=32,
            heap="512m",
            detached=False,
        )
        with (tmp_path / "launcher.log").open("wb") as out:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=out)
        try:
            assert proc.wait(timeout=300) == 3
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert "Address already in use" in (tmp_path / "launcher.log").read_text()


def test_start_status_stop(data_dir_with_jars: Path) -> None:
    state = data_dir_with_jars / "server" / "state.json"
    assert server.status() is None
    port = free_port()

    info = server.start(port=port)
    assert info.uri == f"bolt://127.0.0.1:{port}"
    assert info.home == data_dir_with_jars / "server" / "home"
    assert json.loads(state.read_text())["pid"] == info.pid
    assert _return_one(info.settings) == 1
    # a kept server has no lease watch (tests/integration/server/test_lease_watch.py)
    assert b"--lease-dir" not in Path(f"/proc/{info.pid}/cmdline").read_bytes()

    again = server.start()
    assert again == info  # idempotent: same pid, no second JVM
    assert server.status() == info
    assert server.resolve_settings(start_if_needed=False) == info.settings

    result = CliRunner().invoke(app, ["db", "status"])
    assert result.exit_code == 0, result.output
    assert info.uri in result.output

    assert not port_free(port)

    assert server.stop() is True
    assert not state.exists()
    assert server.status() is None
    assert not pid_alive(info.pid)
    assert not _port_open(port)
    assert server.stop() is False

    result = CliRunner().invoke(app, ["db", "status"])
    assert result.exit_code == 3


def test_start_refuses_a_busy_port(data_dir_with_jars: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(DatabaseUnavailableError, match="in use"):
            server.start(port=busy.getsockname()[1])
    assert server.status() is None
