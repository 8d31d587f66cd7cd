"""A command never leaves a server running (project rule): the local server that
``Memory.connect()`` or a CLI command starts for itself stops with its last client, while the
one ``graphmem db start`` started (or adopted) keeps running until ``graphmem db stop``.
Clients that were killed: tests/integration/server/test_lease_watch.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.db import server
from graphmem.db.launcher import pid_alive


def _state(data_dir: Path) -> dict[str, object]:
    return dict(json.loads((data_dir / "server" / "state.json").read_text()))


def test_the_last_client_stops_a_server_it_started(data_dir_with_jars: Path) -> None:
    assert server.status() is None
    first = Memory.connect()
    info = server.status()
    assert info is not None and not info.kept
    assert _state(data_dir_with_jars)["kept"] is False
    second = Memory.connect()  # shares it: no second server
    assert server.status() == info
    first.close()
    assert pid_alive(info.pid)  # the second client still uses it
    assert store_of(second).counts() == {}
    second.close()
    assert not pid_alive(info.pid)
    assert server.status() is None
    assert not (data_dir_with_jars / "server" / "state.json").exists()
    second.close()  # closing again changes nothing


def test_a_kept_server_outlives_its_clients(data_dir_with_jars: Path) -> None:
    client = Memory.connect()  # started for this client ...
    info = server.status()
    assert info is not None and not info.kept
    result = CliRunner().invoke(app, ["db", "start"])  # ... then adopted by db start
    assert result.exit_code == 0, result.output
    adopted = server.status()
    assert adopted is not None and adopted.kept and adopted.pid == info.pid
    client.close()
    assert pid_alive(info.pid)
    with Memory.connect(start_if_needed=False):
        pass
    assert pid_alive(info.pid)
    assert server.stop() is True
    assert not pid_alive(info.pid)


def test_a_script_that_never_closes_its_client_leaves_no_server_running(
        data_dir_with_jars: Path) -> None:
    """Found by a new user: a script without ``close()`` (or ending on an uncaught exception)
    left the server it started running until some later client closed. The lease is now
    released at the interpreter's exit."""
    for tail in ("print(store_of(m).counts())\n", "raise RuntimeError('the agent crashed')\n"):
        ended = subprocess.run(
            [sys.executable, "-X", "dev", "-c",
             "from graphmem.client import Memory, store_of\n"
             "from graphmem.db import server\n"
             "m = Memory.connect()\n"
             "print(server.status().pid)\n" + tail],
            env=dict(os.environ), capture_output=True, text=True, timeout=300, check=False)
        assert ended.returncode == (0 if "print" in tail else 1), ended.stderr
        # its shared driver is closed at exit too (a new user saw "unclosed BoltDriver")
        assert "ResourceWarning" not in ended.stderr, ended.stderr
        pid = int(ended.stdout.splitlines()[0])
        assert not pid_alive(pid), tail
        assert server.status() is None
        leases = data_dir_with_jars / "server" / "leases"
        assert not leases.exists() or not any(leases.iterdir())


def test_a_forked_child_that_exits_leaves_its_parents_server_running(
        data_dir_with_jars: Path) -> None:
    """Found by a new user: a child made with os.fork() inherited the lease's release at
    exit, and its normal exit stopped the parent's server (the parent's next write failed
    with DatabaseUnavailableError). The lease and the driver stay the parent's; the child
    that connects gets a driver of its own."""
    ended = subprocess.run(
        [sys.executable, "-c",
         "import os, sys\n"
         "from datetime import UTC, datetime\n"
         "from graphmem.client import Memory, store_of\n"
         "from graphmem.db import server\n"
         "T0 = datetime(2026, 1, 1, tzinfo=UTC)\n"
         "def rec(i):\n"
         "    return {'id': f'f{i}', 'kind': 'episodic', 'content': f'observation {i}',\n"
         "            'created_at': T0.isoformat(), 'scope': {'tenant': 'acme'},\n"
         "            'provenance': {'source': 'test'}, 'authority': 'verified_outcome'}\n"
         "m = Memory.connect()\n"
         "m.write(rec(0), now=T0)\n"
         "for child_connects in (False, True):\n"
         "    pid = os.fork()\n"
         "    if pid == 0:\n"
         "        if child_connects:\n"
         "            c = Memory.connect()\n"
         "            assert store_of(c).driver is not store_of(m).driver\n"
         "            c.write(rec(9), now=T0)\n"
         "            c.close()\n"
         "        m.close()\n"
         "        sys.exit(0)\n"
         "    assert os.waitpid(pid, 0)[1] == 0\n"
         "print(m.write(rec(1), now=T0).disposition.value)\n"
         "print(server.status().pid)\n"
         "m.close()\n"],
        env=dict(os.environ), capture_output=True, text=True, timeout=300, check=False)
    assert ended.returncode == 0, ended.stderr
    disposition, pid = ended.stdout.split()
    assert disposition == "PERSIST"
    assert not pid_alive(int(pid))  # the parent's close stopped it
    assert server.status() is None


def test_a_cli_command_leaves_no_server_running(data_dir_with_jars: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--json"])
    assert result.exit_code == 0, result.output
    assert server.status() is None
    assert not (data_dir_with_jars / "server" / "state.json").exists()
    leases = data_dir_with_jars / "server" / "leases"
    assert not leases.exists() or not any(leases.iterdir())
