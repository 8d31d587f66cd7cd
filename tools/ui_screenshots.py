"""Take the screenshots of ``docs/ui.md`` again: every page of ``graphmem ui`` in headless
Chromium, on the northwind scenario, as the newcomer's path in the docs meets them.

Starts a throwaway Neo4j (:class:`graphmem.db.server.EphemeralServer`; no other database is
touched), loads the northwind scenario with ``graphmem scenario load northwind``, starts
``graphmem ui`` of this checkout for tenant ``acme`` as a privacy team would (the whole
tenant in reach, so a deletion's plan reaches every record it touches; clearance
confidential, the funnel and fault charts of ``docs/evaluation/report.json``), and writes one
1400 x 900 PNG per page into ``docs/img/`` (``ui-<page>.png``): home, records list, record
page, lineage explorer, retrieval, deletion form, deletion preview and reports. The browser is
Debian's ``chromium`` (or ``chromium-browser``/``google-chrome`` on PATH), driven through its
DevTools socket by :class:`tests.support.headless.Chromium`, name resolution off but for
127.0.0.1; a page that logs a console error or asks for anything outside 127.0.0.1 stops the
script.

Run from the repository root (Java, Maven and Chromium on PATH)::

    python tools/ui_screenshots.py [--out docs/img]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphmem.db.server import EphemeralServer  # noqa: E402
from tests.support.headless import Chromium, find_chromium  # noqa: E402

#: page name -> path; the record, its lineage and its deletion preview are of u-17's call
PAGES = {
    "home": "/",
    "records": "/records",
    "record": "/records/ep-u17-call",
    "lineage": "/lineage/ep-u17-call?direction=both&depth=3",
    "retrieval": "/retrieval?goal=how+should+we+contact+the+customer+about+the+"
                 "duplicate+charge&budget=2000",
    "deletion": "/deletion",
    "deletion-preview": "/deletion/plan?roots=ep-u17-call",
    "reports": "/reports",
}
PRINCIPAL = ["--tenant", "acme", "--clearance", "confidential"]


def _cli(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "from graphmem.cli import main; main()",
                             *args], env=env, cwd=ROOT, stdin=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(base + "/", timeout=30):
                return
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("graphmem ui did not start") from None
            time.sleep(0.2)


def shoot(base: str, out: Path, browser: Chromium) -> list[str]:
    """Load each page of :data:`PAGES` at ``base`` and write its screenshot into ``out``;
    the files written. Raises SystemExit when a page logs an error or leaves 127.0.0.1."""
    written = []
    for name, path in PAGES.items():
        browser.errors.clear()
        browser.requests.clear()
        browser.call("Page.navigate", url=base + path)
        browser.wait_for(f"document.readyState === 'complete' && "
                         f"location.pathname === {path.split('?')[0]!r}")
        if name == "lineage":
            browser.wait_for("window.graphmemLineage && window.graphmemLineage.ready")
            time.sleep(0.5)  # the fit animation
        outside = [u for u in browser.requests
                   if not u.startswith(base + "/") and not u.startswith("data:")]
        if browser.errors or outside:
            raise SystemExit(f"{path}: errors {browser.errors}, requests outside {outside}")
        target = out / f"ui-{name}.png"
        browser.screenshot(target)
        written.append(f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}"
                       f" ({target.stat().st_size // 1024} KB)")
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    binary = find_chromium()
    if binary is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with EphemeralServer() as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NEO4J_URI": server.uri,
               "NEO4J_PASSWORD": server.settings.password}
        if _cli("scenario", "load", "northwind", env=env).wait() != 0:
            raise SystemExit("graphmem scenario load northwind failed")
        port = _free_port()
        ui = _cli("ui", *PRINCIPAL, "--report", "docs/evaluation/report.json",
                  "--port", str(port), env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_until_up(base, ui)
            with Chromium(binary, loopback=True, timeout=60) as browser:
                for line in shoot(base, args.out, browser):
                    print(line)
        finally:
            ui.terminate()
            ui.wait(30)


if __name__ == "__main__":
    main()
