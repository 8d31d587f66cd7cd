"""A command that would draw a chart where matplotlib is not installed ends before any work
(docs/cli.md: output is checked before any work; exit 2 means nothing was written)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_RUN = """
import importlib.util, sys
found = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "matplotlib" else found(name, *a)
sys.modules["matplotlib"] = None  # as if it were not installed
from graphmem.cli import app
app({args!r})
"""


@pytest.mark.parametrize("args", [
    ["eval", "faults", "--json", "-o", "{tmp}/f.json", "--chart", "{tmp}/f.png"],
    ["eval", "northwind", "-o", "{tmp}/f.json", "--chart", "{tmp}/f.png"],
    ["eval", "all", "--out", "{tmp}/report"],
])
def test_no_matplotlib_is_a_usage_error_before_any_work(args: list[str], tmp_path: Path
                                                       ) -> None:
    argv = [a.format(tmp=tmp_path) for a in args]
    env = {**os.environ, "NEO4J_URI": "bolt://127.0.0.1:1"}  # any work would exit 3
    done = subprocess.run([sys.executable, "-c", _RUN.format(args=argv)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "charts need matplotlib: pip install 'graphmem[charts]'" in output
    assert not list(tmp_path.rglob("*.json")) and not list(tmp_path.rglob("*.png"))
