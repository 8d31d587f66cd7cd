"""Maven, run with its progress reported: the jar fetch of the first run downloads about
150 MB, which takes minutes on a slow link, and used to print nothing meanwhile."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections import deque

from graphmem.db.progress import megabytes, report

__all__ = ["run_maven"]

# "Downloaded from central: https://.../x.jar (2.3 MB at 4.5 MB/s)"
_DOWNLOADED_RE = re.compile(r"^Downloaded from \S+: \S+ \((\d+(?:\.\d+)?) (B|kB|KB|MB|GB)")
_UNITS = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def run_maven(cmd: list[str], cwd: str, *, phase: str, timeout_s: float, tail_lines: int
              ) -> tuple[int | None, str]:
    """Run Maven (``cmd``, not quiet, in batch mode) in ``cwd``, reporting the bytes it has
    downloaded so far under ``phase`` (:mod:`graphmem.db.progress`), from its "Downloaded
    from ..." lines.

    Args:
        timeout_s: Maven is killed after this many seconds. tail_lines: output kept.

    Returns:
        (exit code, or None when it timed out; the last ``tail_lines`` lines of its output).
    """
    started = time.monotonic()
    report(phase, "starting Maven")
    timed_out = threading.Event()
    tail: deque[str] = deque(maxlen=tail_lines)
    fetched, files = 0.0, 0
    with subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace") as proc:

        def kill() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout_s, kill)
        timer.daemon = True
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                tail.append(line)
                match = _DOWNLOADED_RE.match(line)
                if match is not None:
                    fetched += float(match.group(1)) * _UNITS[match.group(2)]
                    files += 1
                    report(phase, f"{megabytes(fetched)} in {files} files, "
                                  f"{time.monotonic() - started:.0f} s")
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
        code = proc.wait()
    if timed_out.is_set():
        return None, "".join(tail)
    report(phase, f"done: {megabytes(fetched)} in {files} files, "
                  f"{time.monotonic() - started:.0f} s")
    return code, "".join(tail)
