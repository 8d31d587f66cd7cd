"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_imports_only_the_ui_command() -> None:
    code = ("import sys; from graphmem.cli import build_app; build_app('ui'); "
            "print(sorted(m for m in sys.modules if m.startswith('graphmem.') and "
            "m.split('.')[1] in ('lineage', 'integrations', 'evaluation', 'demo', 'ui')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert eval(out) == ["graphmem.ui", "graphmem.ui.commands", "graphmem.ui.config"]
    assert "starlette" not in out
