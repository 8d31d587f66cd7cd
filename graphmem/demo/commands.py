"""``graphmem demo``: the northwind scenario against a real Neo4j, printed with rich."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from graphmem.client import Memory, store_of
from graphmem.db.ops.demo import DemoOps
from graphmem.db.settings import ConnectionSettings
from graphmem.demo.load import LoadReport, load_into
from graphmem.demo.run import DemoReport, default_scenario_dir, run_demo
from graphmem.demo.scenario import load_scenario
from graphmem.errors import GraphmemError
from graphmem.terminal import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    checked_output,
    console,
    emit_json,
    fail,
    writing,
)
from graphmem.terminal import err_console as err

__all__ = ["demo", "scenario_app"]

scenario_app = typer.Typer(
    help="Load a scenario into your database to keep and explore.",
    no_args_is_help=True,
    rich_markup_mode=None,  # help is plain text: 'graphmem[html]' stays as written
)


@contextmanager
def _demo_memory(wipe: bool) -> Iterator[Memory]:
    """A client on an empty store: the configured one (only if empty, or --wipe), else a
    throwaway local Neo4j started for the demo and removed afterwards."""
    settings = ConnectionSettings.from_env()
    if settings is not None:
        with Memory.connect(settings, start_if_needed=False) as memory:
            held = sum(store_of(memory).counts().values())
            if held and not wipe:
                raise GraphmemError(
                    f"the database at {settings.uri} is not empty ({held} graphmem nodes); "
                    "the demo needs an empty one. Pass --wipe to delete everything in it.")
            while wipe and DemoOps(store_of(memory)).wipe_batch(20_000):
                pass
            yield memory
        return
    from graphmem.db.server import EphemeralServer

    with err.status("Starting a throwaway local Neo4j for the demo ..."):
        server = EphemeralServer().start()
    try:
        with Memory.connect(server.settings, start_if_needed=False) as memory:
            yield memory
    finally:
        server.close()


def demo(
    scenario: Annotated[Path | None, typer.Option(
        help="Scenario folder of the same format (default: the northwind scenario shipped "
             "with graphmem, or $GRAPHMEM_NORTHWIND when set).")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the report as JSON on stdout (and nothing else there).")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Also write the report (JSON) to this file.")] = None,
    wipe: Annotated[bool, typer.Option(
        help="With NEO4J_URI set: delete everything in that database first.")] = False,
) -> None:
    """Load the northwind scenario through the write path, run its queries, check outcomes.

    The scenario is read and validated before any database work. Uses NEO4J_URI when set
    (the database must be empty, or pass --wipe); otherwise starts a throwaway local Neo4j.
    Exits 1 if any expectation of the scenario fails, 2 on bad input, 3 when the database
    is unavailable.
    """
    try:
        loaded = load_scenario(scenario or default_scenario_dir())
        with _demo_memory(wipe) as memory:
            report = run_demo(memory, loaded)
    except GraphmemError as exc:
        raise fail(exc) from None
    text = json.dumps(report.as_json(), indent=2, default=str)
    if output is not None:
        with writing(output):
            output.write_text(text + "\n", encoding="utf-8")
    if as_json:
        typer.echo(text)
    else:
        _print(report)
    raise typer.Exit(code=EXIT_CHECK_FAILED if report.failures else EXIT_OK)


def _print(report: DemoReport) -> None:
    writes = Table(title="Write path (records.jsonl, in file order)")
    for col in ("record", "disposition", "reason"):
        writes.add_column(col)
    colour = {"PERSIST": "green", "QUARANTINE": "yellow", "DISCARD": "red"}
    for w in report.writes:
        writes.add_row(w["id"], f"[{colour[w['disposition']]}]{w['disposition']}[/]",
                       w["reason"])
    console.print(writes)
    for op in report.operations:
        console.print(f"operation: {op['op']} {op['id']} by {op['by']} ({op['reason']})")
    for q in report.queries:
        _print_query(q)
    if report.intentions:
        table = Table(title="Prospective memory")
        for col in ("check", "fired", "expected", "ok"):
            table.add_column(col)
        for i in report.intentions:
            table.add_row(i["check"], ", ".join(i["fired"]) or "-",
                          ", ".join(i["expected"]) or "-", "yes" if i["ok"] else "[red]NO[/]")
        console.print(table)
    if report.failures:
        console.print(f"[red]{len(report.failures)} expectation(s) failed:[/]")
        for f in report.failures:
            console.print(f"  - {f}", highlight=False)
    else:
        console.print("[green]All northwind expectations hold.[/]")


def _print_query(q: dict[str, Any]) -> None:
    console.rule(f"[bold]{q['id']}[/]  now={q['now']}  scope={q['scope']}")
    if "error" in q:
        console.print(f"[yellow]{q['error']}[/]", highlight=False)
        return
    if not q["triggered"]:
        console.print(f"[dim]{'; '.join(q['notes'])}[/]")
        return
    console.print(f"triggers: {', '.join(q['triggers'])}")
    table = Table(show_lines=False)
    for col in ("memory", "kind", "score", "why", "source", "created"):
        table.add_column(col, no_wrap=True)
    table.add_column("content", ratio=1, overflow="fold")
    for m in q["memories"]:
        why = "partner" if m["reason"].startswith("conflict partner") else "ranked"
        table.add_row(m["id"], m["kind"], f"{m['score']:.3f}", why, m["source"],
                      m["created_at"][:10], m["content"])
    console.print(table)
    for c in q["conflicts"]:
        res = c["resolution"]
        verdict = (f"resolves to {res['value']} by {res['decided_by']}" if res["value"]
                   else "genuine ambiguity")
        console.print(f"[yellow]conflict[/] {c['key']}: {' vs '.join(c['values'])} "
                      f"({', '.join(c['record_ids'])}); {verdict}", highlight=False)
    for a in q["absent"]:
        mark = "ok" if a["status"] == a["expected"] else "[red]MISMATCH[/]"
        succ = f" -> {', '.join(a['successor_ids'])}" if a["successor_ids"] else ""
        console.print(f"  absent {a['id']}: {a['status']}{succ} ({a['detail']}) {mark}",
                      highlight=False)


@scenario_app.command("load")
def scenario_load(
    name: Annotated[str, typer.Argument(
        help="'northwind' (shipped with graphmem, or $GRAPHMEM_NORTHWIND when set) or a "
             "scenario folder.")] = "northwind",
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the report as JSON on stdout (and nothing else there).")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Also write the report (JSON) to this file.")] = None,
) -> None:
    """Load a scenario's records, operations and intentions into the configured database
    and keep them there: NEO4J_URI when set, else the local server (started if needed).

    Idempotent: what is already stored is left alone, so running it again changes nothing
    (records a deletion erased stay erased). Runs no queries and checks nothing: that is
    `graphmem demo`. Exits 2 on bad input or when an id is stored with other content
    (nothing is written then), 3 when the database is unavailable.
    """
    try:
        loaded = load_scenario(default_scenario_dir() if name == "northwind" else Path(name))
        with Memory.connect() as memory:
            report = load_into(memory, loaded)
    except GraphmemError as exc:
        raise fail(exc) from None
    emit_json(report.as_json(), as_json, output)
    if not as_json:
        _print_load(report)


def _print_load(report: LoadReport) -> None:
    table = Table(title=f"Scenario {report.scenario}: loaded", title_justify="left")
    for col in ("item", "id", "outcome", "detail"):
        table.add_column(col, no_wrap=col != "detail")
    colour = {"written": "green", "applied": "green", "erased": "dim"}
    for row in report.rows:
        tint = colour.get(row["outcome"], "")
        outcome = f"[{tint}]{row['outcome']}[/]" if tint else row["outcome"]
        table.add_row(row["item"], row["id"], outcome, row["detail"])
    console.print(table)
    counts = ", ".join(f"{n} {k}" for k, n in report.counts().items())
    console.print(f"{counts}; {report.changed} changed", highlight=False)
