"""Every command that writes a file (``-o``, ``--chart``, ``eval all --out``) checks the path
before any work: an unwritable path or an unknown extension is exit 2 with a one-line
message and no traceback; help texts are plain (no markup accidents, no ``<bool>``);
``graphmem --version``. No database is needed: the check comes first."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from graphmem.cli import app, graphmem_version
from graphmem.terminal import EXIT_INPUT, output_problem, writing

OUTPUT_OPTIONS = ("-o", "--chart", "--out")


@pytest.fixture(autouse=True)
def _no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that got past its output check would fail fast (nothing listens here)
    instead of starting or using a server."""
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:9")


def _commands(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    sub = getattr(command, "commands", None)
    if not sub:
        return [(prefix, command)]
    out: list[tuple[tuple[str, ...], Any]] = []
    for name, child in sub.items():
        out += _commands(child, (*prefix, name))
    return out


COMMANDS = _commands(get_command(app))
WRITERS = [(words, opt) for words, cmd in COMMANDS for p in cmd.params
           if p.param_type_name == "option" for opt in p.opts if opt in OUTPUT_OPTIONS]


def test_the_commands_that_write_files_are_all_found() -> None:
    names = {" ".join(words) for words, _ in WRITERS}
    assert {"stats", "explain", "history", "retrieve", "import", "lineage", "demo",
            "delete plan", "delete apply", "delete verify", "eval faults", "eval northwind",
            "eval all"} <= names
    assert ("eval faults", "--chart") in {(" ".join(w), o) for w, o in WRITERS}


def _arguments(command: Any, existing: Path) -> list[str]:
    """A value for each positional argument (an existing file satisfies every kind)."""
    return [str(existing) for p in command.params if p.param_type_name == "argument"]


@pytest.mark.parametrize(("words", "option"), WRITERS,
                         ids=[f"{' '.join(w)} {o}" for w, o in WRITERS])
@pytest.mark.parametrize("where", ["missing folder", "a folder", "a file as folder"])
def test_unwritable_output_is_exit_2_with_one_line(words: tuple[str, ...], option: str,
                                                   where: str, tmp_path: Path) -> None:
    existing = tmp_path / "input.jsonl"
    existing.write_text("", encoding="utf-8")
    target = {"missing folder": tmp_path / "nonexistent" / "x.json",
              "a folder": tmp_path,
              "a file as folder": existing / "x.json"}[where]
    if option == "--chart":
        target = target.with_suffix(".png") if target != tmp_path else target
    if option == "--out" and where == "a folder":
        target = existing  # a file where a folder is needed
    command = dict(COMMANDS)[words]
    result = CliRunner().invoke(app, [*words, option, str(target),
                                      *_arguments(command, existing)])
    assert result.exit_code == EXIT_INPUT, (words, option, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert str(target) in lines[0]
    assert result.stdout == ""
    assert not (tmp_path / "nonexistent").exists()


def test_the_issue_example_through_the_console_script(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "graphmem.cli", "stats", "--tenant", "acme",
                           "-o", "/nonexistent/x.json"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == EXIT_INPUT
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: cannot write /nonexistent/x.json: the folder "
                                   "/nonexistent does not exist")


@pytest.mark.parametrize("name", ["x.pdf", "x.docx", "x.JSONL", "x.jpg"])
def test_lineage_refuses_an_extension_that_names_no_format(name: str, tmp_path: Path) -> None:
    target = tmp_path / name
    result = CliRunner().invoke(app, ["lineage", "r1", "-o", str(target)])
    assert result.exit_code == EXIT_INPUT
    assert "names no format" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not target.exists()


@pytest.mark.parametrize("name", ["chart.txt", "chart"])
def test_a_chart_needs_a_picture_extension(name: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "faults", "--chart", str(tmp_path / name)])
    assert result.exit_code == EXIT_INPUT
    assert ".png" in result.stderr


def test_the_check_leaves_no_file_behind_and_keeps_existing_ones(tmp_path: Path) -> None:
    fresh = tmp_path / "new.json"
    assert output_problem(fresh) is None
    assert not fresh.exists()
    kept = tmp_path / "old.json"
    kept.write_text("keep me", encoding="utf-8")
    assert output_problem(kept) is None
    assert kept.read_text(encoding="utf-8") == "keep me"
    assert output_problem(tmp_path / "sub", folder=True) is None
    assert output_problem(tmp_path / "no" / "sub", folder=True) is not None


def test_a_write_that_fails_late_is_exit_2() -> None:
    with pytest.raises(typer.Exit) as caught, writing(Path("/x")):
        raise PermissionError(13, "Permission denied")
    assert caught.value.exit_code == EXIT_INPUT


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"graphmem {graphmem_version()}"
    assert re.fullmatch(r"graphmem \d+\.\d+\S*", result.stdout.strip())


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("words", [w for w, _ in COMMANDS], ids=" ".join)
def test_help_shows_every_text_as_written_and_no_bool(words: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*words, "--help"], terminal_width=400)
    assert result.exit_code == 0
    shown = _flat(result.stdout)
    assert "<bool>" not in shown
    command = dict(COMMANDS)[words]
    for param in command.params:
        text = getattr(param, "help", None)
        if text:
            assert _flat(text) in shown, (words, param.name)


def test_lineage_help_keeps_the_extra_in_brackets() -> None:
    result = CliRunner().invoke(app, ["lineage", "--help"], terminal_width=400)
    assert "pip install 'graphmem[html]'" in result.stdout


@pytest.mark.parametrize("name", ["missing/x.json", "file.txt/x.json"])
def test_the_evaluation_writers_raise_typed_errors(tmp_path: Path, name: str) -> None:
    from graphmem.errors import ValidationError
    from graphmem.evaluation.report import write_json

    (tmp_path / "file.txt").write_text("", encoding="utf-8")
    (tmp_path / "missing").write_text("a file where a folder is needed", encoding="utf-8")
    with pytest.raises(ValidationError, match="cannot write"):
        write_json(tmp_path / name, {"a": 1})


def test_each_command_is_sized_by_the_columns_it_runs_with(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The report console was sized once, when graphmem.terminal was imported: a process
    that ran several commands (CliRunner, a parallel test worker whose COLUMNS=80 came from
    its start-up) cut every later command's tables to that width. Each command now takes the
    COLUMNS of its own run; piped with none, PIPED_WIDTH."""
    from graphmem import terminal

    before = terminal.console.width
    try:
        monkeypatch.setenv("COLUMNS", "40")
        CliRunner().invoke(app, ["cypher", "list"])
        assert terminal.console.width == 40
        monkeypatch.setenv("COLUMNS", "133")
        terminal.fit_consoles()
        assert terminal.console.width == 133
        monkeypatch.delenv("COLUMNS")
        monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
        terminal.fit_consoles()
        assert terminal.console.width == terminal.PIPED_WIDTH
    finally:
        terminal.console.width = before
