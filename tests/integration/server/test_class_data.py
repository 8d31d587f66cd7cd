"""The launcher's class-data archive (graphmem.db.class_data): once recorded, as
``graphmem db fetch`` does, every server the launcher starts maps it, including a server
whose jar folder is a link to the shared one (as the suite's per-test data folders have)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphmem.db.class_data import record_class_data
from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.launcher import NEO4J_VERSION
from tests.support.database import unavailable

pytestmark = pytest.mark.neo4j


def _mapped_archives(pid: int) -> set[str]:
    maps = Path(f"/proc/{pid}/maps").read_text(encoding="utf-8")
    return {line.split()[-1] for line in maps.splitlines() if line.endswith(".jsa")}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/maps")
def test_a_start_maps_the_recorded_archive(shared_lib_dir: Path, tmp_path: Path) -> None:
    archive = record_class_data(shared_lib_dir)  # at once when `db fetch` recorded it
    if archive is None:
        unavailable("no class-data archive could be recorded (is javac there?)")
        return
    assert record_class_data(shared_lib_dir) == archive  # recorded once
    linked = tmp_path / f"neo4j-{NEO4J_VERSION}" / "lib"
    linked.parent.mkdir()
    linked.symlink_to(shared_lib_dir, target_is_directory=True)
    for lib in (shared_lib_dir, linked):
        with EphemeralServer(lib_dir=lib, pagecache_mb=32, heap="512m") as server:
            assert str(archive) in _mapped_archives(server.pid)
            log = (server.home / "launcher.log").read_text(encoding="utf-8")
            assert "Unable to use shared archive" not in log
