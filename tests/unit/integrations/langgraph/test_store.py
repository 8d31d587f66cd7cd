"""Importing graphmem does not import LangGraph (the adapter is an extra)."""

from __future__ import annotations

import subprocess
import sys

# -- parity scenarios -----------------------------------------------------------------


# -- graphmem-only behaviour ----------------------------------------------------------


def test_importing_graphmem_does_not_import_langgraph() -> None:
    code = "import sys, graphmem; sys.exit('langgraph' in ' '.join(sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


