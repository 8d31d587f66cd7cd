"""``graphmem explain``, ``graphmem history`` and ``graphmem retrieve``: the read path for
privacy teams and analysts without writing Python.

- ``explain ID --tenant T``: the record's status for a caller of tenant T (docs/spec/status.md)
  and why, with the successors when it is superseded.
- ``history ID``: its declared transitions and write decisions, oldest first.
- ``retrieve --tenant T --goal TEXT``: the read path (docs/spec/read-path.md) as an explicit request
  (the ``needs_prior_context`` trigger set): the rendered memories, conflicts, retrieval id.

Every command connects with :meth:`graphmem.Memory.connect`, prints a report (``--json``:
JSON only on stdout; ``-o FILE`` writes it) and exits 2 on bad input (an unknown record, a
malformed option), 3 when no database is available.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from graphmem.client import Memory
from graphmem.errors import GraphmemError, ValidationError
from graphmem.limits import DEFAULT_LIMITS
from graphmem.models import Principal, Sensitivity
from graphmem.terminal import (
    checked_output,
    console,
    emit_json,
    fail,
    parse_pairs,
    parse_time,
)

__all__ = ["explain_command", "history_command", "retrieve_command"]

JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print the report as JSON on stdout (and nothing else there).")]
OutputOpt = Annotated[Path | None, typer.Option(
    "-o", "--output", callback=checked_output, help="Write the report (JSON) to this file.")]
TenantOpt = Annotated[str, typer.Option(help="The caller's tenant (and the scope's).")]
ScopeOpt = Annotated[list[str] | None, typer.Option(
    "--scope", help="KEY=VALUE of the query scope besides the tenant (repeat).")]
ClearanceOpt = Annotated[Sensitivity, typer.Option(
    help="The caller's clearance.", case_sensitive=False)]
AtOpt = Annotated[str | None, typer.Option(
    "--at", help="ISO-8601 time with a timezone (default: now).")]


def _caller(tenant: str, scope: list[str] | None, clearance: Sensitivity
            ) -> tuple[Principal, dict[str, str]]:
    """The principal of one tenant and the query scope (tenant plus ``--scope`` pairs)."""
    pairs = parse_pairs(scope, "--scope")
    if pairs.get("tenant", tenant) != tenant:
        raise GraphmemError(f"--scope tenant={pairs['tenant']} differs from --tenant {tenant}")
    if not tenant:  # the principal model refuses it with a pydantic error
        raise ValidationError("--tenant must name a tenant (a non-empty string)")
    return (Principal(tenants=frozenset({tenant}), clearance=clearance),
            DEFAULT_LIMITS.check_scope("the query scope", {**pairs, "tenant": tenant}, tenant=True))


def explain_command(
    record_id: Annotated[str, typer.Argument(help="The record to explain.")],
    tenant: TenantOpt,
    scope: ScopeOpt = None,
    clearance: ClearanceOpt = Sensitivity.NORMAL,
    at: AtOpt = None,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
) -> None:
    """Why a record is or is not retrievable for a caller of one tenant (docs/spec/status.md)."""
    try:
        principal, query_scope = _caller(tenant, scope, clearance)
        now = parse_time(at)
        with Memory.connect() as memory:
            explanation = memory.explain(record_id, principal=principal, scope=query_scope,
                                         now=now)
    except GraphmemError as exc:
        raise fail(exc) from None
    report = {"record_id": explanation.record_id, "status": explanation.status.value,
              "detail": explanation.detail, "successor_ids": list(explanation.successor_ids),
              "tenant": tenant, "scope": query_scope, "clearance": clearance.value,
              "at": at}
    emit_json(report, as_json, output)
    if not as_json:
        console.print(f"{escape(record_id)}: [bold]{explanation.status.value}[/bold]  "
                      f"{escape(explanation.detail)}", highlight=False)
        if explanation.successor_ids:
            console.print(f"successors: {', '.join(explanation.successor_ids)}",
                          highlight=False)


def history_command(
    record_id: Annotated[str, typer.Argument(help="The record whose history to show.")],
    as_json: JsonOpt = False,
    output: OutputOpt = None,
) -> None:
    """A record's declared transitions and write decisions, oldest first."""
    try:
        with Memory.connect() as memory:
            rows = memory.history(record_id)
            if not rows:
                memory.get(record_id)  # raises for an unknown id
    except GraphmemError as exc:
        raise fail(exc) from None
    events = [{"at": row["at"], "kind": row["kind"], "by": row["by"], "reason": row["reason"]}
              for row in rows]
    emit_json({"record_id": record_id, "events": events}, as_json, output)
    if not as_json:
        table = Table(title=f"History of {escape(record_id)}", title_justify="left")
        for col in ("at", "event", "by", "reason"):
            table.add_column(col)
        for e in events:
            table.add_row(e["at"].isoformat() if e["at"] else "", escape(e["kind"]),
                          escape(e["by"] or ""), escape(e["reason"] or ""))
        console.print(table)


def retrieve_command(
    tenant: TenantOpt,
    goal: Annotated[str, typer.Option(help="What the agent is deciding now.")],
    scope: ScopeOpt = None,
    observation: Annotated[str, typer.Option(help="The latest observation.")] = "",
    budget: Annotated[int, typer.Option(
        min=1, help="Context budget, in characters of rendered memory.")] = 4000,
    ranker: Annotated[str, typer.Option(help="bm25, embedding or hybrid.")] = "bm25",
    clearance: ClearanceOpt = Sensitivity.NORMAL,
    at: AtOpt = None,
    as_json: JsonOpt = False,
    output: OutputOpt = None,
) -> None:
    """Run the read path for a goal (docs/spec/read-path.md) and print the memories as a model would
    see them, the conflicts among the candidates and the retrieval id (for attribution)."""
    try:
        principal, query_scope = _caller(tenant, scope, clearance)
        now = parse_time(at)
        state = {"memory_scope": query_scope, "goal": goal, "last_observation": observation,
                 "needs_prior_context": True}
        with Memory.connect() as memory:
            result = memory.retrieve(state, principal=principal, now=now, budget_chars=budget,
                                     ranker=ranker)
    except GraphmemError as exc:
        raise fail(exc) from None
    trace = result.trace
    report: dict[str, Any] = {
        "retrieval_id": trace.retrieval_id, "at": trace.at, "ranker": trace.ranker,
        "memories": [{"id": m.record.id, "kind": m.record.kind.value,
                      "score": round(m.score, 4), "reason": m.reason,
                      "created_at": m.record.created_at, "content": m.record.content}
                     for m in result.memories],
        "conflicts": [{"key": c.key, "values": list(c.values), "record_ids": list(c.record_ids)}
                      for c in result.conflicts],
        "rendered": result.rendered, "budget_chars": trace.budget_chars,
        "spent_chars": trace.spent_chars, "notes": list(trace.notes),
    }
    emit_json(report, as_json, output)
    if not as_json:
        console.print(escape(result.rendered) or "[dim](no memories)[/dim]", highlight=False)
        for c in result.conflicts:
            console.print(f"[yellow]conflict[/yellow] {escape(c.key)}: "
                          f"{escape(' vs '.join(c.values))} ({', '.join(c.record_ids)})",
                          highlight=False)
        console.print(f"retrieval {trace.retrieval_id}: {len(result.memories)} memories, "
                      f"{trace.spent_chars}/{trace.budget_chars} chars", highlight=False)
