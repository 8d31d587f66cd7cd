"""`graphmem demo` through the CLI, as a user runs it (exit code asserted)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from tests.support.database import Neo4jUnderTest
from tests.support.northwind import scenario_dir


def test_demo_json_reports_every_expectation_holding(
    memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = neo4j_db.settings
    for key, value in {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
                       "NEO4J_DATABASE": s.database}.items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()
    result = runner.invoke(app, ["demo", "--json", "--scenario", str(scenario_dir())])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["failures"] == []
    dispositions = {w["id"]: w["disposition"] for w in report["writes"]}
    assert dispositions.pop("web-poison") == "QUARANTINE"
    assert set(dispositions.values()) == {"PERSIST"}
    by_id = {q["id"]: q for q in report["queries"]}
    assert by_id["q-cross-tenant"]["error"].startswith("authorization")
    assert by_id["q-no-trigger"]["triggered"] is False
    refund = by_id["q-refund"]
    assert refund["conflicts"][0]["key"] == "refund_manual_approval_threshold_eur"
    assert [i["ok"] for i in report["intentions"]] == [True, True, True]

    # a second run finds the database non-empty and refuses without --wipe
    again = runner.invoke(app, ["demo", "--scenario", str(scenario_dir())])
    assert again.exit_code == 2
    assert "not empty" in again.output


def test_demo_fails_on_a_broken_expectation(
    memory: Memory, neo4j_db: Neo4jUnderTest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    s = neo4j_db.settings
    monkeypatch.setenv("NEO4J_URI", s.uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.password)
    folder = tmp_path / "northwind"
    folder.mkdir()
    for name in ("records.jsonl", "operations.jsonl", "intentions.jsonl"):
        (folder / name).write_text((scenario_dir() / name).read_text())
    text = (scenario_dir() / "queries.jsonl").read_text()
    queries = [json.loads(line) for line in text.splitlines() if line.strip()]
    queries[0]["expect"]["must_exclude"]["pol-refund-v1"] = "EXPIRED"  # wrong on purpose
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    result = CliRunner().invoke(app, ["demo", "--json", "--wipe", "--scenario", str(folder)])
    assert result.exit_code == 1
    assert any("pol-refund-v1 is SUPERSEDED, expected EXPIRED" in f
               for f in json.loads(result.stdout)["failures"])


def _processes_naming(text: str) -> list[int]:
    """Pids of the processes whose command line holds ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_sigterm_ends_the_demo_with_nothing_left(data_dir_with_jars: Path,
                                                 tmp_path: Path) -> None:
    """SIGTERM (``timeout``, ``kill``) ends the command as Ctrl-C does: its throwaway server
    stops and its folder goes (README: the demo leaves nothing behind); exit status 143."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    demo = subprocess.Popen([sys.executable, "-m", "graphmem.cli", "demo"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 180
        while not any(tmp.glob("graphmem-neo4j-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert any(tmp.glob("graphmem-neo4j-*")), "the demo made no throwaway home"
        time.sleep(2)  # the server starting or the demo running: both must let go of it
        demo.send_signal(signal.SIGTERM)
        _, err = demo.communicate(timeout=120)
        assert demo.returncode == 128 + signal.SIGTERM, err
        assert b"Traceback" not in err
        assert not list(tmp.iterdir()), "the demo left its throwaway home"
        assert not _processes_naming(str(tmp)), "the demo left its server running"
    finally:
        if demo.poll() is None:
            demo.kill()
        for pid in _processes_naming(str(tmp)):
            os.kill(pid, signal.SIGKILL)
