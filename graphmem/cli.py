"""The ``graphmem`` command line.

Each command group is a Typer sub-app registered in :data:`SUBCOMMANDS`; adding a group is one
line there (``("name", sub_app)``). Commands print with rich and exit non-zero on failure.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer
from typer.core import TyperOption

from graphmem.db.commands import db_app, stats_command
from graphmem.db.progress import reporting
from graphmem.deletion.commands import delete_app
from graphmem.demo.commands import demo, scenario_app
from graphmem.evaluation.commands import eval_app
from graphmem.integrations.mcp.commands import mcp_command
from graphmem.lineage.commands import lineage_command
from graphmem.read.commands import explain_command, history_command, retrieve_command
from graphmem.terminal import stderr_reporter
from graphmem.write.commands import import_command

__all__ = ["app", "main"]

app = typer.Typer(
    name="graphmem",
    help="Memory for LLM agents, stored in Neo4j.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # help is plain text: brackets such as 'graphmem[html]' stay
)


def _flag_type(option: TyperOption, ctx: object) -> str | None:
    """No type column for an on/off flag: typer shows ``<bool>`` beside every one (and
    beside ``--help``), which says nothing a flag's name does not."""
    if option.is_flag:
        return None
    return _option_type(option, ctx)  # type: ignore[arg-type]


_option_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]


def graphmem_version() -> str:
    """The installed graphmem's version (``unknown`` in a checkout that was never
    installed)."""
    try:
        return version("graphmem")
    except PackageNotFoundError:
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"graphmem {graphmem_version()}")
        raise typer.Exit()


@app.callback()
def _options(
    ctx: typer.Context,
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print graphmem's version and exit.")] = False,
) -> None:
    """Memory for LLM agents, stored in Neo4j."""
    # long first-run steps (the jar fetch, the server start) report on stderr
    ctx.with_resource(reporting(stderr_reporter()))

# Command groups: one line per group.
SUBCOMMANDS: list[tuple[str, typer.Typer]] = [
    ("db", db_app),
    ("delete", delete_app),
    ("eval", eval_app),
    ("scenario", scenario_app),
]
for _name, _sub_app in SUBCOMMANDS:
    app.add_typer(_sub_app, name=_name)
app.command("lineage")(lineage_command)
app.command("demo")(demo)
app.command("mcp")(mcp_command)
app.command("import")(import_command)
app.command("explain")(explain_command)
app.command("history")(history_command)
app.command("retrieve")(retrieve_command)
app.command("stats")(stats_command)


def main() -> None:
    """Entry point of the ``graphmem`` console script."""
    app()


if __name__ == "__main__":
    main()
