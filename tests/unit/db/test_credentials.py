"""The password file of the local server (``graphmem db start``): generated private to its
owner, or given by option or environment; no server started."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from graphmem.db import credentials
from graphmem.errors import DatabaseUnavailableError

# --------------------------------------------------------------------------- no Java needed


def test_generated_password_file_is_private(data_dir: Path) -> None:
    path = credentials.resolve_password_file()
    assert path == data_dir / "server" / "password"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    password = credentials.read_password(path)
    assert len(password) >= 32
    assert credentials.resolve_password_file() == path  # kept, not regenerated
    assert credentials.read_password(path) == password


def test_own_password_file_by_option_or_env(data_dir: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    mine = tmp_path / "mine"
    mine.write_text("first line only\r\nsecond line\n", encoding="utf-8")
    assert credentials.read_password(mine) == "first line only"
    assert credentials.resolve_password_file(mine) == mine
    monkeypatch.setenv(credentials.PASSWORD_FILE_ENV, str(mine))
    assert credentials.resolve_password_file() == mine
    assert not (data_dir / "server" / "password").exists()  # nothing generated
    monkeypatch.setenv(credentials.PASSWORD_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(DatabaseUnavailableError, match="does not exist"):
        credentials.resolve_password_file()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(DatabaseUnavailableError, match="empty"):
        credentials.read_password(tmp_path / "empty")


# --------------------------------------------------------------------------- real servers


