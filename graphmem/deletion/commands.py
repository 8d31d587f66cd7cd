"""``graphmem delete ...``: deletion walks for privacy teams and
derivation graphs for analysts (docs/spec/deletion.md). :mod:`graphmem.cli` registers
:data:`delete_app` as a command group and :func:`lineage_command` as a command.

::

    graphmem delete plan --subject tenant=acme --subject user=u-17 [--redact "Jane Roe"]
                         [--request-id ID] [--allow-empty] [--json] [-o PLAN.json]
    graphmem delete apply PLAN.json [--redact TERM] [--batch-size N] [--json] [-o REPORT.json]
    graphmem delete verify REQUEST_ID [--json] [-o REPORT.json]
    graphmem lineage ID [--direction up|down|both] [--depth N]
                        [--format graphml|gexf|json|dot|mermaid|png|svg] [-o FILE]

Every command connects with :meth:`graphmem.Memory.connect` (``NEO4J_*`` environment or the
``graphmem db start`` server). Exit codes (:mod:`graphmem.terminal`): 1 a failed
verification or a plan whose subject or roots match nothing (without ``--allow-empty``), 2 bad
input (an unknown request, a tampered plan, terms that are not the plan's), 3 no database.
A plan file is written readable by its owner only (0600) and holds no term in clear: apply
takes the terms again (``--redact``) and checks them against the plan's digests.
Heavy imports (the client, networkx, matplotlib) happen inside the commands.
"""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from graphmem.errors import GraphmemError
from graphmem.terminal import (
    EXIT_CHECK_FAILED,
    checked_output,
    console,
    err_console,
    fail,
    parse_pairs,
    writing,
)

if TYPE_CHECKING:
    from graphmem.client import Memory
    from graphmem.deletion.disk import DiskResidue
    from graphmem.deletion.models import DeletionPlan, DeletionReport

__all__ = ["delete_app"]

delete_app = typer.Typer(
    help="Plan, apply and verify deletion walks over lineage (docs/spec/deletion.md).",
    no_args_is_help=True,
    rich_markup_mode=None,  # help is plain text: 'graphmem[html]' stays as written
)

_TABLE_ROWS = 50


def _connect() -> Memory:
    from graphmem.client import Memory

    return Memory.connect()


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable and writable by its owner only (0600), also when
    the file exists already."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(text)


def _plan_tables(plan: DeletionPlan, limit: int) -> None:
    title = (f"Deletion plan {plan.request_id}  ({plan.entry_count} nodes; "
             f"requested by {plan.requested_by}: {plan.reason})")
    table = Table(title=title, title_justify="left")
    for col in ("id", "node", "kind", "disposition", "via", "depth"):
        table.add_column(col, no_wrap=True)
    table.add_column("reason", overflow="fold", min_width=20)
    for entry in plan.first_entries(limit):
        table.add_row(entry.id, entry.node.value, entry.kind or "", entry.disposition.value,
                      entry.via, str(entry.depth), entry.reason)
    console.print(table)
    if plan.entry_count > limit:
        console.print(f"... and {plan.entry_count - limit} more (see --json or -o)")
    counts = Table(title="Counts", title_justify="left")
    counts.add_column("disposition")
    counts.add_column("nodes", justify="right")
    for name, n in plan.counts().items():
        counts.add_row(name, str(n))
    console.print(counts)
    if plan.reach is not None:
        where = ", ".join(f"{k}={v}" for k, v in plan.reach.scope.items()) or "whole tenant"
        console.print(f"reach: made by a confined caller ({where}; clearance "
                      f"{plan.reach.clearance.value}): its terms and retrievals were looked "
                      "for only there; a tenant-wide principal must run the terms for the "
                      "rest", highlight=False)
    if plan.dangling_citations:
        cites = Table(title="Dangling citations (evidence_ids naming deleted records)",
                      title_justify="left")
        cites.add_column("record")
        cites.add_column("cites")
        for c in plan.dangling_citations[:limit]:
            cites.add_row(c.record_id, ", ".join(c.cites))
        console.print(cites)
    if plan.retrievals:
        hits = Table(title="Logged retrievals touched", title_justify="left")
        hits.add_column("retrieval")
        hits.add_column("selected deleted")
        hits.add_column("query redacted")
        for h in plan.retrievals[:limit]:
            hits.add_row(h.retrieval_id, ", ".join(h.selected_ids),
                         "yes" if h.query_holds_terms else "")
        console.print(hits)


