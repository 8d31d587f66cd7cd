"""Every CLI command is documented in the README (datasette's discipline), and every
command answers --help with exit code 0."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.main import get_command
from typer.testing import CliRunner

from graphmem.cli import app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


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
