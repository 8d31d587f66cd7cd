"""`graphmem mcp` on an install without the ``[mcp]`` extra: a one-line usage error naming
the extra (docs/integrations/mcp.md), whichever of the extra's modules the server imports
first is the one missing; never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

_RUN = """
import sys
sys.modules[{module!r}] = None  # as if it were not installed
from graphmem.cli import app
app(["mcp", "--tenant", "acme"])
"""


@pytest.mark.parametrize("module", ["mcp", "anyio", "starlette"])
def test_a_missing_module_of_the_extra_is_a_usage_error(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", _RUN.format(module=module)],
                          capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "needs the MCP SDK" in output and "pip install 'graphmem[mcp]'" in output
    assert "Traceback" not in output
