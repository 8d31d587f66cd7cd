"""SIGTERM and the command line (docs/cli.md, exit codes): ``graphmem mcp`` ends at once, as
Python's default does, even while its stdio client keeps stdin open; other commands end as
on Ctrl-C (tests/integration/demo/test_demo_cli.py starts a server to show it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def test_the_mcp_server_ends_at_once_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "NEO4J_URI": "bolt://127.0.0.1:1",
           "GRAPHMEM_DATA_DIR": str(tmp_path / "data")}
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        server = subprocess.Popen([sys.executable, "-m", "graphmem.cli", "mcp", "--tenant",
                                   "acme"], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=err)
    try:
        time.sleep(4)  # serving: reading its stdin, which stays open
        assert server.poll() is None, log.read_text(encoding="utf-8", errors="replace")
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        assert server.returncode == -signal.SIGTERM
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=15)
        assert server.stdin is not None
        server.stdin.close()
