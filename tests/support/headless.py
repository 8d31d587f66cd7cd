"""A headless Chromium driven over the DevTools protocol, for tests of HTML output.

Starts Debian's ``chromium`` with ``--remote-debugging-port=0`` and a throwaway profile,
talks to one page over a websocket (``websocket-client``), and records what the page logged
and requested: ``errors`` (uncaught exceptions, ``console.error``/``console.assert``, error
log entries such as a failed resource load) and ``requests`` (every URL the page asked for).
Hostname resolution is disabled, so nothing on the network can load even by accident.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import websocket

BINARIES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    """The path of a Chromium binary on PATH, or None."""
    for name in BINARIES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """One headless browser with one page; use as a context manager (it is always stopped)."""

    def __init__(self, binary: str, *, width: int = 1400, height: int = 900,
                 timeout: float = 30.0, loopback: bool = False) -> None:
        self.binary, self.width, self.height, self.timeout = binary, width, height, timeout
        #: let the page reach 127.0.0.1 (a server the test runs); every other name stays
        #: unresolvable
        self.loopback = loopback
        self.errors: list[str] = []
        self.requests: list[str] = []
        self._profile = tempfile.mkdtemp(prefix="graphmem-chromium-")
        self._next = 0
        self._proc: subprocess.Popen[str] | None = None
        self._ws: websocket.WebSocket | None = None
        self._session = ""
        self._drain: threading.Thread | None = None

    def __enter__(self) -> Chromium:
        self._proc = subprocess.Popen(
            [self.binary, "--headless", "--disable-gpu", "--no-sandbox",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--host-resolver-rules=MAP * ~NOTFOUND"
             + (", EXCLUDE 127.0.0.1" if self.loopback else ""),
             "--remote-debugging-port=0",
             f"--user-data-dir={self._profile}", f"--window-size={self.width},{self.height}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True)  # its helpers too are stopped as a group
        url = self._devtools_url()
        self._ws = websocket.create_connection(url, timeout=self.timeout, suppress_origin=True)
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target,
                                  flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height,
                  deviceScaleFactor=1, mobile=False)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._ws is not None:
            self._ws.close()
        if self._proc is not None:
            # The browser's helper processes (zygotes, GPU, crash handler) share its stderr:
            # one left running would keep the pipe open, and closing it here while the drain
            # thread reads would wait for that thread for ever. So the whole process group
            # goes, and the drain thread ends on EOF by itself (a daemon, bounded wait).
            self._signal_group(signal.SIGTERM)
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
            self._signal_group(signal.SIGKILL)
            if self._drain is not None:
                self._drain.join(timeout=10)
            if (self._drain is None or not self._drain.is_alive()) and self._proc.stderr:
                self._proc.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    def _signal_group(self, signum: int) -> None:
        assert self._proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signum)

    def _devtools_url(self) -> str:
        assert self._proc is not None and self._proc.stderr is not None
        found: list[str] = []
        stderr = self._proc.stderr

        def read() -> None:  # the browser's stderr, until it names its DevTools socket
            for line in stderr:
                match = re.search(r"DevTools listening on (ws://\S+)", line)
                if match:
                    found.append(match.group(1))
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(self.timeout)
        if not found:
            raise RuntimeError("chromium did not open its DevTools port")
        # keep draining stderr so the browser never blocks on a full pipe
        self._drain = threading.Thread(target=lambda: [None for _ in stderr], daemon=True)
        self._drain.start()
        return found[0]

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command (to the page once attached) and return its result."""
        assert self._ws is not None
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if self._session:
            message["sessionId"] = self._session
        self._ws.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout  # events may keep coming: bound the wait
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{method}: no reply in {self.timeout} s")
            reply = json.loads(self._ws.recv())
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply["result"]
                return result
            self._event(reply)

    def _event(self, event: dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description")
                               or details.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                        for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(f"{params['entry'].get('url', '')}: {params['entry']['text']}")
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])

    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event."""
        self.call("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited).

        Raises:
            RuntimeError: the expression threw.
        """
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("exception", {})
                               .get("description", "evaluation failed"))
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Poll a JavaScript expression until it is truthy; its value.

        Raises:
            TimeoutError: it stayed falsy (or kept throwing) for ``timeout`` seconds.
        """
        deadline = time.monotonic() + (timeout or self.timeout)
        last: Any = None
        while time.monotonic() < deadline:
            try:
                last = self.evaluate(expression)
            except RuntimeError as exc:
                last = exc
            else:
                if last:
                    return last
            time.sleep(0.1)
        raise TimeoutError(f"{expression!r} never held (last: {last!r})")

    def mouse(self, kind: str, x: float, y: float, *, pressed: bool = False) -> None:
        """One mouse event at page coordinates: ``kind`` is mouseMoved, mousePressed or
        mouseReleased; ``pressed`` holds the left button down during a move."""
        params: dict[str, Any] = {"type": kind, "x": x, "y": y}
        if kind != "mouseMoved" or pressed:
            params.update(button="left", buttons=1 if kind != "mouseReleased" else 0)
        if kind in ("mousePressed", "mouseReleased"):
            params["clickCount"] = 1
        self.call("Input.dispatchMouseEvent", **params)

    def screenshot(self, path: Path) -> bytes:
        """A PNG of the viewport, also written to ``path``."""
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data


def ci() -> bool:
    """True under CI (``CI=true``), where a missing browser fails instead of skipping."""
    return os.environ.get("CI", "").lower() == "true"
