"""``graphmem db start|status|stop|fetch``: the local Neo4j server graphmem runs itself;
``graphmem stats``: what the configured database holds, counted.

Exit codes (:mod:`graphmem.terminal`): 3 when the server cannot be fetched or started, or
(``status``) is not running, or (``stats``) cannot be reached.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from graphmem.client import Memory, store_of
from graphmem.db import server
from graphmem.db.class_data import record_class_data
from graphmem.db.progress import reporting
from graphmem.db.stats import store_stats
from graphmem.errors import GraphmemError, ValidationError
from graphmem.fields import utc_now
from graphmem.terminal import (
    EXIT_UNAVAILABLE,
    checked_output,
    console,
    emit_json,
    err_console,
    fail,
    parse_time,
)

__all__ = ["db_app", "stats_command"]

db_app = typer.Typer(
    help="Run a local Neo4j without Docker (needs a Java 17+ JDK and Maven).",
    no_args_is_help=True,
    rich_markup_mode=None,  # help is plain text: 'graphmem[html]' stays as written
)


@db_app.command("start")
def db_start(
    port: Annotated[int | None, typer.Option(help="Bolt port (default 7687, else free).")] = None,
    home: Annotated[Path | None, typer.Option(help="Neo4j home (store and logs).")] = None,
    pagecache_mb: Annotated[int, typer.Option(help="Page cache size in MiB.")] = 256,
    heap: Annotated[str, typer.Option(help="JVM max heap, e.g. 1g.")] = "1g",
    password_file: Annotated[Path | None, typer.Option(
        help="File whose first line is the neo4j user's password (default: "
             "$GRAPHMEM_PASSWORD_FILE, else one generated at first start, mode 0600).")] = None,
) -> None:
    """Start the local Neo4j server (or report the one already running) and print its URI.

    Authentication is on; the password file is generated at first start unless given.
    """
    try:
        with err_console.status("Starting Neo4j ..."):
            info = server.start(home, port, pagecache_mb=pagecache_mb, heap=heap,
                                password_file=password_file)
    except ValidationError as exc:  # a setting out of range: nothing was started
        raise fail(exc) from None
    except GraphmemError as exc:
        raise fail(exc, code=EXIT_UNAVAILABLE) from None
    console.print(info.uri, highlight=False)


@db_app.command("status")
def db_status() -> None:
    """Print the running server's URI, pid, home and credentials file; exit 3 when none is
    running, or when the one running was started for clients that have all gone (it is
    stopping: docs/operations.md#where-neo4j-comes-from)."""
    info = server.status()
    if info is None:
        err_console.print("Neo4j is not running (start it with `graphmem db start`).")
        raise typer.Exit(code=EXIT_UNAVAILABLE)
    clients = None if info.kept else server.clients()
    if clients == 0:
        err_console.print(f"Neo4j is stopping  {info.uri}  pid {info.pid}: started for "
                          "clients that have all exited (start one that stays with "
                          "`graphmem db start`).", highlight=False, soft_wrap=True)
        raise typer.Exit(code=EXIT_UNAVAILABLE)
    console.print(f"running  {info.uri}  pid {info.pid}  home {info.home}", highlight=False)
    if clients is not None:
        console.print(f"started for {clients} client process(es); stops with the last",
                      highlight=False)
    if info.password_file is None:
        console.print("credentials  none (authentication off)", highlight=False)
    else:
        console.print(f"credentials {info.password_file}  (user neo4j, password on its "
                      "first line)", highlight=False, soft_wrap=True)


@db_app.command("stop")
def db_stop() -> None:
    """Stop the local Neo4j server, if one is running."""
    with err_console.status("Stopping Neo4j ..."):
        stopped = server.stop()
    console.print("stopped" if stopped else "not running")


@db_app.command("fetch")
def db_fetch() -> None:
    """Download the Neo4j jars with Maven (done automatically by `db start` otherwise), and
    record the classes a start loads (once; each later start then takes seconds less)."""
    try:
        with err_console.status(f"Fetching Neo4j {server.NEO4J_VERSION} jars with Maven ..."):
            lib_dir = server.ensure_jars()
        recording = "Recording the classes a Neo4j start loads (once)"
        with err_console.status(f"{recording} ...") as status, reporting(
                lambda phase, detail: status.update(f"{recording}: {detail}")):
            archive = record_class_data(lib_dir)  # its server's start shows in the status line
    except GraphmemError as exc:
        raise fail(exc, code=EXIT_UNAVAILABLE) from None
    if archive is None:
        err_console.print("No class-data archive was recorded: each start loads its classes "
                          "(docs/operations.md#where-neo4j-comes-from).", highlight=False)
    # the folder alone on stdout, for scripts: never wrapped, however long the path
    console.print(str(lib_dir), highlight=False, soft_wrap=True)


def stats_command(
    tenant: Annotated[str | None, typer.Option(help="Count only this tenant.")] = None,
    at: Annotated[str | None, typer.Option(
        "--at", help="Statuses at this ISO-8601 time with a timezone (default: now).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the counts as JSON on stdout (and nothing else there).")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the counts (JSON) to this file.")] = None,
) -> None:
    """Count records by tenant, kind and status (active, superseded, expired, retracted,
    quarantined, erased ...), intentions by status and deletion requests by state."""
    try:
        now = parse_time(at) or utc_now()
        with Memory.connect() as memory:
            stats = store_stats(store_of(memory), now=now, tenant=tenant)
    except GraphmemError as exc:
        raise fail(exc) from None
    emit_json(stats, as_json, output)
    if as_json:
        return
    records = stats["records"]
    statuses = [s for s, n in records["by_status"].items() if n]
    # the title on a line of its own: as the table's title it wraps to the table's width
    of = f" of tenant {escape(tenant)}" if tenant else ""  # a name is no markup
    console.print(f"[bold]Records{of} at {stats['at']}: {records['total']}[/bold]",
                  highlight=False, markup=True)
    table = Table()
    for col in ("tenant", "kind", *(s.lower() for s in statuses)):
        table.add_column(col, justify="left" if col in ("tenant", "kind") else "right")
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for row in records["rows"]:
        cells.setdefault((row["tenant"], row["kind"]), {})[row["status"]] = row["n"]
    for (row_tenant, kind), counts in cells.items():
        table.add_row(row_tenant, kind, *(str(counts.get(s, 0)) for s in statuses))
    console.print(table, highlight=False)
    intentions = ", ".join(f"{k} {v}" for k, v in stats["intentions"]["by_status"].items())
    console.print(f"intentions: {stats['intentions']['total']}"
                  + (f" ({intentions})" if intentions else ""), highlight=False)
    requests = ", ".join(f"{k} {v}" for k, v in stats["deletion_requests"]["by_state"].items())
    console.print(f"deletion requests: {stats['deletion_requests']['total']}"
                  + (f" ({requests})" if requests else ""), highlight=False)
