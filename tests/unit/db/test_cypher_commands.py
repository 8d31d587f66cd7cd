"""``graphmem cypher list|show``: the catalogue's statements exactly as the store sends them,
without a database; an unknown name is a typed error naming the closest ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import build_app
from graphmem.db import catalogue
from graphmem.errors import GraphmemError, UnknownQueryError
from graphmem.terminal import EXIT_INPUT

ROOT = Path(__file__).resolve().parents[3]


def _graphmem(*args: str) -> subprocess.CompletedProcess[str]:
    """``graphmem ARGS`` in a new interpreter, with the modules it imported as the last line
    of stderr."""
    code = ("import sys, json, atexit\n"
            "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
            "from graphmem.cli import main\n"
            f"main({list(args)!r})\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60, check=False)


def test_show_prints_the_statement_exactly_as_sent_and_needs_no_database() -> None:
    done = _graphmem("cypher", "show", "write/new_batch")
    assert done.returncode == 0, done.stderr
    assert done.stdout == catalogue.statement("write/new_batch") + "\n"
    assert "{{" not in done.stdout and "$args.writes" in done.stdout
    note, modules = done.stderr.strip().rsplit("\n", 1)
    assert "$args.p" in note and "args = {slots, writes}" in note
    # lazy: only this command's modules, not the client nor the other commands'
    imported = set(json.loads(modules))
    assert "graphmem.db.cypher_commands" in imported
    assert not {"graphmem.client", "graphmem.db.commands", "graphmem.read.commands"} & imported


@pytest.mark.parametrize("name", ["candidates", "deletion/walk", "explain", "write/check"])
def test_show_and_list_agree_with_the_catalogue(name: str) -> None:
    app = build_app("cypher")
    shown = CliRunner().invoke(app, ["cypher", "show", name])
    assert shown.exit_code == 0
    assert shown.stdout == catalogue.statement(name) + "\n"
    listed = CliRunner().invoke(app, ["cypher", "list"])
    assert listed.exit_code == 0
    assert listed.stdout.split() == sorted(catalogue.names())
    assert name in listed.stdout.split()


@pytest.mark.parametrize(("name", "close"), [
    ("walk", "deletion/walk"), ("explian", "explain"), ("records/wirte", "records/write"),
    ("cypher/explain.cypher", "explain"), ("record_active", "candidates"),
])
def test_an_unknown_name_is_a_typed_error_naming_the_closest(name: str, close: str) -> None:
    with pytest.raises(UnknownQueryError) as raised:
        catalogue.sent(name)
    assert isinstance(raised.value, GraphmemError)
    assert close in raised.value.close and close in str(raised.value)
    assert repr(name) in str(raised.value)
    result = CliRunner().invoke(build_app("cypher"), ["cypher", "show", name])
    assert result.exit_code == EXIT_INPUT
    assert result.stdout == ""
    assert f"no Cypher query named {name!r}" in result.stderr and close in result.stderr


def test_a_name_far_from_every_query_points_to_the_list() -> None:
    with pytest.raises(UnknownQueryError, match="graphmem cypher list") as raised:
        catalogue.sent("zzzz")
    assert raised.value.close == ()
    assert raised.value.part is False
    with pytest.raises(UnknownQueryError, match="it is a part") as part:
        catalogue.sent("write_probe")
    assert part.value.close == ("write/check", "write/new", "write/new_batch")
