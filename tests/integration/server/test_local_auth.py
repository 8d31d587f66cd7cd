"""The local server behind ``graphmem db start``: authentication on with a password file only
its owner can read, and restarts on the same port while the previous
server's connections sit in TIME_WAIT.

Real servers, in a temporary ``GRAPHMEM_DATA_DIR`` (never the user's), stopped in ``finally``.
"""

from __future__ import annotations

import socket
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.db import credentials, server
from graphmem.db.launcher import free_port, port_free
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import DatabaseAuthError
from tests.support.database import Neo4jUnderTest


def _plain_bind_ok(port: int) -> bool:
    """A bind *without* SO_REUSEADDR: fails while connections on the port are in TIME_WAIT."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _leave_time_wait(port: int) -> None:
    """Leave a connection of ``port`` in TIME_WAIT, as a stopped server does when it closes
    its clients' connections first (whether Neo4j's shutdown does depends on timing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listener.accept()
            accepted.close()  # the side that closes first keeps TIME_WAIT, on this port
            client.recv(1)  # the peer's FIN


LOOPBACK = {
    "0100007F",  # 127.0.0.1 as /proc/net/tcp writes it
    "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1 (/proc/net/tcp6)
    "00000000000000000000000001000000",  # ::1
}


def _listen_addresses(port: int) -> set[str]:
    """Local addresses of LISTEN sockets on ``port`` (IPv4 and IPv6), from /proc/net."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:
                found.add(address)
    return found


# --------------------------------------------------------------------------- no Java needed


def test_the_throwaway_server_refuses_a_wrong_password(neo4j_db: Neo4jUnderTest) -> None:
    settings: ConnectionSettings = neo4j_db.settings
    with pytest.raises(DatabaseAuthError) as info:
        Memory.connect(replace(settings, password="not-the-password"), start_if_needed=False)
    assert isinstance(info.value.__cause__, AuthError)


# --------------------------------------------------------------------------- real servers


def test_restart_on_the_same_port_with_auth_on(data_dir_with_jars: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    port = free_port()
    monkeypatch.setattr(server, "DEFAULT_PORT", port)  # "7687" of this test: never the user's

    # A real conflict (another process listening) still gives the clear error.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        result = runner.invoke(app, ["db", "start", "--port", str(port)])
        assert result.exit_code == 3  # DatabaseUnavailableError (graphmem.terminal)
        assert f"Port {port} on 127.0.0.1 is already in use" in result.output

    try:
        result = runner.invoke(app, ["db", "start", "--port", str(port)])
        assert result.exit_code == 0, result.output
        assert f"bolt://127.0.0.1:{port}" in result.output
        info = server.status()
        assert info is not None and info.port == port

        # Credentials: generated, private, shown by status, used by connect().
        secret = data_dir_with_jars / "server" / "password"
        assert info.password_file == secret
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
        assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700  # the store is in it too
        status = runner.invoke(app, ["db", "status"], env={"COLUMNS": "400"})
        assert status.exit_code == 0
        assert f"credentials {secret}" in status.output
        assert credentials.read_password(secret) not in status.output

        # Bolt on loopback only (Java listens on a dual-stack socket: ::ffff:127.0.0.1).
        listening = _listen_addresses(port)
        assert listening and listening <= LOOPBACK, listening

        # Without the password, or with a wrong one, the server refuses.
        with GraphDatabase.driver(info.uri, auth=None) as anonymous, \
                pytest.raises(AuthError):
            anonymous.verify_connectivity()
        with pytest.raises(DatabaseAuthError):
            Memory.connect(ConnectionSettings(uri=info.uri, password="graphmem-local"),
                           start_if_needed=False)

        # With it (found through the state file) every client works; keep the connections
        # open, so stopping the server leaves them in TIME_WAIT on the server's port.
        clients = [Memory.connect(start_if_needed=False) for _ in range(4)]
        for client in clients:
            assert store_of(client).counts() == {}
        result = runner.invoke(app, ["db", "stop"])
        assert result.exit_code == 0 and "stopped" in result.output
        for client in clients:
            client.close()

        if _plain_bind_ok(port):  # this shutdown closed no connection first: make one
            _leave_time_wait(port)
        assert not _plain_bind_ok(port), "test premise: the port has a TIME_WAIT connection"
        assert port_free(port)

        # Restart without --port: stays on the default port, same password, same store.
        again = server.start()
        assert again.port == port and again.pid != info.pid
        with Memory.connect(start_if_needed=False) as memory:
            assert store_of(memory).counts() == {}
    finally:
        server.stop(timeout_s=30)


@pytest.mark.parametrize("password", [
    "a-password-I-manage",
    "-a-password-that-looks-like-an-option",  # token_urlsafe can begin with '-'
    "@not-an-argument-file --help",
])
def test_start_with_an_own_password_file(data_dir_with_jars: Path, tmp_path: Path,
                                         password: str) -> None:
    mine = tmp_path / "neo4j-password"
    mine.write_text(password + "\n", encoding="utf-8")
    mine.chmod(0o600)
    port = free_port()
    try:
        result = CliRunner().invoke(
            app, ["db", "start", "--port", str(port), "--password-file", str(mine)])
        assert result.exit_code == 0, result.output
        info = server.status()
        assert info is not None and info.password_file == mine
        assert not (data_dir_with_jars / "server" / "password").exists()
        assert server.resolve_settings(start_if_needed=False).password == password
        with Memory.connect(ConnectionSettings(uri=info.uri, password=password),
                            start_if_needed=False) as memory:
            assert store_of(memory).counts() == {}
    finally:
        server.stop(timeout_s=30)
