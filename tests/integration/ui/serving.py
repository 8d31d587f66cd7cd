"""Runs the inspector on a free loopback port for one test, and the small store it shows."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import uvicorn

from graphmem.client import Memory
from graphmem.ui.app import create_app
from graphmem.ui.config import UiConfig

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CONFINED = {"tenant": "acme", "user": "u-17"}

#: Every page that takes a record id, given another user's (or none's), as an edited URL.
ID_PATHS = [
    "/records/bob-1", "/records/bob-1?at=2026-01-05T09:00", "/lineage/bob-1",
    "/api/lineage/bob-1?direction=up&depth=1", "/export/lineage/bob-1?format=json",
    "/export/lineage/bob-1?format=mermaid", "/export/lineage/pref-1?format=json&view=bob-1:both:1",
    "/records/nobody", "/deletion/plan?roots=bob-1", "/deletion/plan?roots=pref-1+bob-1",
    "/records/" + urllib.parse.quote("bob-1/../bob-1", safe=""),
]


@contextmanager
def running(memory: Memory, config: UiConfig) -> Iterator[str]:
    """The inspector over ``memory`` for ``config``, served on 127.0.0.1 while the block runs
    (stopped and joined after, whatever happens); yields its base URL."""
    app = create_app(memory, config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the inspector did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)
        sock.close()
        assert not thread.is_alive(), "the inspector did not stop"


@dataclass
class Answer:
    """One HTTP answer: status and body text."""

    status: int
    body: str
    headers: dict[str, str]

    def json(self) -> Any:
        return json.loads(self.body)


def fetch(url: str, *, form: dict[str, str] | None = None,
          headers: dict[str, str] | None = None) -> Answer:
    """GET ``url`` (POST ``form`` when given), following no redirect; any status."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(_NoRedirect)
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with opener.open(request, timeout=60) as reply:
            return Answer(reply.status, reply.read().decode(), dict(reply.headers))
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, exc.read().decode(), dict(exc.headers))


def record(rid: str, content: str, *, user: str | None = "u-17", minutes: int = 0,
           **fields: Any) -> dict[str, Any]:
    """A record of tenant acme (of ``user`` unless None: tenant-wide)."""
    scope = {"tenant": "acme", **({"user": user} if user else {})}
    return {"id": rid, "kind": "semantic", "content": content, "scope": scope,
            "created_at": T0 + timedelta(minutes=minutes), **fields}


def small_store(memory: Memory) -> None:
    """Two users' records, a derivation, a conflict and a tenant-wide note."""
    memory.put_many([
        record("ep-1", "Alice said she drinks tea every morning", kind="episodic",
               provenance={"source": "chat", "turn": "4"}),
        record("pref-1", "Alice prefers tea", derived_from=["ep-1"], minutes=1,
               asserts="drink", asserted_value="tea"),
        record("pref-2", "Alice prefers coffee", minutes=2, asserts="drink",
               asserted_value="coffee", authority="human_instruction"),
        record("bob-1", "Bob's private note: the door code is 4411", user="u-18", minutes=3),
        record("wide-1", "The office opens at nine", user=None, minutes=4),
    ])
