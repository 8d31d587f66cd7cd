"""``graphmem mcp`` as a real subprocess: over stdio with the SDK's stdio client,
and over streamable HTTP on a free loopback port. The server reaches the session's Neo4j
through ``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``; every wait is bounded and the
subprocess is always ended.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from graphmem import Memory
from tests.support.database import Neo4jUnderTest

pytestmark = pytest.mark.neo4j

COMMAND = [sys.executable, "-m", "graphmem.cli", "mcp", "--tenant", "acme",
           "--agent", "transport-test"]


def _env(neo4j_db: Neo4jUnderTest) -> dict[str, str]:
    s = neo4j_db.settings
    return {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
            "NEO4J_DATABASE": s.database}


def _seed(memory: Memory) -> str:
    return memory.write({"id": "acme-fact", "kind": "semantic", "authority": "human_instruction",
                         "content": "Acme's on-call rotation changes every Monday",
                         "scope": {"tenant": "acme"},
                         "created_at": "2026-01-01T00:00:00+00:00"}).record_id


RECALL = {"goal": "who is on call for Acme", "needs_prior_context": True}


def _check_recall(result: Any) -> None:
    assert not result.is_error, result.content
    assert [m["id"] for m in result.structured_content["memories"]] == ["acme-fact"]


def test_stdio_subprocess_lists_tools_and_recalls(neo4j_db: Neo4jUnderTest, memory: Memory,
                                                  tmp_path: Path) -> None:
    _seed(memory)
    params = StdioServerParameters(command=COMMAND[0], args=COMMAND[1:],
                                   env={**_env(neo4j_db)}, cwd=str(Path.cwd()))
    seen: dict[str, Any] = {}

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog, anyio.fail_after(120):
            # the stdio client ends the process tree when the block exits, whatever happens
            async with Client(stdio_client(params, errlog=errlog)) as client:
                seen["tools"] = {t.name for t in (await client.list_tools()).tools}
                seen["recall"] = await client.call_tool("recall", RECALL)

    anyio.run(main)
    assert "recall" in seen["tools"] and "apply_deletion" not in seen["tools"]
    _check_recall(seen["recall"])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"graphmem mcp --http exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"graphmem mcp --http did not listen on {port} in {timeout}s")


def test_http_subprocess_recalls_over_streamable_http(neo4j_db: Neo4jUnderTest,
                                                      memory: Memory, tmp_path: Path) -> None:
    _seed(memory)
    port = _free_port()
    token = "tok-" + "k" * 40
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen([*COMMAND, "--http", "--host", "127.0.0.1", "--port", str(port)],
                            env={**os.environ, **_env(neo4j_db), "GRAPHMEM_MCP_TOKEN": token},
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    seen: dict[str, Any] = {}
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        _wait_for_port(port, proc, timeout=90)

        async def main() -> None:
            with anyio.fail_after(60):
                bearer = {"Authorization": f"Bearer {token}"}
                async with (create_mcp_http_client(headers=bearer) as with_token,
                            Client(streamable_http_client(url, http_client=with_token))
                            as client):
                    seen["recall"] = await client.call_tool("recall", RECALL)
                async with create_mcp_http_client() as bare:
                    seen["bare"] = (await bare.post(url, json={})).status_code

        anyio.run(main)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()
    _check_recall(seen["recall"])
    assert seen["bare"] == 401  # no token, no tool
    assert token not in (tmp_path / "server.log").read_text()  # a chosen token is not printed
