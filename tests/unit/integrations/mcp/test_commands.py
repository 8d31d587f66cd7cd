"""``graphmem mcp`` answers ``initialize`` and ``tools/list`` without importing what only a
tool call needs: the driver, numpy, bm25s, networkx, the client, and the other commands'
modules; once the tools are listed it imports the client in the background. A structural
guard on the start-up time (bench/mcp_start.py measures it): the real ``graphmem.cli`` entry
point run as ``python -m graphmem.cli mcp`` over stdio, its ``sys.modules`` read when it
lists the tools and when it exits.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from graphmem.cli import COMMANDS, SUBCOMMANDS
from graphmem.integrations.mcp.state import require_listener

MCP_MODULE = "graphmem.integrations.mcp.commands"
HEAVY = ("neo4j", "numpy", "bm25s", "networkx", "graphmem.client", "graphmem.client_calls",
         "graphmem.db.access", "graphmem.read.pipeline")
"""Modules (and their submodules) a tool call may import, and the start must not."""


def _other_command_modules() -> set[str]:
    return {target.partition(":")[0] for _, target in (*COMMANDS, *SUBCOMMANDS)} - {MCP_MODULE}


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write((json.dumps(message) + "\n").encode())
    stdin.flush()


def _answer(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        assert line, "the server closed stdout before answering"
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id:
            return message


RUN_AND_DUMP = """
import atexit, json, runpy, sys
from mcp.server.mcpserver import MCPServer
out = sys.argv.pop(1)
seen = {}
list_tools = MCPServer.list_tools
async def listing(self):
    seen.setdefault("tools/list", sorted(sys.modules))
    return await list_tools(self)
MCPServer.list_tools = listing
atexit.register(lambda: open(out, "w").write(json.dumps({**seen, "exit": sorted(sys.modules)})))
runpy.run_module("graphmem.cli", run_name="__main__", alter_sys=True)
"""
"""``python -m graphmem.cli`` that writes its ``sys.modules`` as it starts listing the tools
and as it exits to a file (its first argument)."""


def _start_session(tmp_path: Path) -> tuple[list[str], dict[str, set[str]]]:
    """Spawn the server as a client does, ``initialize`` then ``tools/list``, then close
    its stdin; the tool names and the modules imported by ``tools/list`` and by the exit."""
    with socket.socket() as s:  # a port nothing listens on: no database to reach
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{port}", "NEO4J_USER": "neo4j",
           "NEO4J_PASSWORD": "unused-password"}
    modules = tmp_path / "modules.json"
    with subprocess.Popen([sys.executable, "-c", RUN_AND_DUMP, str(modules), "mcp",
                           "--tenant", "acme"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=env) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            _send(process.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"protocolVersion": "2025-06-18",
                                             "capabilities": {},
                                             "clientInfo": {"name": "test", "version": "0"}}})
            assert "result" in _answer(process.stdout, 1)
            _send(process.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            _send(process.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            tools = [t["name"] for t in _answer(process.stdout, 2)["result"]["tools"]]
            process.stdin.close()
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
    return tools, {when: set(names) for when, names in json.loads(modules.read_text()).items()}


def _heavy(modules: set[str]) -> list[str]:
    return sorted(h for h in HEAVY if any(m == h or m.startswith(h + ".") for m in modules))


def test_start_to_tools_list_imports_nothing_a_tool_call_needs(tmp_path: Path) -> None:
    tools, imported = _start_session(tmp_path)
    assert "recall" in tools and "remember" in tools
    listing = imported["tools/list"]
    # the reading sees the server's own modules, so an absence below is an absence
    assert {MCP_MODULE, "graphmem.integrations.mcp.server", "mcp"} <= listing
    assert not _heavy(listing), f"imported before tools/list: {_heavy(listing)}"
    others = sorted(_other_command_modules() & imported["exit"])
    assert not others, f"other commands' modules imported: {others}"
    # listed, the tools' client is imported in the background before the first call
    assert "graphmem.client" in imported["exit"] and "neo4j" in imported["exit"]


REFUSED_FIRST_CONNECTION = """
import asyncio, json, sys, time
from graphmem.db.settings import ConnectionSettings
from graphmem.errors import DatabaseUnavailableError
from graphmem.integrations.mcp.state import open_memory
for uri in sys.argv[1:]:
    settings = ConnectionSettings(uri=uri, password="unused-password")
    started = time.monotonic()
    try:
        asyncio.run(open_memory(0.5, settings))
        print(json.dumps({"error": None}))
    except DatabaseUnavailableError as exc:
        print(json.dumps({"error": str(exc), "took": time.monotonic() - started,
                          "driver": "neo4j" in sys.modules}))
"""
"""Opens the MCP server's memory on each address given (one interpreter for all: the driver
must stay unimported through every one); one JSON line per address."""


def test_a_refused_database_errs_within_the_budget_before_the_driver_loads() -> None:
    """A server's first call may come while the driver is still being imported (CPU time,
    long on a loaded machine): the address is tried first, for the budget."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    uris = [f"bolt://127.0.0.1:{port}", f"neo4j+s://127.0.0.1:{port}"]
    done = subprocess.run([sys.executable, "-c", REFUSED_FIRST_CONNECTION, *uris],
                          capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == len(uris), done.stdout
    for uri, line in zip(uris, lines, strict=True):
        seen = json.loads(line)
        assert seen["error"] and "unreachable" in seen["error"] and uri in seen["error"]
        assert seen["driver"] is False
        assert 0.5 <= seen["took"] < 2.0  # retried for the budget (a restart gets it), no more


def test_a_listening_address_passes_at_once() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        for uri in (f"bolt://127.0.0.1:{port}", f"neo4j://localhost:{port}"):
            started = time.monotonic()
            require_listener(uri, budget_s=5.0, timeout_s=5.0)
            assert time.monotonic() - started < 1.0
    # an address that cannot be read is left to the driver, whose error names the problem
    require_listener("bolt://", budget_s=5.0, timeout_s=5.0)
    require_listener("bolt://127.0.0.1:not-a-port", budget_s=5.0, timeout_s=5.0)