def _report_tables(report: DeletionReport, limit: int) -> None:
    req = report.request
    if report.already_applied:
        console.print(f"already applied, nothing changed: request {req.id} finished at "
                      f"{req.finished_at}", highlight=False)
        _disk_table(report.disk)
        _verdict(report)
        return
    table = Table(title=f"Deletion request {req.id}: {req.state}", title_justify="left")
    for col in ("id", "node", "kind", "disposition", "changed"):
        table.add_column(col, no_wrap=True)
    for e in report.entries[:limit]:
        table.add_row(e.id, e.node.value, e.kind or "",
                      e.disposition.value + (" (written after planning)" if e.late else ""),
                      "yes" if e.changed else "no")
    console.print(table)
    if len(report.entries) > limit:
        console.print(f"... and {len(report.entries) - limit} more (see --json)")
    console.print(", ".join(f"{k} {v}" for k, v in report.counts.items())
                  + f"; changed {report.changed}", highlight=False)
    _disk_table(report.disk)
    _verdict(report)


def _disk_table(residue: DiskResidue | None) -> None:
    """What the apply did to the server's files, and what stays outside graphmem's reach
    (the report's ``disk``, as ``--json`` shows it)."""
    if residue is None:
        console.print("server files: not settled by this apply (no record of it)",
                      highlight=False)
        return
    if residue.managed:
        done = (f"server files purged: {residue.zeroed_records} free record(s) zeroed, "
                f"{residue.log_files} transaction log file(s) kept, "
                f"in {residue.seconds:.2f} s")
    else:
        done = ("server files: not run by graphmem, nothing purged; "
                f"{len(residue.settings)} setting(s) read")
    console.print(done, highlight=False)
    table = Table(title="Outside graphmem's reach", title_justify="left")
    table.add_column("what", no_wrap=True)
    table.add_column("setting", no_wrap=True)
    for col in ("value", "what to do"):
        table.add_column(col, overflow="fold")
    for note in residue.outside_reach:
        table.add_row(note.what, note.setting or "",
                      "" if note.setting is None else (note.value or "(not read)"),
                      note.detail)
    console.print(table)


def _verdict(report: DeletionReport) -> None:
    v = report.verification
    verdict = "[green]passed[/green]" if v.passed else "[red]FAILED[/red]"
    console.print(f"verification {verdict}: {v.disposed}/{v.planned} disposed, "
                  f"{v.terms_checked} of {v.terms_requested} term(s) checked", highlight=False)
    for problem in v.problems:
        console.print(f"  - {problem}", highlight=False, markup=False)


