"""A server's launch settings are checked before anything starts (graphmem.db.launch_settings):
every way to start one (``graphmem db start``, ``server.start``, ``EphemeralServer``, the
launcher's command line) refuses a bad port, page cache or heap with a ValidationError, and
the CLI exits 2 with the reason instead of a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import launcher, server
from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.launch_settings import (
    MAX_HEAP_BYTES,
    MIN_HEAP_BYTES,
    check_launch,
    heap_bytes,
    heap_flags,
)
from graphmem.errors import ValidationError

BAD: list[dict[str, Any]] = [
    {"port": 0}, {"port": -1}, {"port": 65536}, {"port": 10**30}, {"port": True},
    {"port": "7687"}, {"pagecache_mb": 0}, {"pagecache_mb": -5}, {"pagecache_mb": 2**40},
    {"pagecache_mb": 1.5}, {"heap": "foo"}, {"heap": ""}, {"heap": "0g"}, {"heap": "1x"},
    {"heap": "64m"}, {"heap": "2t"}, {"heap": "9" * 40 + "g"}, {"heap": "-1g"},
    {"heap": " 1g"}, {"heap": "1g\n"}, {"heap": "\uff11g"},
]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_a_bad_setting_is_a_validation_error_everywhere(bad: dict[str, Any],
                                                        data_dir: Path) -> None:
    settings: dict[str, Any] = {"port": None, "pagecache_mb": 256, "heap": "1g", **bad}
    with pytest.raises(ValidationError):
        check_launch(**settings)
    with pytest.raises(ValidationError):
        EphemeralServer(**settings)
    with pytest.raises(ValidationError):
        server.start(**settings)
    port = 7687 if settings["port"] is None else settings["port"]
    with pytest.raises(ValidationError):
        launcher.launcher_command(data_dir, data_dir, **{**settings, "port": port},
                                  detached=True)
    assert server.status() is None  # nothing was started


@pytest.mark.parametrize("args", [["--heap", "foo"], ["--port", "99999"], ["--port", "0"],
                                  ["--pagecache-mb", "-5"], ["--heap", "0g"]])
def test_the_command_exits_2_with_the_reason(args: list[str], data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["db", "start", *args])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "must" in result.output
    assert server.status() is None


@given(st.integers(min_value=128, max_value=1 << 20), st.sampled_from(["m", "M"]))
def test_sizes_in_range_are_taken_as_the_jvm_reads_them(mib: int, unit: str) -> None:
    heap = f"{mib}{unit}"
    assert heap_bytes(heap) == mib << 20
    assert heap_flags(heap)[-1] == f"-Xmx{heap}"
    assert heap_flags(heap)[0] == (f"-Xms{heap}" if mib < 512 else "-Xms512m")


def test_the_bounds_are_inclusive() -> None:
    assert heap_bytes("128m") == MIN_HEAP_BYTES
    assert heap_bytes("1t") == heap_bytes("1024g") == MAX_HEAP_BYTES
    with pytest.raises(ValidationError):
        heap_bytes(f"{MIN_HEAP_BYTES - 1}")
    check_launch(port=1, pagecache_mb=8, heap="128m")
    check_launch(port=65535, pagecache_mb=1 << 20, heap="1t")
