"""``graphmem db start`` reports its phases on stderr, nothing on stdout (a real server)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db.launcher import free_port


def test_db_start_reports_its_phases_on_stderr(data_dir_with_jars: Path) -> None:
    port = free_port()
    result = CliRunner().invoke(app, ["db", "start", "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"bolt://127.0.0.1:{port}"  # stdout: the URI only
    assert "Starting Neo4j: starting the JVM" in result.stderr
    assert f"Starting Neo4j: ready at bolt://127.0.0.1:{port}" in result.stderr
