"""``graphmem db start|status|stop|fetch``: the local Neo4j server graphmem runs itself."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphmem.db import server
from graphmem.errors import GraphmemError
from graphmem.terminal import console, err_console, fail

__all__ = ["db_app"]

db_app = typer.Typer(
    help="Run a local Neo4j without Docker (needs a Java 17+ JDK and Maven).",
    no_args_is_help=True,
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
    except GraphmemError as exc:
        raise fail(exc, code=1) from None
    console.print(info.uri, highlight=False)


@db_app.command("status")
def db_status() -> None:
    """Print the running server's URI, pid, home and credentials file; exit 1 when none is
    running."""
    info = server.status()
    if info is None:
        err_console.print("Neo4j is not running (start it with `graphmem db start`).")
        raise typer.Exit(code=1)
    console.print(f"running  {info.uri}  pid {info.pid}  home {info.home}", highlight=False)
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
    """Download the Neo4j jars with Maven (done automatically by `db start` otherwise)."""
    try:
        with err_console.status(f"Fetching Neo4j {server.NEO4J_VERSION} jars with Maven ..."):
            lib_dir = server.ensure_jars()
    except GraphmemError as exc:
        raise fail(exc, code=1) from None
    console.print(str(lib_dir), highlight=False)
