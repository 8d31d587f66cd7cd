"""The ``graphmem`` command line.

Each command group is a Typer sub-app registered in :data:`SUBCOMMANDS`, each single command
in :data:`COMMANDS`; adding one is one line there (``("name", "module:attribute")``).
Commands print with rich and exit non-zero on failure.

A command's module is imported only when the app that needs it is built: ``graphmem NAME ...``
(:func:`main`) builds an app holding only ``NAME``, so ``graphmem mcp`` starts without the
driver, numpy or the other commands' modules; ``graphmem --help``, an unknown name and
:data:`app` (built on first access) hold every command.
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup, TyperOption

from graphmem.db.progress import reporting
from graphmem.errors import GraphmemError
from graphmem.terminal import fail, fit_consoles, stderr_reporter

__all__ = ["COMMANDS", "SUBCOMMANDS", "app", "build_app", "main"]

if TYPE_CHECKING:
    app: typer.Typer


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


def _options(
    ctx: typer.Context,
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print graphmem's version and exit.")] = False,
) -> None:
    """Memory for LLM agents, stored in Neo4j."""
    fit_consoles()  # this command's COLUMNS, not the importing process's
    # long first-run steps (the jar fetch, the server start) report on stderr
    ctx.with_resource(reporting(stderr_reporter()))


# Single commands, then command groups (Typer sub-apps): one line each, in the order
# `graphmem --help` lists them.
COMMANDS: list[tuple[str, str]] = [
    ("lineage", "graphmem.lineage.commands:lineage_command"),
    ("demo", "graphmem.demo.commands:demo"),
    ("mcp", "graphmem.integrations.mcp.commands:mcp_command"),
    ("import", "graphmem.write.commands:import_command"),
    ("explain", "graphmem.read.commands:explain_command"),
    ("history", "graphmem.read.commands:history_command"),
    ("retrieve", "graphmem.read.commands:retrieve_command"),
    ("stats", "graphmem.db.commands:stats_command"),
    ("ui", "graphmem.ui.commands:ui_command"),
]
SUBCOMMANDS: list[tuple[str, str]] = [
    ("db", "graphmem.db.commands:db_app"),
    ("cypher", "graphmem.db.cypher_commands:cypher_app"),
    ("delete", "graphmem.deletion.commands:delete_app"),
    ("eval", "graphmem.evaluation.commands:eval_app"),
    ("scenario", "graphmem.demo.commands:scenario_app"),
]


def _load(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


class _Commands(TyperGroup):
    """The app's group: a graphmem error that a command lets through is reported as
    :func:`graphmem.terminal.fail` reports it (one line, exit 2, or 3 with no database),
    never as a traceback (docs/cli.md#exit-codes)."""

    def invoke(self, ctx: Any) -> Any:  # typer's own click Context
        try:
            return super().invoke(ctx)
        except GraphmemError as exc:
            raise fail(exc) from None


def build_app(only: str | None = None) -> typer.Typer:
    """The ``graphmem`` Typer app, importing the modules of the commands it holds.

    Args:
        only: a command or group name of :data:`COMMANDS` or :data:`SUBCOMMANDS`: the app
            holds that one alone (its help and parsing are those of the full app); ``None``
            or any other name: every command.

    Returns:
        A new ``typer.Typer`` (call it with the arguments, as :func:`main` does).
    """
    names = {name for name, _ in (*COMMANDS, *SUBCOMMANDS)}
    if only not in names:
        only = None
    built = typer.Typer(
        name="graphmem",
        cls=_Commands,
        help="Memory for LLM agents, stored in Neo4j.",
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,  # help is plain text: brackets such as 'graphmem[html]' stay
    )
    built.callback()(_options)
    for name, target in COMMANDS:
        if only in (None, name):
            built.command(name)(_load(target))
    for name, target in SUBCOMMANDS:
        if only in (None, name):
            built.add_typer(_load(target), name=name)
    return built


def __getattr__(name: str) -> Any:
    """:data:`app`, every command, built (and its modules imported) on first access (PEP
    562).

    Raises:
        AttributeError: ``name`` is not ``app`` nor another name of this module.
    """
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``graphmem`` console script: runs the app holding only the
    command the first argument names (every command for ``--help``, options or an unknown
    name).

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] != ["mcp"]:  # its stdio server would wait for its stdin to close first
        _end_on_sigterm()
    build_app(args[0] if args else None)(args)


def _end_on_sigterm() -> None:
    """Make SIGTERM (``kill``, ``timeout``, a supervisor) end a command as Ctrl-C does: by an
    exception in the main thread, so what the command holds is let go on the way out (a
    throwaway server and its folder, a lease on the local server: docs/operations.md), and
    the exit status is 143. Python's default would end the process at once, with no cleanup.
    A handler someone else installed is left alone, and ``graphmem mcp`` keeps the default:
    its stdio transport reads stdin in a thread the exception cannot stop, so it would
    outlive the signal until its client closed stdin (its lease on the local server goes
    with the process: docs/operations.md)."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL):
        signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    main()
