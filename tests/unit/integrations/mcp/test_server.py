"""The MCP server without a database: it lists its tools and answers every tool with a fast
typed error, in process and over stdio, while Neo4j is unreachable; its tool annotations say
what each tool does."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graphmem.db.settings import ConnectionSettings
from tests.support.mcp_client import text_of
from tests.support.mcp_server import (
    ERROR_WITHIN_S,
    HUMAN,
    TRIGGER,
    closed_port,
    serve_default,
    serve_stdio,
    timed,
)

# -- without a database ------------------------------------------------------------------


def test_tools_list_and_fast_typed_errors_without_neo4j() -> None:
    """Nothing listens: tools/list is answered, every call fails within 2 s with
    DatabaseUnavailableError (each call tries again), status says unreachable."""
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{closed_port()}", password="x")

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        assert {"recall", "get", "recent", "status"} <= {t.name for t in listed.tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("recall", {"goal": "g", **TRIGGER}), ("get", {"id": "m-1"}), ("recent", {}),
            ("remember", {**HUMAN, "content": "c"})]
        for name, args in calls:
            result, took = await timed(client, name, args)
            assert result.is_error and "DatabaseUnavailableError" in text_of(result), name
            assert took < ERROR_WITHIN_S, (name, took)
        status, took = await timed(client, "status", {})
        assert not status.is_error and took < ERROR_WITHIN_S
        assert status.structured_content is not None
        assert status.structured_content["reachable"] is False
        assert "DatabaseUnavailableError" in status.structured_content["error"]

    serve_default(down, body)


def test_stdio_server_answers_and_fails_fast_without_neo4j(tmp_path: Path) -> None:
    """The real command starts without a database (it used to exit 3 at start-up)."""
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{closed_port()}", password="x")
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["tools"] = {t.name for t in (await client.list_tools()).tools}
        seen["version"] = client.server_info.version if client.server_info else None
        result, took = await timed(client, "recall", {"goal": "g", **TRIGGER})
        seen["error"], seen["took"] = text_of(result), took

    serve_stdio(down, body, tmp_path, timeout_s=60)
    assert {"recall", "get", "recent", "status"} <= seen["tools"]
    assert seen["version"] == metadata.version("graphmem")
    assert "DatabaseUnavailableError" in seen["error"]
    assert seen["took"] < ERROR_WITHIN_S


def test_annotations_say_what_each_tool_does() -> None:
    down = ConnectionSettings(uri=f"bolt://127.0.0.1:{closed_port()}", password="x")
    hints: dict[str, tuple[bool | None, bool | None, bool | None]] = {}
    version: list[str | None] = []

    async def body(client: Client) -> None:
        for tool in (await client.list_tools()).tools:
            a = tool.annotations
            assert a is not None and a.open_world_hint is False, tool.name
            hints[tool.name] = (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
        version.append(client.server_info.version if client.server_info else None)

    serve_default(down, body, allow_deletion=True)
    assert version == [metadata.version("graphmem")]
    read_only = {name for name, (ro, _, _) in hints.items() if ro}
    assert read_only == {"get", "recent", "status", "explain", "history", "lineage",
                         "verify_deletion"}  # recall logs its retrieval; plan_deletion
    destructive = {name for name, (_, d, _) in hints.items() if d}  # stores its plan
    assert destructive == {"retract", "supersede", "process_event", "apply_deletion"}
    assert all(not d for ro, d, _ in hints.values() if ro)


# -- with the session's database -----------------------------------------------------------


# -- a database that goes away and comes back -------------------------------------------------




# -- HTTP: DNS rebinding ---------------------------------------------------------------------

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}


TOKEN = "t" * 40


def _initialize(host: str, headers: dict[str, str], allowed: tuple[str, ...] = (), *,
                token: str | None = TOKEN) -> int:
    """The status of an ``initialize`` POST to the HTTP app ``graphmem mcp --http --host
    HOST`` serves (its token :data:`TOKEN`), with these request headers and, unless None,
    ``token`` as the bearer (no database: initialize needs none)."""
    from starlette.testclient import TestClient

    from graphmem.integrations.mcp.config import ServerConfig
    from graphmem.integrations.mcp.server import build_server, http_security

    server = build_server(ServerConfig.build(tenants=("acme",), scope={"user": "u-17"}),
                          bearer_token=TOKEN)
    app = server.streamable_http_app(host=host, transport_security=http_security(host, allowed))
    bearer = {} if token is None else {"Authorization": f"Bearer {token}"}
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        answer = client.post("/mcp", json=INITIALIZE, headers={
            "Accept": "application/json, text/event-stream", **bearer, **headers})
    return answer.status_code


def test_a_request_without_the_token_reaches_no_tool() -> None:
    """Whoever reaches the port (any user of the machine, anyone on the network) acted as
    the server's principal: now a request without the bearer token, or with another, is a
    401 before any tool runs."""
    ok = {"Host": "127.0.0.1:8000"}
    assert _initialize("127.0.0.1", ok) == 200
    assert _initialize("127.0.0.1", ok, token=None) == 401
    assert _initialize("127.0.0.1", ok, token="u" * 40) == 401
    assert _initialize("127.0.0.1", ok, token=TOKEN[:-1]) == 401
    assert _initialize("0.0.0.0", ok, token="") == 401
    assert _initialize("127.0.0.1", {**ok, "Authorization": f"Basic {TOKEN}"},
                       token=None) == 401


@pytest.mark.parametrize("given", ["short", "x" * 23, "y" * 30 + " z", "é" * 30,
                                   "a" * 30 + "\n"])
def test_a_chosen_token_too_short_or_not_ascii_is_refused(given: str) -> None:
    from graphmem.errors import ValidationError
    from graphmem.integrations.mcp.http_auth import http_token

    with pytest.raises(ValidationError, match="GRAPHMEM_MCP_TOKEN"):
        http_token(given)


def test_a_token_is_made_when_none_is_chosen() -> None:
    from graphmem.integrations.mcp.http_auth import MIN_TOKEN_CHARS, http_token

    made = {http_token(None), http_token("")}
    assert len(made) == 2 and all(len(t) >= MIN_TOKEN_CHARS for t in made)
    assert http_token("k" * 24) == "k" * 24


def test_a_page_of_another_site_reaches_no_tool_whatever_address_the_server_listens_on(
        ) -> None:
    """``--host 0.0.0.0`` (or a LAN address) turned the SDK's DNS-rebinding check off: a page
    of evil.example whose name was rebound to this machine could call every tool (deletion
    included) as the server's principal. Hosts and origins other than loopback, ``--host``
    and ``--allowed-host`` are refused, wherever the server listens."""
    evil = {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"}
    for host in ("127.0.0.1", "0.0.0.0", "::", "10.1.2.3"):
        assert _initialize(host, evil) == 421, host
        assert _initialize(host, {"Host": "evil.example:8000"}) == 421, host
        assert _initialize(host, {"Host": "127.0.0.1:8000",
                                  "Origin": "http://evil.example:8000"}) == 403, host
        assert _initialize(host, {"Host": "127.0.0.1:8000"}) == 200, host
        assert _initialize(host, {"Host": "localhost:8000",
                                  "Origin": "http://localhost:8000"}) == 200, host
    assert _initialize("10.1.2.3", {"Host": "10.1.2.3:8000",
                                    "Origin": "http://10.1.2.3:8000"}) == 200
    assert _initialize("0.0.0.0", {"Host": "mem.internal:8000",
                                   "Origin": "https://mem.internal:8000"},
                       ("mem.internal",)) == 200
    assert _initialize("0.0.0.0", {"Host": "mem.internal"}, ("mem.internal",)) == 200


def test_a_host_name_given_in_capitals_admits_the_lowercase_host_clients_send() -> None:
    """Host names are case-insensitive, and browsers and httpx send them lowercased: before
    the check ran everywhere, ``--host MyBox.local`` served ``http://MyBox.local:8000``;
    then every such client was refused (421), as by an ``--allowed-host`` in capitals."""
    assert _initialize("MyBox.local", {"Host": "mybox.local:8000",
                                       "Origin": "http://mybox.local:8000"}) == 200
    assert _initialize("MyBox.local", {"Host": "MyBox.local:8000"}) == 200
    assert _initialize("0.0.0.0", {"Host": "mem.internal"}, ("Mem.Internal",)) == 200
    assert _initialize("0.0.0.0", {"Host": "evil.example"}, ("Mem.Internal",)) == 421


def test_the_command_refuses_a_weak_token_before_serving(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from typer.testing import CliRunner

    from graphmem.cli import app

    monkeypatch.setenv("GRAPHMEM_MCP_TOKEN", "secret")
    result = CliRunner().invoke(app, ["mcp", "--tenant", "acme", "--http", "--port", "1"])
    assert result.exit_code == 2, result.output
    assert "GRAPHMEM_MCP_TOKEN" in result.output and "Traceback" not in result.output
