"""Evaluation reports: rich tables for the terminal, JSON files, and a PNG chart.

matplotlib is imported only when a chart is written (it is the optional ``charts`` extra),
with the non-interactive Agg backend, so nothing here needs a display.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.table import Table

from graphmem.errors import EvaluationError, ValidationError
from graphmem.evaluation.faults import FaultSuiteReport
from graphmem.evaluation.funnel import FunnelReport, MemoryEffect, MemoryStage
from graphmem.evaluation.metrics import ReadMetrics, WriteMetrics

__all__ = [
    "effects_table",
    "faults_table",
    "funnel_table",
    "read_table",
    "write_chart",
    "write_json",
    "write_table",
]


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0%}"


def faults_table(report: FaultSuiteReport) -> Table:
    """One row per fault: graphmem's verdict and evidence beside the naive baseline's."""
    table = Table(title=f"Fault injection (k={report.k}): graphmem let "
                        f"{report.graphmem_through}/{len(report.results)} through, naive "
                        f"baseline {report.naive_through}/{len(report.results)}")
    for name in ("fault", "from", "graphmem", "graphmem evidence", "naive", "naive evidence"):
        table.add_column(name, overflow="fold")
    for r in report.results:
        table.add_row(r.title, r.origin, _through(r.graphmem.let_through), r.graphmem.evidence,
                      _through(r.naive.let_through), r.naive.evidence)
    return table


def _through(flag: bool) -> str:
    return "[red]let through[/red]" if flag else "[green]stopped[/green]"


def funnel_table(report: FunnelReport, *, title: str = "Memory funnel") -> Table:
    """Per stage: trials reaching it, rate of all trials, rate of the previous stage, losses."""
    table = Table(title=f"{title} ({report.trials} trials, help measured on {report.measured})")
    for name in ("stage", "reached", "rate", "of previous", "lost here"):
        table.add_column(name, justify="left" if name == "stage" else "right")
    for stage in MemoryStage:
        table.add_row(stage.value, str(report.counts[stage]), _pct(report.rates[stage]),
                      _pct(report.step_rates[stage]), str(report.losses[stage]))
    return table


def effects_table(effects: Mapping[str, MemoryEffect], *, title: str = "Paired effect") -> Table:
    """shared, rescue, regret, unchanged and net per comparison, always together."""
    table = Table(title=title)
    for name in ("arm", "shared", "rescue", "regret", "unchanged", "net"):
        table.add_column(name, justify="left" if name == "arm" else "right")
    for arm, e in effects.items():
        table.add_row(arm, *(str(v) for v in e.as_dict().values()))
    return table


def write_table(metrics: Mapping[str, WriteMetrics]) -> Table:
    """Write-path metrics, one column per arm."""
    table = Table(title="Write path")
    table.add_column("metric")
    for arm in metrics:
        table.add_column(arm, justify="right")
    first = next(iter(metrics.values()))
    rows: list[tuple[str, list[str]]] = []
    for d in first.precision:
        rows.append((f"{d.value} precision", [_pct(m.precision[d]) for m in metrics.values()]))
        rows.append((f"{d.value} recall (of {first.support[d]})",
                     [_pct(m.recall[d]) for m in metrics.values()]))
    for label, attr in (("disposition accuracy", "accuracy"),
                        ("duplicate-creation rate", "duplicate_creation_rate"),
                        ("scope-assignment accuracy", "scope_accuracy"),
                        ("supersession accuracy", "supersession_accuracy")):
        rows.append((label, [_pct(getattr(m, attr)) for m in metrics.values()]))
    for label, values in rows:
        table.add_row(label, *values)
    return table


def read_table(metrics: Mapping[str, ReadMetrics]) -> Table:
    """Read-path metrics, one column per arm."""
    first = next(iter(metrics.values()))
    table = Table(title=f"Read path ({first.queries} queries, k={first.k})")
    table.add_column("metric")
    for arm in metrics:
        table.add_column(arm, justify="right")
    for label, attr in (("eligible recall", "eligible_recall"), ("recall@k", "recall_at_k"),
                        ("precision@k", "precision_at_k"),
                        ("stale-record retrieval rate", "stale_retrieval_rate"),
                        ("scope-violation rate", "scope_violation_rate")):
        table.add_row(label, *(_pct(getattr(m, attr)) for m in metrics.values()))
    table.add_row("records returned", *(str(m.returned) for m in metrics.values()))
    return table


def write_json(path: str | Path, payload: Mapping[str, Any]) -> Path:
    """Write ``payload`` as indented, key-sorted UTF-8 JSON (creating its folder); returns
    the path.

    Raises:
        ValidationError: the path cannot be written.
    """
    out = Path(path)
    text = json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot write {out}: {exc.strerror or exc}") from None
    return out


CHARTS_MISSING = "charts need matplotlib: pip install 'graphmem[charts]'"
"""The error of a chart asked for where matplotlib is not installed."""


def charts_problem() -> str | None:
    """:data:`CHARTS_MISSING` when matplotlib is not installed (None when it is): what a
    command that draws checks before any work (docs/cli.md)."""
    return CHARTS_MISSING if importlib.util.find_spec("matplotlib") is None else None


def write_chart(
    path: str | Path,
    *,
    funnel: FunnelReport | None = None,
    effects: Mapping[str, MemoryEffect] | None = None,
    faults: FaultSuiteReport | None = None,
) -> Path:
    """A PNG with one panel per report given: funnel bars (rate per stage), rescue and regret
    per arm, and faults let through per arm.

    Raises:
        EvaluationError: nothing to draw, or matplotlib is not installed
            (``pip install 'graphmem[charts]'``).
        ValidationError: the path cannot be written, or its extension names no format.
    """
    panels = [p for p in (("funnel", funnel), ("effects", effects), ("faults", faults))
              if p[1] is not None]
    if not panels:
        raise EvaluationError("write_chart needs at least one of funnel, effects, faults")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise EvaluationError(CHARTS_MISSING) from exc
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, (kind, data) in zip(axes[0], panels, strict=True):
        if kind == "funnel" and isinstance(data, FunnelReport):
            stages = [s.value for s in MemoryStage]
            rates = [0.0 if math.isnan(data.rates[s]) else data.rates[s] for s in MemoryStage]
            bars = ax.bar(stages, rates, color="#4c72b0")
            ax.bar_label(bars, labels=[str(data.counts[s]) for s in MemoryStage])
            ax.set_ylim(0, 1.1)
            ax.set_ylabel("share of trials (helped: of measured)")
            ax.set_title(f"graphmem funnel ({data.trials} trials)")
            ax.tick_params(axis="x", rotation=30)
        elif kind == "effects" and isinstance(data, Mapping):
            arms = list(data)
            xs = range(len(arms))
            rescue = ax.bar([x - 0.2 for x in xs], [data[a].rescue for a in arms], 0.4,
                            label="rescue", color="#55a868")
            regret = ax.bar([x + 0.2 for x in xs], [data[a].regret for a in arms], 0.4,
                            label="regret", color="#c44e52")
            ax.bar_label(rescue)
            ax.bar_label(regret)
            ax.set_xticks(list(xs), [f"{a}\n(n={data[a].shared})" for a in arms])
            ax.set_ylabel("tasks")
            ax.set_title("paired effect vs no memory")
            ax.legend()
        elif kind == "faults" and isinstance(data, FaultSuiteReport):
            arms = ["graphmem", "naive"]
            counts = [data.graphmem_through, data.naive_through]
            bars = ax.bar(arms, counts, color=["#4c72b0", "#dd8452"])
            ax.bar_label(bars)
            ax.set_ylim(0, len(data.results) + 1)
            ax.set_ylabel(f"faults let through (of {len(data.results)})")
            ax.set_title("fault injection")
    fig.tight_layout()
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=120)
    except OSError as exc:
        raise ValidationError(f"cannot write {out}: {exc.strerror or exc}") from None
    except ValueError as exc:  # an extension matplotlib has no format for
        raise ValidationError(f"cannot draw {out}: {exc}") from None
    finally:
        plt.close(fig)
    return out