@delete_app.command("plan")
def plan_command(
    subject: Annotated[list[str] | None, typer.Option(
        "--subject", help="KEY=VALUE of the subject scope (repeat; must include tenant).")] = None,
    root: Annotated[list[str] | None, typer.Option(
        "--root", help="A record or intention id to erase (repeat); instead of --subject.")] = None,
    redact: Annotated[list[str] | None, typer.Option(
        "--redact", help="A term to redact wherever it survives (repeat).")] = None,
    requested_by: Annotated[str | None, typer.Option(
        help="Who asks (default: the current user).")] = None,
    reason: Annotated[str, typer.Option(help="Why (kept for audit).")] = "erasure request",
    request_id: Annotated[str | None, typer.Option(
        help="The request's id, e.g. your ticket (default: a fresh del-<uuid>).")] = None,
    allow_empty: Annotated[bool, typer.Option(
        help="Accept a subject or roots that match nothing (exit 0 instead of 1; roots that "
             "name nothing are left out of the plan).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the plan (JSON) to this file.")] = None,
) -> None:
    """Plan a deletion walk: roots, descendants over lineage, and a disposition for each.

    Exits 1 when the subject or a root matches no record or intention (usually a typo),
    unless --allow-empty; the plan is still printed and written. The plan file is written
    0600 and holds the --redact terms only as salted digests: give them again to apply.
    """
    try:
        subject_scope = parse_pairs(subject, "--subject") if subject else None
        from graphmem.deletion.plan import check_plan_inputs
        from graphmem.limits import DEFAULT_LIMITS

        asked: dict[str, Any] = {"roots": root or None, "subject": subject_scope,
                                 "redact_terms": redact or (),
                                 "requested_by": requested_by or getpass.getuser(),
                                 "reason": reason, "request_id": request_id}
        check_plan_inputs(DEFAULT_LIMITS, **asked)  # bad usage before Neo4j starts
        with _connect() as memory:
            plan = memory.plan_deletion(**asked, allow_missing=True)
    except GraphmemError as exc:
        raise fail(exc) from None
    if output is not None:
        with writing(output):
            _write_private(output, plan.to_json())
    if as_json:
        sys.stdout.write(plan.to_json() + "\n")
    else:
        _plan_tables(plan, _TABLE_ROWS)
        if output is not None:
            again = "".join(" --redact TERM" for _ in range(plan.term_count))
            console.print(f"plan written to {output}; apply it with "
                          f"`graphmem delete apply {output}{again}`", highlight=False)
    if plan.matches_nothing:
        what = (f"the subject {plan.subject}" if plan.subject is not None else
                f"the roots {', '.join(plan.missing_roots)}" if plan.missing_roots
                else "the roots")
        tone = "yellow" if allow_empty else "red"
        err_console.print(
            f"[bold {tone}]{what} matched no record or intention[/]: this plan deletes "
            "nothing. Check the subject for a typo"
            + ("." if allow_empty else "; pass --allow-empty to accept an empty plan."),
            highlight=False)
        if not allow_empty:
            raise typer.Exit(code=EXIT_CHECK_FAILED)


