"""The read commands' caller options (graphmem/read/commands.py): a tenant the principal model
refuses is a usage error on one line, never a traceback (no database is reached)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from graphmem.cli import app


@pytest.mark.parametrize("command", [["explain", "rec-1"], ["retrieve", "--goal", "plan"]])
def test_an_empty_tenant_is_a_usage_error(command: list[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    result = CliRunner().invoke(app, [*command, "--tenant", ""])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "error:" in result.output and "tenant" in result.output
    assert "Traceback" not in result.output and "pydantic" not in result.output
