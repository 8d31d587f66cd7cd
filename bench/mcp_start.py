"""MCP server start and outage benchmark: how long a client waits for
``graphmem mcp``, measured side by side for two code trees.

Each round spawns ``python -m graphmem.cli mcp --tenant acme`` over stdio with the official
SDK client, once per tree, the trees alternating (the first one reversed every round, so a
drifting machine load falls on both), and measures:

* ``spawn_to_tools_list``: from spawning the process to the ``tools/list`` answer (the
  ``initialize`` handshake included), with Neo4j up;
* ``cpu_to_tools_list``: the CPU seconds (user + system, from ``/proc``) the server process
  has used when ``tools/list`` is answered: the start's cost on an idle machine (the start
  is single-threaded imports), which the load of a shared machine inflates far less than
  the wall time;
* ``spawn_to_tools_list_down``: the same with Neo4j unreachable (a tree whose server does
  not start without a database is recorded as failing);
* ``call_up``: the first ``recall`` with Neo4j up (a lazy server connects here);
* ``call_down``: ``recall`` once Neo4j has become unreachable under the live session, until
  its error (capped at ``--cap`` seconds), with the error's type;
* ``first_call_down``: the first ``recall`` of the server started with Neo4j unreachable,
  sent as soon as ``tools/list`` is answered (what the server has not imported at start,
  it imports here).

Neo4j is one throwaway server (:class:`graphmem.db.server.EphemeralServer`) behind a TCP
relay in this process: "unreachable" closes the relay's listener and every relayed
connection, as a stopped server would (connection refused), and "up" opens it again on the
same port. Results go to ``bench/results/mcp_start-<date>.json`` and a table::

    git worktree add /tmp/before b901ed3
    python -m bench.mcp_start --before /tmp/before --rounds 10
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent
from rich.console import Console
from rich.table import Table

from graphmem.db.server import EphemeralServer
from graphmem.db.settings import ConnectionSettings

RESULTS_DIR = Path(__file__).resolve().parent / "results"
HERE = Path(__file__).resolve().parents[1]
RECALL = {"goal": "who is on call for Acme", "needs_prior_context": True}
METRICS = ("spawn_to_tools_list", "cpu_to_tools_list", "spawn_to_tools_list_down", "call_up",
           "call_down", "first_call_down")


class Relay:
    """A TCP relay from a local port to Neo4j that can refuse connections on demand."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port: int = probe.getsockname()[1]
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._listener: socket.socket | None = None

    def up(self) -> None:
        """Accept and relay connections."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        """Refuse new connections and cut the relayed ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):  # wakes the accept() (close() alone does not)
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)


def _params(tree: Path, settings: ConnectionSettings) -> StdioServerParameters:
    env = {"PYTHONPATH": str(tree), "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "NEO4J_DATABASE": settings.database,
           "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "graphmem.cli", "mcp", "--tenant", "acme"],
                                 env=env, cwd=str(tree))


def _server_cpu_s() -> float | None:
    """CPU seconds used so far by the newest ``graphmem.cli`` child of this process (Linux
    ``/proc``; None elsewhere)."""
    newest: tuple[int, float] | None = None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, ...
        if int(fields[1]) != os.getpid() or b"graphmem.cli" not in cmdline:
            continue
        started, cpu = int(fields[19]), (int(fields[11]) + int(fields[12]))
        if newest is None or started > newest[0]:
            newest = (started, cpu / os.sysconf("SC_CLK_TCK"))
    return None if newest is None else newest[1]


def _error_type(text: str) -> str:
    """The graphmem error class a tool error names (the SDK prefixes "Error executing
    tool ..."), or ``"none"``."""
    for word in text.replace(":", " ").split():
        if word.endswith("Error") and word != "Error":
            return word
    return "none"


