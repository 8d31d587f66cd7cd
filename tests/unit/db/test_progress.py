"""Progress of the long first-run steps on stderr: the jar fetch (bytes, from Maven's
"Downloaded from" lines) and the server start (its phases), nothing on stdout; without a
server (the real ``graphmem db start``: tests/integration/server/test_progress.py)."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import server
from graphmem.db.launcher import wait_ready
from graphmem.db.maven import run_maven
from graphmem.db.progress import reporting

FAKE_MVN = """#!/bin/sh
# prints what Maven prints in batch mode while it downloads, then makes the jars
for arg in "$@"; do
  case "$arg" in -Dlib.dir=*) lib="${arg#-Dlib.dir=}" ;; esac
done
echo "[INFO] Scanning for projects..."
echo "Downloading from central: https://repo/neo4j-kernel.jar"
echo "Downloaded from central: https://repo/neo4j-kernel.jar (12.5 MB at 3.1 MB/s)"
echo "Downloaded from central: https://repo/netty.jar (640 kB at 1.0 MB/s)"
echo "Downloaded from central: https://repo/tiny.pom (900 B at 9 kB/s)"
touch "$lib/neo4j-VERSION.jar" "$lib/netty.jar"
"""


def _fake_mvn(tmp_path: Path, body: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mvn = bin_dir / "mvn"
    mvn.write_text(body.replace("VERSION", server.NEO4J_VERSION), encoding="utf-8")
    mvn.chmod(mvn.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_maven_downloads_are_reported_in_bytes(tmp_path: Path) -> None:
    mvn = _fake_mvn(tmp_path, FAKE_MVN) / "mvn"
    (tmp_path / "lib").mkdir()
    seen: list[tuple[str, str]] = []
    with reporting(lambda phase, detail: seen.append((phase, detail))):
        code, output = run_maven([str(mvn), f"-Dlib.dir={tmp_path / 'lib'}"], str(tmp_path),
                                 phase="fetch", timeout_s=60, tail_lines=3)
    assert code == 0
    details = [d for _, d in seen]
    assert details[0] == "starting Maven"
    assert details[1].startswith("12.5 MB in 1 files")
    assert details[2].startswith("13.1 MB in 2 files")
    assert details[-1].startswith("done: 13.1 MB in 3 files")
    assert output.count("\n") == 3  # the tail only


def test_a_maven_that_hangs_is_killed_at_the_timeout(tmp_path: Path) -> None:
    mvn = _fake_mvn(tmp_path, "#!/bin/sh\nexec sleep 60\n") / "mvn"
    started = time.monotonic()
    code, _ = run_maven([str(mvn)], str(tmp_path), phase="fetch", timeout_s=0.5,
                        tail_lines=3)
    assert code is None
    assert time.monotonic() - started < 30


def test_db_fetch_shows_progress_on_stderr_only(data_dir: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = _fake_mvn(tmp_path, FAKE_MVN)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    # a console narrower than the path: the folder is still printed on one line
    monkeypatch.setattr("graphmem.db.commands.console", Console(width=40))
    result = CliRunner().invoke(app, ["db", "fetch"])
    assert result.exit_code == 0, result.output
    assert "Fetching the Neo4j" in result.stderr
    assert "done: 13.1 MB in 3 files" in result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith("lib")  # stdout: the jar folder only


def test_the_server_start_reports_its_phases(tmp_path: Path) -> None:
    log = tmp_path / "launcher.log"
    seen: list[str] = []

    def launcher() -> None:
        time.sleep(1.3)
        log.write_text("Changed password for user 'neo4j'.\n", encoding="utf-8")
        time.sleep(1.3)
        with log.open("a", encoding="utf-8") as out:
            out.write("NEO4J_READY bolt://127.0.0.1:7999\n")

    thread = threading.Thread(target=launcher)
    thread.start()
    with reporting(lambda phase, detail: seen.append(detail)):
        uri = wait_ready(log, lambda: None, timeout_s=60)
    thread.join()
    assert uri == "bolt://127.0.0.1:7999"
    assert seen[0].startswith("starting the JVM")
    assert any(d.startswith("creating or opening the database") for d in seen)
    assert seen[-1].startswith("ready at bolt://127.0.0.1:7999")


