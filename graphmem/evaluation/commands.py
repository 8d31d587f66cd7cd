"""``graphmem eval ...``: the evaluation harness on the command line (docs/spec/evaluation.md).

Every command connects like the rest of the CLI (``NEO4J_URI``, else the local server,
started if needed), writes only into a namespace of its own that it deletes afterwards
(``--keep`` leaves it) and prints rich tables; ``--json`` prints the report as JSON on stdout
instead (and nothing else there), ``-o/--output FILE`` writes it, ``--chart FILE`` draws a PNG.
Exit codes (:mod:`graphmem.terminal`): 1 a fault let through, 2 bad input, 3 no database.

- ``faults``: the fault-injection suite, graphmem beside the naive baseline; exits 1 when
  graphmem lets a fault through.
- ``write``: the write-path fixture.
- ``northwind``: read-path metrics, paired runs (graphmem, naive baseline, no memory) and
  the funnel rebuilt from the attribution log, on the northwind scenario.
- ``all``: the three, into one folder (``report.json`` and ``report.png``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from graphmem.errors import GraphmemError
from graphmem.terminal import (
    EXIT_CHECK_FAILED,
    checked_output,
    console,
    err_console,
    fail,
    output_callback,
    usage_error,
    writing,
)

__all__ = ["eval_app"]

T = TypeVar("T")

eval_app = typer.Typer(
    help="Measure how memory helps and fails: fault injection, write and read paths, "
         "paired runs and the funnel.",
    no_args_is_help=True,
    rich_markup_mode=None,  # help is plain text: 'graphmem[html]' stays as written
)

#: File extensions ``--chart`` accepts (the formats matplotlib writes that we document).
CHART_SUFFIXES = ("png", "svg", "pdf")

JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print the report as JSON on stdout (and nothing else there).")]
OutputOpt = Annotated[Path | None, typer.Option(
    "-o", "--output", callback=checked_output, help="Write the report as JSON to this file.")]
_chart_path = output_callback(CHART_SUFFIXES)


def _check_charts() -> None:
    """End the command (exit 2, nothing done) when it would draw without matplotlib."""
    from graphmem.evaluation.report import charts_problem

    problem = charts_problem()
    if problem is not None:
        raise usage_error(problem)


def _chart_option(value: Path | None) -> Path | None:
    """``--chart``: a path that can be written, and matplotlib to draw it, checked before
    any work."""
    if _chart_path(value) is not None:
        _check_charts()
    return value


ChartOpt = Annotated[Path | None, typer.Option(
    "--chart", callback=_chart_option,
    help="Write a chart here (PNG; .svg and .pdf also work).")]
KeepOpt = Annotated[bool, typer.Option(help="Keep the seeded namespace in the database.")]
KOpt = Annotated[int, typer.Option("-k", min=1, help="Memories shown per retrieval.")]
ScenarioOpt = Annotated[Path | None, typer.Option(
    help="Northwind folder (default: the copy shipped with graphmem, or $GRAPHMEM_NORTHWIND).")]


@contextmanager
def _memory() -> Iterator[Any]:
    from graphmem.client import Memory

    try:
        with err_console.status("Connecting to Neo4j ..."):
            memory = Memory.connect()
    except GraphmemError as exc:
        raise fail(exc) from None
    try:
        yield memory
    finally:
        memory.close()


def _run(label: str, work: Callable[[], T]) -> T:
    try:
        with err_console.status(label):
            return work()
    except GraphmemError as exc:
        raise fail(exc) from None


def _emit(payload: dict[str, Any], as_json: bool, output: Path | None) -> None:
    """The report: JSON on stdout with ``--json``, and/or into ``output`` (noted on stderr)."""
    from graphmem.evaluation.report import write_json

    if output is not None:
        with writing(output):
            err_console.print(f"JSON: {write_json(output, payload)}", highlight=False)
    if as_json:
        typer.echo(json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False))


@eval_app.command("faults")
def faults_command(
    k: KOpt = 5,
    only: Annotated[list[str] | None, typer.Option(help="Run only these faults.")] = None,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
    chart: ChartOpt = None,
    keep: KeepOpt = False,
) -> None:
    """Seed one store per fault, probe graphmem and the naive baseline, and show which
    faults each let through. Exit code 1 when graphmem let any through."""
    from graphmem.evaluation.faults import run_faults
    from graphmem.evaluation.report import faults_table, write_chart

    with _memory() as memory:
        report = _run("Injecting faults ...", lambda: run_faults(memory, k=k, only=only,
                                                                 keep=keep))
    if not as_json:
        console.print(faults_table(report))
    _emit(report.as_dict(), as_json, output)
    if chart:
        with writing(chart):
            drawn = _run("Drawing ...", lambda: write_chart(chart, faults=report))
        err_console.print(f"chart: {drawn}", highlight=False)
    if report.graphmem_through:
        raise typer.Exit(code=EXIT_CHECK_FAILED)


@eval_app.command("write")
def write_command(as_json: JsonOpt = False, output: OutputOpt = None,
                  keep: KeepOpt = False) -> None:
    """The write-path fixture: disposition precision/recall, duplicates, scope, supersession."""
    from graphmem.evaluation.report import write_table
    from graphmem.evaluation.suites import run_write_path

    with _memory() as memory:
        result = _run("Writing the fixture ...", lambda: run_write_path(memory, keep=keep))
    if not as_json:
        console.print(write_table(result.metrics))
    _emit(result.as_dict(), as_json, output)


@eval_app.command("northwind")
def northwind_command(
    scenario: ScenarioOpt = None,
    k: KOpt = 5,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
    chart: ChartOpt = None,
    keep: KeepOpt = False,
) -> None:
    """Read-path metrics, paired runs (graphmem, naive, no memory) and graphmem's funnel."""
    from graphmem.evaluation.northwind import run_northwind
    from graphmem.evaluation.report import effects_table, funnel_table, read_table, write_chart

    with _memory() as memory:
        result = _run("Running northwind ...", lambda: run_northwind(
            memory, scenario=scenario, k=k, keep=keep))
    if not as_json:
        console.print(read_table(result.read))
        console.print(effects_table(result.effects, title="Paired effect (vs no memory; last "
                                                          "row head to head)"))
        console.print(funnel_table(result.funnel,
                                   title="graphmem funnel, from the attribution log"))
    _emit(result.as_dict(), as_json, output)
    if chart:
        arms = {a: e for a, e in result.effects.items() if a != "graphmem_vs_naive"}
        with writing(chart):
            drawn = _run("Drawing ...", lambda: write_chart(chart, funnel=result.funnel,
                                                            effects=arms))
        err_console.print(f"chart: {drawn}", highlight=False)


