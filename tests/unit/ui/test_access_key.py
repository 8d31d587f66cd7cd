"""The inspector's access key middleware (graphmem.ui.access): the address holding the key
leads to the same page without it, its path as the browser sent it."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import unquote

from graphmem.ui.access import AccessKey

KEY = "k3y"


async def _unused(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("a request with the key in its address is redirected, not served")


def _location(raw_path: bytes, query: bytes) -> str:
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    path = raw_path.decode("ascii")
    scope = {"type": "http", "method": "GET", "path": unquote(path), "raw_path": raw_path,
             "query_string": query, "headers": [(b"host", b"127.0.0.1:8765")],
             "scheme": "http", "server": ("127.0.0.1", 8765), "root_path": ""}
    asyncio.run(AccessKey(_unused, key=KEY)(scope, receive, send))
    start = sent[0]
    assert start["status"] == 303
    location: bytes = dict(start["headers"])[b"location"]
    return location.decode("latin-1")


def test_the_key_leads_to_the_page_it_was_given_with() -> None:
    """A record id holding ``?``, ``#``, ``%`` or ``/`` is sent quoted; the redirect after
    the key keeps it as sent (``p%2525q``, the record ``p%25q``, led to the record ``p%q``),
    and never to another host."""
    for raw in (b"/records/x%3Fy", b"/records/a%23b", b"/records/p%2525q", b"/records/u%2Fv",
                b"/lineage/%D0%B6-1"):
        assert _location(raw, b"key=" + KEY.encode()) == raw.decode()
        assert _location(raw, b"at=2026-01-05T10%3A00&key=" + KEY.encode()) == (
            raw.decode() + "?at=2026-01-05T10%3A00")
    assert _location(b"//elsewhere.example/x", b"key=" + KEY.encode()) == "/elsewhere.example/x"