async def _round(tree: Path, relay: Relay, settings: ConnectionSettings, cap_s: float
                 ) -> dict[str, Any]:
    """One spawn with Neo4j up (list, call, outage, call) and one with Neo4j down."""
    out: dict[str, Any] = {}
    params = _params(tree, settings)
    with open(os.devnull, "w") as errlog:
        relay.up()
        started = time.perf_counter()
        try:
            with anyio.fail_after(cap_s * 3):
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    await client.list_tools()
                    out["spawn_to_tools_list"] = time.perf_counter() - started
                    cpu = _server_cpu_s()
                    if cpu is not None:
                        out["cpu_to_tools_list"] = cpu
                    t0 = time.perf_counter()
                    result = await client.call_tool("recall", RECALL)
                    out["call_up"] = time.perf_counter() - t0
                    out["call_up_error"] = result.is_error
                    relay.down()
                    t0 = time.perf_counter()
                    with anyio.move_on_after(cap_s) as scope:
                        result = await client.call_tool("recall", RECALL)
                    out["call_down"] = time.perf_counter() - t0
                    out["call_down_error"] = ("timeout" if scope.cancelled_caught else
                                              _error_type(" ".join(
                                                  c.text for c in result.content
                                                  if isinstance(c, TextContent))))
        finally:
            relay.down()
        started = time.perf_counter()
        try:
            with anyio.fail_after(cap_s):
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    await client.list_tools()
                    out["spawn_to_tools_list_down"] = time.perf_counter() - started
                    t0 = time.perf_counter()
                    result = await client.call_tool("recall", RECALL)
                    out["first_call_down"] = time.perf_counter() - t0
                    out["first_call_down_error"] = _error_type(" ".join(
                        c.text for c in result.content if isinstance(c, TextContent)))
        except Exception as exc:  # the server exits without a database: no answer at all
            out["spawn_to_tools_list_down_failed"] = type(exc).__name__
    return out


def _summary(values: Sequence[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_s": round(statistics.median(ordered), 3), "p95_s": round(p95, 3),
            "min_s": round(ordered[0], 3), "max_s": round(ordered[-1], 3), "n": len(values)}


def _table(summaries: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="graphmem mcp: seconds, p50 / p95 (n)")
    table.add_column("tree")
    for header in ("spawn to tools/list", "its CPU s", "same, Neo4j down", "first call",
                   "call, Neo4j down", "first call, Neo4j down"):
        table.add_column(header, justify="right")
    table.add_column("errors, Neo4j down")
    for name, s in summaries.items():
        cells = []
        for metric in METRICS:
            m = s[metric]
            cells.append(f"{m['p50_s']:.2f} / {m['p95_s']:.2f} ({m['n']})" if m["n"]
                         else "no answer")
        table.add_row(name, *cells, ", ".join(sorted({*s["call_down_errors"],
                                                       *s["first_call_down_errors"]})))
    return table


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a worktree of the code to compare with (e.g. b901ed3)")
    parser.add_argument("--after", type=Path, default=HERE, help="default: this tree")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--cap", type=float, default=40.0,
                        help="longest wait for one call or start, in seconds")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with EphemeralServer(heap="512m", pagecache_mb=64, timeout_s=900) as server:
        host, port = server.uri.rsplit("//", 1)[1].rsplit(":", 1)
        relay = Relay((host, int(port)))
        settings = ConnectionSettings(uri=f"bolt://127.0.0.1:{relay.port}",
                                      user=server.settings.user,
                                      password=server.settings.password)
        order = list(trees)
        for r in range(args.rounds):
            for name in (order if r % 2 == 0 else order[::-1]):
                row = anyio.run(_round, trees[name], relay, settings, args.cap)
                rows[name].append(row)
                Console(stderr=True).print(f"round {r + 1} {name}: " + ", ".join(
                    f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                    for k, v in row.items()))
    summaries: dict[str, dict[str, Any]] = {}
    for name, runs in rows.items():
        summaries[name] = {m: _summary([r[m] for r in runs if m in r]) for m in METRICS}
        summaries[name]["call_down_errors"] = sorted({str(r.get("call_down_error"))
                                                      for r in runs})
        summaries[name]["first_call_down_errors"] = sorted(
            {str(r.get("first_call_down_error")) for r in runs})
        summaries[name]["start_failures_down"] = sorted(
            {r["spawn_to_tools_list_down_failed"] for r in runs
             if "spawn_to_tools_list_down_failed" in r})
    Console().print(_table(summaries))
    date = datetime.now(UTC).date().isoformat()
    out = args.out or RESULTS_DIR / f"mcp_start-{date}.json"
    out.write_text(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpu_count": os.cpu_count(), "load_avg_at_end": os.getloadavg()},
        "trees": {name: str(path) for name, path in trees.items()},
        "rounds": args.rounds, "cap_s": args.cap, "summaries": summaries, "runs": rows,
    }, indent=2) + "\n")
    Console(stderr=True).print(f"wrote {out}")


if __name__ == "__main__":
    main()
