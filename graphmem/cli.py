"""The ``graphmem`` command line.

Each command group is a Typer sub-app registered in :data:`SUBCOMMANDS`; adding a group is one
line there (``("name", sub_app)``). Commands print with rich and exit non-zero on failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from graphmem import server
from graphmem.deletion_cli import delete_app, lineage_command
from graphmem.demo_cli import demo
from graphmem.errors import GraphmemError
from graphmem.eval_cli import eval_app
from graphmem.integrations.mcp.commands import mcp_command

__all__ = ["app", "main"]

console = Console()
err_console = Console(stderr=True)

app = typer.Typer(
    name="graphmem",
    help="Memory for LLM agents, stored in Neo4j.",
    no_args_is_help=True,
    add_completion=False,
)

db_app = typer.Typer(
    help="Run a local Neo4j without Docker (needs a Java 17+ JDK and Maven).",
    no_args_is_help=True,
)


def _fail(exc: GraphmemError) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
    return typer.Exit(code=1)


@db_app.command("start")
def db_start(
    port: Annotated[int | None, typer.Option(help="Bolt port (default 7687, else free).")] = None,
    home: Annotated[Path | None, typer.Option(help="Neo4j home (store and logs).")] = None,
    pagecache_mb: Annotated[int, typer.Option(help="Page cache size in MiB.")] = 256,
    heap: Annotated[str, typer.Option(help="JVM max heap, e.g. 1g.")] = "1g",
) -> None:
    """Start the local Neo4j server (or report the one already running) and print its URI."""
    try:
        with err_console.status("Starting Neo4j ..."):
            info = server.start(home, port, pagecache_mb=pagecache_mb, heap=heap)
    except GraphmemError as exc:
        raise _fail(exc) from None
    console.print(info.uri, highlight=False)


@db_app.command("status")
def db_status() -> None:
    """Print the running server's URI, pid and home; exit 1 when none is running."""
    info = server.status()
    if info is None:
        err_console.print("Neo4j is not running (start it with `graphmem db start`).")
        raise typer.Exit(code=1)
    console.print(f"running  {info.uri}  pid {info.pid}  home {info.home}", highlight=False)


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
        raise _fail(exc) from None
    console.print(str(lib_dir), highlight=False)


# Command groups: one line per group.
SUBCOMMANDS: list[tuple[str, typer.Typer]] = [
    ("db", db_app),
    ("delete", delete_app),
    ("eval", eval_app),
]
for _name, _sub_app in SUBCOMMANDS:
    app.add_typer(_sub_app, name=_name)
app.command("lineage")(lineage_command)


app.command("demo")(demo)
app.command("mcp")(mcp_command)


def main() -> None:
    """Entry point of the ``graphmem`` console script."""
    app()


if __name__ == "__main__":
    main()