@eval_app.command("all")
def all_command(
    out: Annotated[Path, typer.Option(
        callback=output_callback(folder=True),
        help="Folder for report.json and report.png.")] = Path(
        "eval-report"),
    scenario: ScenarioOpt = None,
    k: KOpt = 5,
    as_json: JsonOpt = False,
) -> None:
    """Faults, write path and northwind into one JSON report and one chart (in --out).
    Exit code 1 when graphmem let a fault through."""
    from graphmem.evaluation.faults import run_faults
    from graphmem.evaluation.northwind import run_northwind
    from graphmem.evaluation.report import (
        effects_table,
        faults_table,
        funnel_table,
        read_table,
        write_chart,
        write_table,
    )
    from graphmem.evaluation.suites import run_write_path

    _check_charts()  # it draws report.png: before any work
    with _memory() as memory:
        faults = _run("Injecting faults ...", lambda: run_faults(memory, k=k))
        written = _run("Writing the fixture ...", lambda: run_write_path(memory))
        northwind = _run("Running northwind ...", lambda: run_northwind(memory,
                                                                         scenario=scenario, k=k))
    if not as_json:
        for table in (faults_table(faults), write_table(written.metrics),
                      read_table(northwind.read), effects_table(northwind.effects),
                      funnel_table(northwind.funnel)):
            console.print(table)
    payload = {"faults": faults.as_dict(), "write_path": written.as_dict(),
               "northwind": northwind.as_dict()}
    _emit(payload, as_json, out / "report.json")
    arms = {a: e for a, e in northwind.effects.items() if a != "graphmem_vs_naive"}
    with writing(out):
        chart = _run("Drawing ...", lambda: write_chart(
            out / "report.png", funnel=northwind.funnel, effects=arms, faults=faults))
    err_console.print(f"chart: {chart}", highlight=False)
    if faults.graphmem_through:
        raise typer.Exit(code=EXIT_CHECK_FAILED)
