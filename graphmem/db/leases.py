"""The leases on a local server that a command or ``Memory.connect()`` started for itself, and
the lock that orders every change to that server (:mod:`graphmem.db.server`).

A folder ``server/`` of the data directory holds:

* ``lock``: taken around every start, lease, release and stop (:func:`server_lock`). It is
  held as a BSD lock (``flock``) and as an open-file-description record lock, so that both
  earlier graphmem versions (``flock`` only) and the launcher's lease watch (Java takes
  POSIX record locks, which conflict with the latter) wait for it.
* ``state.json``: the recorded server (:mod:`graphmem.db.server`).
* ``leases/``: one file per client using a server it did not ask to keep. The rule below is
  the only one: ``docker/Launcher.java`` (``--lease-dir``) applies it to stop such a server
  within seconds of its last client's death, even a SIGKILL, and
  :func:`graphmem.db.server.lease` applies it when a client releases.

A lease file is named ``<pid>-<random hex>`` and holds one line: the start time of process
``pid`` as ``/proc/<pid>/stat`` gives it (its 22nd field, clock ticks since boot; fields are
counted after the last ``)``, which ends the command name). A lease is *live* when the
name's part before the first ``-`` is a positive decimal pid, the file's stripped ASCII
content is not empty, and that process now exists with that start time; otherwise (its
process died, or a later process reused the pid, or the file is unreadable) it is dead.
Lease files appear whole: each is written beside the folder and renamed into it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import struct
from collections.abc import Iterator
from pathlib import Path

__all__ = ["live_leases", "process_start", "server_lock", "write_lease"]

# struct flock of 64-bit Linux: l_type, l_whence, l_start, l_len, l_pid (0 for an
# open-file-description lock), padded to its size
_FLOCK = struct.Struct("hhqqi0q")
_OFD_LOCKS = hasattr(fcntl, "F_OFD_SETLKW") and _FLOCK.size == 32


def _record_lock(fd: int, kind: int) -> None:
    """Take (waiting) or drop the whole-file write record lock of ``fd``: per open file
    description where Linux has it, like ``flock``; else a per-process POSIX lock."""
    if _OFD_LOCKS:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, _FLOCK.pack(kind, os.SEEK_SET, 0, 0, 0))
    else:
        fcntl.lockf(fd, fcntl.LOCK_EX if kind == fcntl.F_WRLCK else fcntl.LOCK_UN)


@contextlib.contextmanager
def server_lock(server_dir: Path) -> Iterator[None]:
    """Hold ``server_dir/lock`` (see the module docstring), creating the folder (mode 0700:
    state, password file and store are the owner's only).

    Args:
        server_dir: the ``server/`` folder of the data directory.

    Raises:
        OSError: the folder or its lock file cannot be created or opened.
    """
    server_dir.mkdir(parents=True, exist_ok=True)
    server_dir.chmod(0o700)
    with (server_dir / "lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            _record_lock(fh.fileno(), fcntl.F_WRLCK)
            try:
                yield
            finally:
                _record_lock(fh.fileno(), fcntl.F_UNLCK)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from /proc), or None when it
    does not exist (or /proc cannot tell); see the module docstring."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def _is_live(path: Path) -> bool:
    head = path.name.split("-", 1)[0]
    if not (head.isascii() and head.isdecimal()):
        return False
    try:
        started = path.read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        return False
    pid = int(head)
    return pid > 0 and bool(started) and process_start(pid) == started


def live_leases(leases_dir: Path, *, remove_dead: bool) -> list[Path]:
    """The lease files of ``leases_dir`` that are live (see the module docstring).

    Args:
        leases_dir: the ``leases/`` folder (may not exist: no lease).
        remove_dead: delete the dead ones; only under :func:`server_lock`.

    Returns:
        the live lease files, sorted by name.
    """
    live: list[Path] = []
    with contextlib.suppress(FileNotFoundError):
        for path in sorted(leases_dir.iterdir()):
            if _is_live(path):
                live.append(path)
            elif remove_dead:
                path.unlink(missing_ok=True)
    return live


def write_lease(leases_dir: Path) -> Path:
    """Record a lease of this process in ``leases_dir`` (created, mode 0700), under
    :func:`server_lock`. The file is written beside the folder and renamed in whole.

    Returns:
        the lease file (unlinking it ends the lease).

    Raises:
        OSError: the file cannot be written.
    """
    leases_dir.mkdir(mode=0o700, exist_ok=True)
    name = f"{os.getpid()}-{secrets.token_hex(8)}"
    part = leases_dir.parent / f".lease-{name}"
    part.write_text(f"{process_start(os.getpid())}\n", encoding="ascii")
    os.replace(part, leases_dir / name)
    return leases_dir / name
