"""The inspector's access key (graphmem.ui.access; docs/ui.md#errors-and-safety): with a key,
no page, API answer, export or static file is served to a request that does not hold it; the
address ``graphmem ui`` prints sets the cookie once and leads to the page without the key;
a wrong key, or another inspector's cookie, is refused."""

from __future__ import annotations

import dataclasses

import pytest

from graphmem.client import Memory
from graphmem.ui.access import cookie_name
from graphmem.ui.config import UiConfig

from .serving import CONFINED, fetch, running, small_store

pytestmark = pytest.mark.neo4j

PATHS = ["/", "/records", "/records/pref-1", "/lineage/pref-1",
         "/api/lineage/pref-1?direction=up&depth=1", "/export/lineage/pref-1?format=json",
         "/retrieval", "/deletion", "/reports", "/static/lineage.js"]


def test_without_the_key_nothing_is_served(memory: Memory) -> None:
    small_store(memory)
    config = UiConfig.build(tenants=["acme"], scope={"user": CONFINED["user"]},
                            access_key=True)
    assert config.access_key
    other = UiConfig.build(tenants=["acme"], access_key=True).access_key
    assert other and other != config.access_key
    with running(memory, config) as base:
        for path in PATHS:
            bare = fetch(base + path)
            assert bare.status == 401, path
            assert "access key" in bare.body and "Preferred" not in bare.body
            wrong = fetch(base + path + ("&" if "?" in path else "?") + f"key={other}")
            assert wrong.status == 401, path
            stolen = fetch(base + path, headers={
                "Cookie": f"{cookie_name(other)}={other}; {cookie_name(config.access_key)}="
                          f"{other}"})
            assert stolen.status == 401, path

        opened = fetch(f"{base}/records/pref-1?at=2026-01-05T10%3A00&key={config.access_key}")
        assert opened.status == 303
        assert opened.headers["location"] == "/records/pref-1?at=2026-01-05T10%3A00"
        cookie = opened.headers["set-cookie"]
        assert cookie.startswith(f"{cookie_name(config.access_key)}={config.access_key};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        held = {"Cookie": f"{cookie_name(config.access_key)}={config.access_key}"}
        for path in PATHS:
            assert fetch(base + path, headers=held).status == 200, path


def test_an_app_served_by_a_program_may_go_without_a_key(memory: Memory) -> None:
    small_store(memory)
    config = UiConfig.build(tenants=["acme"], access_key=True)
    with running(memory, dataclasses.replace(config, access_key=None)) as base:
        assert fetch(f"{base}/records").status == 200
