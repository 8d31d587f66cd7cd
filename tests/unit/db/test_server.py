"""The local server's bookkeeping without starting one (graphmem.db.server): versions agree,
stale state is removed, settings resolve from the environment, a missing Maven is named, and
``graphmem db status`` exits 3 when nothing runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import server
from graphmem.errors import DatabaseUnavailableError

REPO = Path(__file__).resolve().parents[3]


# --------------------------------------------------------------------------- no Java needed


def test_versions_agree() -> None:
    pom = (server.launcher_dir() / "pom.xml").read_text(encoding="utf-8")
    match = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", pom)
    assert match is not None
    assert match.group(1) == server.NEO4J_VERSION
    compose = REPO / "docker" / "compose.yaml"
    if compose.is_file():
        assert f"image: neo4j:{server.NEO4J_VERSION}-community" in compose.read_text("utf-8")


def test_status_removes_stale_state(data_dir: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    state = data_dir / "server" / "state.json"
    state.parent.mkdir(parents=True)
    state.write_text(
        json.dumps({"uri": "bolt://127.0.0.1:1", "pid": dead.pid, "home": "/x", "port": 1})
    )
    assert server.status() is None
    assert not state.exists()
    assert server.stop() is False


def test_resolve_settings_prefers_env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example:7687")
    assert server.resolve_settings(start_if_needed=False).uri == "neo4j://db.example:7687"
    monkeypatch.delenv("NEO4J_URI")
    with pytest.raises(DatabaseUnavailableError, match="NEO4J_URI"):
        server.resolve_settings(start_if_needed=False)


def test_ensure_jars_without_maven_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools-here"))
    with pytest.raises(DatabaseUnavailableError, match=r"Maven .*JDK"):
        server.ensure_jars(tmp_path / "lib")
    assert not (tmp_path / "lib").exists()


def test_cli_db_status_exits_3_when_not_running(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["db", "status"])
    assert result.exit_code == 3, result.output
    assert "not running" in result.output


# --------------------------------------------------------------------------- real servers


