"""A data directory (``GRAPHMEM_DATA_DIR``) or server home that cannot be used is a
DatabaseUnavailableError from every function of graphmem.db.server that touches the files, and
one line with exit 3 from every command, never a raw OSError or a traceback
(graphmem.db.resilience.file_errors; docs/operations.md#where-neo4j-comes-from)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.db import server
from graphmem.db.ephemeral import EphemeralServer
from graphmem.errors import DatabaseUnavailableError

#: Every function graphmem.db.server exports, called as a client would; each touches the
#: data directory's files.
CALLS: dict[str, Callable[[], Any]] = {
    "clients": server.clients,
    "ensure_jars": server.ensure_jars,
    "lease": lambda: server.lease(start_if_needed=True),
    "resolve_settings": server.resolve_settings,
    "start": server.start,
    "status": server.status,
    "stop": server.stop,
    "stop_unused": server.stop_unused,
}
#: The calls that only read: a data directory that does not exist holds no server.
READS: dict[str, Any] = {"clients": 0, "status": None}
#: Exported names that are no calls on the data directory.
NOT_CALLS = {"NEO4J_VERSION", "EphemeralServer", "ServerInfo", "launcher_dir"}


def test_every_exported_function_is_covered() -> None:
    exported = {n for n in server.__all__ if inspect.isfunction(getattr(server, n))}
    assert exported - NOT_CALLS == set(CALLS), "add the new function to CALLS"


@pytest.fixture(params=["under a file", "unmakeable"])
def broken(request: pytest.FixtureRequest, data_dir: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """GRAPHMEM_DATA_DIR below a regular file, or a folder that cannot be made (and so holds
    nothing: reading it finds no server); ``data_dir`` again afterwards, for its cleanup."""
    if request.param == "under a file":
        blocker = data_dir.parent / "a-file"
        blocker.write_text("not a folder", encoding="utf-8")
        path = blocker / "data"
    else:
        path = Path("/proc/graphmem-data")  # /proc takes no new entries, even for root
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(path))
    yield str(request.param)
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(data_dir))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_broken_data_directory_is_a_typed_error(name: str, broken: str) -> None:
    if broken == "unmakeable" and name in READS:
        assert CALLS[name]() == READS[name]  # a folder that does not exist holds no server
        return
    with pytest.raises(DatabaseUnavailableError, match="cannot be used"):
        CALLS[name]()


def test_a_throwaway_server_home_that_is_a_file_is_a_typed_error(tmp_path: Path,
                                                                 data_dir: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder", encoding="utf-8")
    with pytest.raises(DatabaseUnavailableError, match="cannot be used"):
        EphemeralServer(home=home, lib_dir=tmp_path / "lib").start()


@pytest.mark.parametrize("args", [["db", "status"], ["db", "start"], ["db", "stop"],
                                  ["db", "fetch"], ["stats"], ["db", "start", "--home",
                                                               "/proc/graphmem-home"]])
def test_the_commands_exit_3_with_one_line(args: list[str], broken: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output and "Error:" not in result.output
    if broken == "under a file" or args[:2] != ["db", "status"]:
        assert "cannot be used" in result.output
