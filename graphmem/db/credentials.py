"""The local server's password: authentication is on, with a random password
generated at first start and kept in a file only its owner can read.

Which file, first that applies:

1. ``graphmem db start --password-file FILE`` (also ``start(password_file=...)``);
2. ``GRAPHMEM_PASSWORD_FILE``: a file you manage yourself (it must exist);
3. ``data_dir()/server/password``, created at first start with 32 random URL-safe characters,
   mode 0600 in a 0700 directory.

The password is the file's first line without its line ending (``Launcher.java`` reads it the
same way). The file's path, never the password, is recorded in the server's state file, so
``Memory.connect()``, the CLI and ``graphmem db status`` find it. ``NEO4J_PASSWORD`` is only for
a server named by ``NEO4J_URI``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from graphmem.db.settings import data_dir
from graphmem.errors import DatabaseUnavailableError

__all__ = [
    "PASSWORD_FILE_ENV",
    "default_password_file",
    "generate_password_file",
    "read_password",
    "resolve_password_file",
]

PASSWORD_FILE_ENV = "GRAPHMEM_PASSWORD_FILE"
_GENERATED_BYTES = 24  # 32 URL-safe characters; Neo4j 5 wants at least 8


def default_password_file() -> Path:
    """Where ``graphmem db start`` keeps the generated password: ``data_dir()/server/password``."""
    return data_dir() / "server" / "password"


def generate_password_file(path: Path) -> Path:
    """Create ``path`` holding a new random password, mode 0600 (parents 0700), unless it
    exists already (a concurrent creator wins; its password is kept).

    Returns:
        ``path``.

    Raises:
        DatabaseUnavailableError: the file cannot be created.
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path
    except OSError as exc:
        raise DatabaseUnavailableError(f"cannot create the password file {path}: "
                                       f"{exc.strerror}") from exc
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(secrets.token_urlsafe(_GENERATED_BYTES) + "\n")
    return path


def resolve_password_file(explicit: Path | None = None) -> Path:
    """The password file for starting the local server (see the module docstring for the
    order); the default one is generated if missing, and its mode tightened to 0600.

    Raises:
        DatabaseUnavailableError: an explicit or ``GRAPHMEM_PASSWORD_FILE`` file does not exist,
            or the default one cannot be created.
    """
    chosen = explicit or (Path(os.environ[PASSWORD_FILE_ENV])
                          if os.environ.get(PASSWORD_FILE_ENV) else None)
    if chosen is not None:
        chosen = chosen.absolute()
        if not chosen.is_file():
            raise DatabaseUnavailableError(f"password file {chosen} does not exist")
        return chosen
    path = generate_password_file(default_password_file())
    with contextlib.suppress(OSError):
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)
    return path


def read_password(path: Path) -> str:
    """The password in ``path``: its first line, without the line ending.

    Raises:
        DatabaseUnavailableError: the file cannot be read, or its first line is empty.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatabaseUnavailableError(f"cannot read the Neo4j password file {path}: "
                                       f"{type(exc).__name__}") from exc
    password = text.split("\n", 1)[0].removesuffix("\r")
    if not password:
        raise DatabaseUnavailableError(f"the Neo4j password file {path} is empty")
    return password
