"""``graphmem eval ...``: the evaluation harness on the command line (SPEC section 9).

Every command connects like the rest of the CLI (``NEO4J_URI``, else the local server,
started if needed), writes only into a namespace of its own that it deletes afterwards
(``--keep`` leaves it), prints rich tables, and with ``--json``/``--chart`` writes the
report as JSON and a PNG.

- ``faults``: the fault-injection suite, graphmem beside the naive baseline; exits 1 when
  graphmem lets a fault through.
- ``write``: the write-path fixture.
- ``northwind``: read-path metrics, paired runs (graphmem, naive baseline, no memory) and
  the funnel rebuilt from the attribution log, on the northwind scenario.
- ``all``: the three, into one folder (``report.json`` and ``report.png``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from graphmem.errors import GraphmemError

__all__ = ["eval_app"]

console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")

eval_app = typer.Typer(
    help="Measure how memory helps and fails: fault injection, write and read paths, "
         "paired runs and the funnel.",
    no_args_is_help=True,
)

JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write the report as JSON here.")]
ChartOpt = Annotated[Path | None, typer.Option("--chart", help="Write a PNG chart here.")]
KeepOpt = Annotated[bool, typer.Option(help="Keep the seeded namespace in the database.")]
KOpt = Annotated[int, typer.Option("-k", min=1, help="Memories shown per retrieval.")]
ScenarioOpt = Annotated[Path | None, typer.Option(
    help="Northwind folder (default: GRAPHMEM_NORTHWIND, else shared/scenarios/northwind "
         "beside the checkout).")]


@contextmanager
def _memory() -> Iterator[Any]:
    from graphmem.client import Memory

    try:
        with err_console.status("Connecting to Neo4j ..."):
            memory = Memory.connect()
    except GraphmemError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(code=1) from None
    try:
        yield memory
    finally:
        memory.close()


def _run(label: str, work: Callable[[], T]) -> T:
    try:
        with err_console.status(label):
            return work()
    except GraphmemError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(code=1) from None


@eval_app.command("faults")
def faults_command(
    k: KOpt = 5,
    only: Annotated[list[str] | None, typer.Option(help="Run only these faults.")] = None,
    json_path: JsonOpt = None,
    chart: ChartOpt = None,
    keep: KeepOpt = False,
) -> None:
    """Seed one store per fault, probe graphmem and the naive baseline, and show which
    faults each let through. Exit code 1 when graphmem let any through."""
    from graphmem.evaluation.faults import run_faults
    from graphmem.evaluation.report import faults_table, write_chart, write_json

    with _memory() as memory:
        report = _run("Injecting faults ...", lambda: run_faults(memory, k=k, only=only,
                                                                 keep=keep))
    console.print(faults_table(report))
    if json_path:
        console.print(f"JSON: {write_json(json_path, report.as_dict())}")
    if chart:
        console.print(f"chart: {_run('Drawing ...', lambda: write_chart(chart, faults=report))}")
    if report.graphmem_through:
        raise typer.Exit(code=1)


@eval_app.command("write")
def write_command(json_path: JsonOpt = None, keep: KeepOpt = False) -> None:
    """The write-path fixture: disposition precision/recall, duplicates, scope, supersession."""
    from graphmem.evaluation.report import write_json, write_table
    from graphmem.evaluation.suites import run_write_path

    with _memory() as memory:
        result = _run("Writing the fixture ...", lambda: run_write_path(memory, keep=keep))
    console.print(write_table(result.metrics))
    if json_path:
        console.print(f"JSON: {write_json(json_path, result.as_dict())}")


@eval_app.command("northwind")
def northwind_command(
    scenario: ScenarioOpt = None,
    k: KOpt = 5,
    json_path: JsonOpt = None,
    chart: ChartOpt = None,
    keep: KeepOpt = False,
) -> None:
    """Read-path metrics, paired runs (graphmem, naive, no memory) and graphmem's funnel."""
    from graphmem.evaluation.northwind import run_northwind
    from graphmem.evaluation.report import (
        effects_table,
        funnel_table,
        read_table,
        write_chart,
        write_json,
    )

    with _memory() as memory:
        result = _run("Running northwind ...", lambda: run_northwind(
            memory, scenario=scenario, k=k, keep=keep))
    console.print(read_table(result.read))
    console.print(effects_table(result.effects, title="Paired effect (vs no memory; last row "
                                                      "head to head)"))
    console.print(funnel_table(result.funnel, title="graphmem funnel, from the attribution log"))
    if json_path:
        console.print(f"JSON: {write_json(json_path, result.as_dict())}")
    if chart:
        arms = {a: e for a, e in result.effects.items() if a != "graphmem_vs_naive"}
        drawn = _run("Drawing ...", lambda: write_chart(chart, funnel=result.funnel,
                                                        effects=arms))
        console.print(f"chart: {drawn}")


@eval_app.command("all")
def all_command(
    out: Annotated[Path, typer.Option(help="Folder for report.json and report.png.")] = Path(
        "eval-report"),
    scenario: ScenarioOpt = None,
    k: KOpt = 5,
) -> None:
    """Faults, write path and northwind into one JSON report and one chart."""
    from graphmem.evaluation.faults import run_faults
    from graphmem.evaluation.northwind import run_northwind
    from graphmem.evaluation.report import (
        effects_table,
        faults_table,
        funnel_table,
        read_table,
        write_chart,
        write_json,
        write_table,
    )
    from graphmem.evaluation.suites import run_write_path

    with _memory() as memory:
        faults = _run("Injecting faults ...", lambda: run_faults(memory, k=k))
        written = _run("Writing the fixture ...", lambda: run_write_path(memory))
        northwind = _run("Running northwind ...", lambda: run_northwind(memory,
                                                                         scenario=scenario, k=k))
    for table in (faults_table(faults), write_table(written.metrics), read_table(northwind.read),
                  effects_table(northwind.effects), funnel_table(northwind.funnel)):
        console.print(table)
    payload = {"faults": faults.as_dict(), "write_path": written.as_dict(),
               "northwind": northwind.as_dict()}
    console.print(f"JSON: {write_json(out / 'report.json', payload)}")
    arms = {a: e for a, e in northwind.effects.items() if a != "graphmem_vs_naive"}
    chart = _run("Drawing ...", lambda: write_chart(out / "report.png", funnel=northwind.funnel,
                                                    effects=arms, faults=faults))
    console.print(f"chart: {chart}")
    if faults.graphmem_through:
        raise typer.Exit(code=1)
