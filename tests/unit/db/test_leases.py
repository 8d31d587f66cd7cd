"""The lease rule and the state lock (graphmem.db.leases) without a server: which lease files
are live, that a lease appears whole, and that the lock is also a record lock (the one the
launcher's lease watch takes: tests/integration/server/test_lease_watch.py)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from graphmem.db import leases


def test_a_lease_is_live_only_while_its_process_runs(tmp_path: Path) -> None:
    folder = tmp_path / "server" / "leases"
    folder.parent.mkdir()
    mine = leases.write_lease(folder)
    assert mine.name.startswith(f"{os.getpid()}-")
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [mine.name]  # whole
    with subprocess.Popen([sys.executable, "-c", "pass"]) as dead:
        dead.wait()
    started = mine.read_text(encoding="ascii")
    for name, content in ((f"{os.getpid()}-reused", "1\n"), (f"{dead.pid}-dead", started),
                          (f"{os.getpid()}-blank", " \n"), ("notapid-0", started),
                          (f"+{os.getpid()}-signed", started), (f"0-{os.getpid()}", started)):
        (folder / name).write_text(content, encoding="ascii")
    (folder / f"{os.getpid()}-latin").write_bytes(started.encode() + b"\xe9")
    assert leases.live_leases(folder, remove_dead=False) == [mine]
    assert len(list(folder.iterdir())) == 8
    assert leases.live_leases(folder, remove_dead=True) == [mine]
    assert list(folder.iterdir()) == [mine]
    assert leases.live_leases(tmp_path / "none", remove_dead=True) == []


def test_the_state_lock_is_also_a_record_lock(tmp_path: Path) -> None:
    server_dir = tmp_path / "server"
    taken = threading.Event()
    with leases.server_lock(server_dir):
        with (server_dir / "lock").open("w") as other:
            try:
                fcntl.lockf(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as Java's FileChannel.lock
            except OSError:
                refused = True
            else:
                refused = False
        assert refused
        def take() -> None:
            with leases.server_lock(server_dir):
                taken.set()

        waiter = threading.Thread(target=take, daemon=True)
        waiter.start()
        time.sleep(0.3)
        assert not taken.is_set()  # another holder in this process waits too
    assert taken.wait(10)
    assert (server_dir.stat().st_mode & 0o777) == 0o700
