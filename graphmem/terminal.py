"""What every ``graphmem`` command shares: the consoles (reports on stdout, progress and
errors on stderr), the exit codes, and how a command reports a typed error.

Exit codes, the same for every command (docs/cli.md, "Exit codes"):
0 success; 1 a check failed (an expectation, a fault let through, a verification);
2 bad usage or bad input; 3 the database is unavailable.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from graphmem.db.progress import Reporter
from graphmem.errors import DatabaseUnavailableError, GraphmemError, ValidationError
from graphmem.fields import parse_pairs

__all__ = ["EXIT_CHECK_FAILED", "EXIT_INPUT", "EXIT_OK", "EXIT_UNAVAILABLE", "checked_output",
           "console", "emit_json", "err_console", "fail", "fit_consoles", "output_callback",
           "output_problem", "parse_pairs", "parse_time", "stderr_reporter", "usage_error",
           "writing"]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_INPUT = 2
EXIT_UNAVAILABLE = 3

#: Width of reports written to a pipe or file: rich would cut tables there to 80 columns
#: ("rank…", "dispositi…"), which loses what a script or a log wanted. COLUMNS still wins.
PIPED_WIDTH = 160


def _report_width() -> int | None:
    """Columns of a report: COLUMNS when set, the terminal's (None: rich asks it) on a
    terminal, else :data:`PIPED_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if sys.stdout.isatty() else PIPED_WIDTH


console = Console(width=_report_width())
err_console = Console(stderr=True)


def fit_consoles() -> None:
    """Size the report console for the command being run, from the environment it runs in
    now rather than the one the module was imported in (docs/cli.md): a process that runs
    several commands, such as a test run through ``CliRunner`` or a program embedding the
    app, gets each one's COLUMNS."""
    console.width = _report_width()  # type: ignore[assignment]  # None: ask the terminal
def fail(exc: GraphmemError, code: int | None = None) -> typer.Exit:
    """Print a typed error (and the ids it names) on stderr; the exit to raise.

    The code is 3 for :class:`DatabaseUnavailableError`, else ``code`` (default 2: a graphmem
    error out of a command is bad input, such as an unknown id or an invalid record).
    """
    # escaped: a message may hold brackets, as in pip install 'graphmem[html]'
    err_console.print(f"[red]error:[/red] {escape(str(exc))}", markup=True, highlight=False,
                      soft_wrap=True)  # one line, however narrow the terminal
    if exc.record_ids:
        err_console.print(f"ids: {', '.join(exc.record_ids)}", highlight=False)
    if isinstance(exc, DatabaseUnavailableError):
        return typer.Exit(code=EXIT_UNAVAILABLE)
    return typer.Exit(code=EXIT_INPUT if code is None else code)


def usage_error(message: str) -> typer.Exit:
    """Print a usage error on stderr; the exit (code 2) to raise."""
    err_console.print(f"[red]error:[/red] {escape(message)}", markup=True, highlight=False,
                      soft_wrap=True)
    return typer.Exit(code=EXIT_INPUT)


def stderr_reporter(every_s: float = 5.0) -> Reporter:
    """A progress reporter (:mod:`graphmem.db.progress`) that prints ``phase: detail`` lines
    on stderr: the first of each phase at once, then at most one every ``every_s`` seconds,
    and the last ("done ...", "ready ...") always. Nothing goes to stdout, so ``--json``
    output stays clean, and plain lines work in a log as in a terminal (beside a spinner)."""
    last: dict[str, float] = {}

    def show(phase: str, detail: str) -> None:
        now = time.monotonic()
        final = detail.startswith(("done", "ready"))
        if phase in last and not final and now - last[phase] < every_s:
            return
        last[phase] = now
        err_console.print(f"{phase}: {detail}" if detail else phase, highlight=False,
                          soft_wrap=True, markup=False)

    return show


def output_problem(path: Path, *, suffixes: Collection[str] = (),
                   folder: bool = False) -> str | None:
    """Why a command could not write its output to ``path``, or None when it can: checked
    before the command does any work, so a long run does not end in a lost report.

    Args:
        path: a file a command will write (``-o``, ``--chart``), or with ``folder`` a
            folder it will create or fill (``eval all --out``).
        suffixes: the file extensions accepted (lower case, no dot); empty: any.
        folder: ``path`` names a folder.

    The folder that holds ``path`` must exist (nothing is created on the way); the check
    opens the file (or a probe file in the folder) for writing and removes what it created,
    so permissions, read-only file systems and special paths count, for root as well.
    """
    suffix = path.suffix.lower().lstrip(".")
    if suffixes and suffix not in suffixes:
        shown = f"extension .{suffix}" if suffix else "no extension"
        return (f"{path} has {shown}; use one of "
                f"{', '.join('.' + s for s in sorted(suffixes))}")
    if folder and path.exists() and not path.is_dir():
        return f"cannot write into {path}: it is a file, not a folder"
    if folder and path.is_dir():
        parent, target = path, path / ".graphmem-write-probe"
    else:
        parent, target = path.parent, path
    if not parent.is_dir():
        return f"cannot write {path}: the folder {parent} does not exist"
    if not folder and path.is_dir():
        return f"cannot write {path}: it is a folder"
    existed = target.exists()
    try:
        with target.open("ab"):
            pass
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    if not existed:
        target.unlink(missing_ok=True)
    return None


def output_callback(suffixes: Collection[str] = (), *, folder: bool = False
                    ) -> Callable[[Path | None], Path | None]:
    """A typer option callback that ends the command with exit 2 and a one-line message
    when its path cannot be written (:func:`output_problem`); every command's ``-o``,
    ``--chart`` and output folder goes through one."""
    accepted = frozenset(suffixes)

    def check(value: Path | None) -> Path | None:
        if value is not None:
            problem = output_problem(value, suffixes=accepted, folder=folder)
            if problem is not None:
                raise usage_error(problem)
        return value

    return check


checked_output = output_callback()
"""The callback of a ``-o FILE`` option that takes any extension."""


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Write ``path`` inside this block: an ``OSError`` (disk full, a folder removed since
    the option was checked) ends the command with exit 2 and a one-line message."""
    try:
        yield
    except OSError as exc:
        raise usage_error(f"cannot write {path}: {exc.strerror or exc}") from None



def parse_time(text: str | None, option: str = "--at") -> datetime | None:
    """An ISO-8601 time with a timezone (``2026-06-01T12:00:00+00:00`` or ``...Z``).

    Raises:
        ValidationError: not ISO-8601, or no timezone (graphmem times are aware UTC).
    """
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValidationError(f"{option} takes an ISO-8601 time, got {text!r}") from None
    if value.tzinfo is None:
        raise ValidationError(f"{option} needs a timezone, e.g. "
                              f"{value.isoformat(timespec='seconds')}+00:00")
    return value


def emit_json(payload: Mapping[str, Any] | list[Any], as_json: bool,
              output: Path | None) -> None:
    """A command's report: written to ``output`` if given (noted on stderr), and printed as
    the only thing on stdout if ``as_json``. Datetimes become ISO-8601 strings."""
    text = json.dumps(payload, indent=2, ensure_ascii=False, default=_iso)
    if output is not None:
        with writing(output):
            output.write_text(text + "\n", encoding="utf-8")
        err_console.print(f"report written to {output}", highlight=False)
    if as_json:
        typer.echo(text)


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)
