"""The README and every page of docs/ are walkthroughs that run, top to bottom, in CI.

Every fenced code block of README.md and of each ``docs/**/*.md`` page runs here, page by
page (one test each), in file order, as a reader would run it, against the test session's
throwaway Neo4j (tests/conftest.py; the CLI and ``Memory.connect()`` reach it through
NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE), in a temporary working folder
of the page's own, shared by its blocks. The database is empty at the start of each page:
it holds what the page's own blocks put there (``graphmem scenario load northwind`` for
the walkthroughs). A page with no block to run needs no database.

The conventions of the blocks and their markers: tests/support/pages.py.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from tests.support.database import Neo4jUnderTest
from tests.support.pages import (
    PAGES,
    PYTHON,
    Block,
    blocks,
    page_name,
    shell_commands,
)

COMMAND_TIMEOUT_S = 300


# -- the conventions themselves (no database) ---------------------------------------------


def _runs_something(path: Path) -> bool:
    """Whether a page has a block to run (a page the parser refuses counts: its run fails)."""
    try:
        found = blocks(path.read_text(encoding="utf-8"), page_name(path))
    except ValueError:
        return True
    return any(b.skip_reason is None and not b.output for b in found)


# -- the walkthroughs -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [p for p in PAGES if _runs_something(p)], ids=page_name)
def test_the_page_runs_top_to_bottom(path: Path, memory: Memory, neo4j_db: Neo4jUnderTest,
                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = neo4j_db.settings
    env = {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
           "NEO4J_DATABASE": s.database, "COLUMNS": "120",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GRAPHMEM_NORTHWIND", raising=False)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    printed = ""
    for block in blocks(path.read_text(encoding="utf-8"), page_name(path)):
        if block.skip_reason is not None:
            continue
        if block.output:
            if _lines(printed) != _lines(block.source):
                pytest.fail(f"{block.where}: the page shows an output the block above does "
                            f"not print; it prints:\n{printed}", pytrace=False)
        elif block.lang in PYTHON:
            if not block.continues:
                namespace = {"__name__": "__readme__"}
            printed = _run_python(block, path, namespace)
        else:
            for line, command, expected in shell_commands(block):
                _run_shell(f"{block.page}:{line}", command, expected, tmp_path)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _run_python(block: Block, path: Path, namespace: dict[str, Any]) -> str:
    """Run a Python block of the page at ``path``; what it printed."""
    # padded so that tracebacks show the page's line numbers
    code = compile("\n" * block.line + block.source, str(path), "exec")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
    except Exception:
        pytest.fail(f"{block.where}: the Python block failed:\n{traceback.format_exc()}\n"
                    f"--- printed\n{out.getvalue()}", pytrace=False)
    return out.getvalue()


def _run_shell(where: str, command: str, expected: int, cwd: Path) -> None:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S, check=False)
    if done.returncode != expected:
        pytest.fail(f"{where}: `{command}` exited {done.returncode}, the page says "
                    f"{expected}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n"
                    f"{done.stderr[-4000:]}", pytrace=False)
