"""The command line as documented: every command is in the README and has help, the settings
are documented, and reports piped to a file are not cut to 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer
from typer.main import get_command
from typer.testing import CliRunner

from graphmem.cli import app


def test_reports_piped_to_a_file_are_not_cut_to_80_columns() -> None:
    """Found by a new user: `graphmem stats | cat` cut table cells ("dispositi…"). Reports
    written to a pipe get PIPED_WIDTH columns; COLUMNS, when set, still decides."""
    script = ("from rich.table import Table\n"
              "from graphmem.terminal import console\n"
              "t = Table('disposition of the record', 'reason given by the write policy')\n"
              "t.add_row('QUARANTINE' * 4, 'model inference without evidence ' * 2)\n"
              "console.print(t)\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    piped = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True, timeout=60).stdout
    assert "QUARANTINE" * 4 in piped and "disposition of the record" in piped
    assert "…" not in piped
    narrow = subprocess.run([sys.executable, "-c", script], env={**env, "COLUMNS": "40"},
                            capture_output=True, text=True, check=True, timeout=60).stdout
    assert max(len(line) for line in narrow.splitlines()) <= 40


README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands(command: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    sub = getattr(command, "commands", None)
    if not sub:
        return [prefix]
    out: list[tuple[str, ...]] = []
    for name, child in sub.items():
        out += _commands(child, (*prefix, name))
    return out


def test_every_command_is_in_the_readme_and_has_help() -> None:
    assert isinstance(app, typer.Typer)
    commands = _commands(get_command(app))
    assert ("demo",) in commands and ("db", "start") in commands
    runner = CliRunner()
    for words in commands:
        assert f"graphmem {' '.join(words)}" in README, f"README lacks `graphmem {' '.join(words)}`"
        result = runner.invoke(app, [*words, "--help"])
        assert result.exit_code == 0, (words, result.output)


def test_settings_are_documented() -> None:
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                 "GRAPHMEM_DATA_DIR", "GRAPHMEM_NORTHWIND", "GRAPHMEM_PASSWORD_FILE"):
        assert name in README, name
