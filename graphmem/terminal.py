"""What every ``graphmem`` command shares: the consoles (reports on stdout, progress and
errors on stderr), the exit codes, and how a command reports a typed error.

Exit codes, the same for every command (README "Command line"):
0 success; 1 a check failed (an expectation, a fault let through, a verification);
2 bad usage or bad input; 3 the database is unavailable.
"""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from graphmem.errors import DatabaseUnavailableError, GraphmemError

__all__ = ["EXIT_CHECK_FAILED", "EXIT_INPUT", "EXIT_OK", "EXIT_UNAVAILABLE", "console",
           "err_console", "fail", "usage_error"]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_INPUT = 2
EXIT_UNAVAILABLE = 3

console = Console()
err_console = Console(stderr=True)


def fail(exc: GraphmemError, code: int | None = None) -> typer.Exit:
    """Print a typed error (and the ids it names) on stderr; the exit to raise.

    The code is 3 for :class:`DatabaseUnavailableError`, else ``code`` (default 2: a graphmem
    error out of a command is bad input, such as an unknown id or an invalid record).
    """
    # escaped: a message may hold brackets, as in pip install 'graphmem[html]'
    err_console.print(f"[red]error:[/red] {escape(str(exc))}", markup=True, highlight=False)
    if exc.record_ids:
        err_console.print(f"ids: {', '.join(exc.record_ids)}", highlight=False)
    if isinstance(exc, DatabaseUnavailableError):
        return typer.Exit(code=EXIT_UNAVAILABLE)
    return typer.Exit(code=EXIT_INPUT if code is None else code)


def usage_error(message: str) -> typer.Exit:
    """Print a usage error on stderr; the exit (code 2) to raise."""
    err_console.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    return typer.Exit(code=EXIT_INPUT)
