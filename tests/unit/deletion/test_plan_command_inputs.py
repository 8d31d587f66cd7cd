"""`graphmem delete plan` refuses bad usage before it connects: the same checks as
``plan_deletion`` (:func:`graphmem.deletion.plan.check_plan_inputs`), with no Neo4j started
or reached (docs/cli.md: exit 2, bad usage or bad input)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from graphmem.cli import app


@pytest.mark.parametrize(("args", "message"), [
    (["--reason", "x"], "exactly one of roots= or subject="),
    (["--root", "a", "--subject", "tenant=acme", "--reason", "x"], "exactly one of"),
    (["--root", "a", "--reason", ""], "reason"),
    (["--root", "a", "--reason", "x", "--redact", " "], "term"),
    (["--root", "a", "--reason", "x", "--request-id", "has space"], "request id"),
])
def test_bad_usage_exits_2_before_connecting(args: list[str], message: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")  # connecting would exit 3
    result = CliRunner().invoke(app, ["delete", "plan", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
