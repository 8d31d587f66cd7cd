"""``graphmem lineage ID --format html`` needs ``--output`` and the ``html`` extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app


def test_html_needs_output_and_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    runner = CliRunner()
    result = runner.invoke(app, ["lineage", "fact-retry-bug", "--format", "html"])
    assert result.exit_code == 2
    monkeypatch.setitem(sys.modules, "bokeh", None)  # as if the html extra were missing
    result = runner.invoke(app, ["lineage", "fact-retry-bug", "--format", "html", "-o",
                                 "never-written.html"])
    assert result.exit_code == 2
    assert "pip install 'graphmem[html]'" in result.output
    assert not Path("never-written.html").exists()