@delete_app.command("apply")
def apply_command(
    plan_file: Annotated[Path, typer.Argument(help="A plan written by `delete plan -o`.",
                                              exists=True, dir_okay=False)],
    redact: Annotated[list[str] | None, typer.Option(
        "--redact", help="The plan's terms again (repeat; the plan keeps only their "
                         "digests).")] = None,
    batch_size: Annotated[int, typer.Option(
        help="Nodes per transaction; a plan that fits one batch is applied atomically.")] = 1000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the report (JSON) to this file.")] = None,
) -> None:
    """Apply a reviewed plan (resumes a crashed apply; re-applying changes nothing and says
    so: "already applied, nothing changed", exit 0)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from graphmem.deletion.models import DeletionPlan
    from graphmem.limits import DEFAULT_LIMITS

    try:
        plan = DeletionPlan.from_json(
            DEFAULT_LIMITS.read_document("deletion plan", plan_file, "plan_bytes"))
        with _connect() as memory:
            if plan.entry_count > batch_size:
                with Progress("[progress.description]{task.description}", BarColumn(),
                              MofNCompleteColumn(), TimeElapsedColumn(),
                              console=err_console) as bar:
                    task = bar.add_task("applying", total=plan.entry_count)
                    report = memory.apply_deletion(
                        plan, batch_size=batch_size, redact_terms=redact,
                        progress=lambda done, total: bar.update(task, completed=done))
            else:
                report = memory.apply_deletion(plan, batch_size=batch_size,
                                               redact_terms=redact)
    except GraphmemError as exc:
        raise fail(exc) from None
    if output is not None:
        with writing(output):
            output.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    _emit_report(report, as_json)


def _emit_report(report: DeletionReport, as_json: bool) -> None:
    """Print an audit report (JSON or tables); exit 1 when its verification failed."""
    if as_json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    else:
        _report_tables(report, _TABLE_ROWS)
    if not report.verification.passed:
        raise typer.Exit(code=EXIT_CHECK_FAILED)


@delete_app.command("verify")
def verify_command(
    request_id: Annotated[str, typer.Argument(help="The request id (del-...).")],
    redact: Annotated[list[str] | None, typer.Option(
        "--redact", help="Optional: a term of the request again (repeat); the request's "
                         "own terms are checked anyway, from their digests.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the report (JSON) to this file.")] = None,
) -> None:
    """Re-run the verification of an applied request and print its audit report; it checks
    every term of the request (kept as keyed digests) without being given them."""
    try:
        with _connect() as memory:
            report = memory.verify_deletion(request_id, redact_terms=redact or ())
    except GraphmemError as exc:
        raise fail(exc) from None
    if output is not None:
        with writing(output):
            output.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    _emit_report(report, as_json)


# ------------------------------------------------------------------------- certificates


@delete_app.command("certificate")
def certificate_command(
    request_id: Annotated[str, typer.Argument(help="An applied request's id (del-...).")],
    redact: Annotated[list[str] | None, typer.Option(
        "--redact", help="A term of the request, for its verification (repeat).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the certificate (JSON) to this file.")] = None,
) -> None:
    """Issue (or show again) the erasure certificate of an applied request, chained to its
    tenants' previous ones. Exits 1 when its verification fails (nothing is issued)."""
    from graphmem.errors import CertificateError

    try:
        with _connect() as memory:
            cert = memory.deletion_certificate(request_id, redact_terms=redact or ())
    except CertificateError as exc:
        raise fail(exc, EXIT_CHECK_FAILED) from None
    except GraphmemError as exc:
        raise fail(exc) from None
    if output is not None:
        with writing(output):
            output.write_text(cert.to_json() + "\n", encoding="utf-8")
    if as_json:
        sys.stdout.write(cert.to_json() + "\n")
        return
    table = Table(title=f"Erasure certificate of {cert.request_id}", title_justify="left")
    table.add_column("field")
    table.add_column("value", overflow="fold")
    for name, value in (("requested by", cert.requested_by), ("reason", cert.reason),
                        ("finished", str(cert.finished_at)), ("plan digest", cert.plan_digest),
                        ("counts", ", ".join(f"{k} {v}" for k, v in cert.counts.items())),
                        ("checks", ", ".join(f"{c.name} {'ok' if c.passed else 'FAILED'}"
                                             for c in cert.checks)),
                        ("outside reach", "; ".join(o.what for o in cert.outside_reach)),
                        ("previous", ", ".join(f"{t}: {d or '(first)'}"
                                               for t, d in cert.previous.items())),
                        ("digest", cert.digest)):
        table.add_row(name, value)
    console.print(table)


@delete_app.command("check-certificate")
def check_certificate_command(
    certificate: Annotated[Path, typer.Argument(help="A certificate written by "
                                                "`delete certificate -o`.",
                                                exists=True, dir_okay=False)],
    redact: Annotated[list[str] | None, typer.Option(
        "--redact", help="A term of the request, for its verification (repeat).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
) -> None:
    """Tell whether a certificate was altered and whether the store still agrees with it.
    Exits 1 when either fails, 2 when the file is not a certificate."""
    from graphmem.limits import DEFAULT_LIMITS

    try:
        text = DEFAULT_LIMITS.read_document("certificate", certificate, "certificate_bytes")
        with _connect() as memory:
            verdict = memory.check_certificate(text, redact_terms=redact or ())
    except GraphmemError as exc:
        raise fail(exc) from None
    if as_json:
        sys.stdout.write(verdict.model_dump_json(indent=2) + "\n")
    else:
        ok = "[green]intact[/green]" if verdict.intact else "[red]ALTERED[/red]"
        agrees = ("[green]the store agrees[/green]" if verdict.agrees
                  else "[red]the store DISAGREES[/red]")
        console.print(f"certificate {verdict.digest[:16]}... of {verdict.request_id}: "
                      f"{ok}, {agrees}", highlight=False)
        for problem in verdict.problems:
            console.print(f"  - {problem}", highlight=False, markup=False)
    if not verdict.passed:
        raise typer.Exit(code=EXIT_CHECK_FAILED)
