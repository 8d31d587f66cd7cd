"""``graphmem mcp`` configuration without a database: checked at start-up, read from
environment variables, MCP imported only by the command, and the command says how to
install the extra when it is missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphmem.integrations.mcp.config import ServerConfig


def test_config_is_checked_at_start_up() -> None:
    from graphmem import AuthorizationError, ValidationError

    with pytest.raises(ValidationError, match="tenant"):
        ServerConfig.build()
    with pytest.raises(ValidationError, match="clearance"):
        ServerConfig.build(tenants=["a"], clearance="secret")
    with pytest.raises(AuthorizationError):
        ServerConfig.build(tenants=["a"], scope={"tenant": "b"})
    config = ServerConfig.build(scope={"tenant": "a", "user": "u"})
    assert config.principal.tenants == frozenset({"a"})
    assert config.resolve_scope({"project": "p"}) == {"project": "p", "tenant": "a",
                                                      "user": "u"}


def _run_cli(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=120, check=False)


def test_importing_graphmem_does_not_import_mcp() -> None:
    done = _run_cli("import sys, graphmem, graphmem.cli\n"
                    "assert not [m for m in sys.modules if m == 'mcp' or "
                    "m.startswith('mcp.')], 'mcp imported'")
    assert done.returncode == 0, done.stderr


def test_without_the_extra_the_command_says_how_to_install_it() -> None:
    done = _run_cli("import sys\nsys.modules['mcp'] = None\n"
                    "from graphmem.cli import app\n"
                    "app(['mcp', '--tenant', 'acme'], prog_name='graphmem')")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "pip install 'graphmem[mcp]'" in done.stderr
    assert done.stdout == ""


def test_options_come_from_environment_variables() -> None:
    from typer.testing import CliRunner

    from graphmem.cli import app

    result = CliRunner().invoke(app, ["mcp"], env={
        "GRAPHMEM_MCP_TENANTS": "beta gamma", "GRAPHMEM_MCP_SCOPE": "tenant=alpha user=u-1"})
    assert result.exit_code == 2, result.output
    assert "'alpha'" in result.output and "beta, gamma" in result.output
    result = CliRunner().invoke(app, ["mcp", "--tenant", "a", "--scope", "user"])
    assert result.exit_code == 2 and "KEY=VALUE" in result.output
