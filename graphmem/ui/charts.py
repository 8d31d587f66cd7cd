"""Inline SVG bar charts for the inspector's reports page (pure: no database, no browser
library; docs/ui.md).

:func:`bar_chart` draws labelled horizontal bars; :func:`funnel_bars` and
:func:`fault_bars` read the parts of a ``graphmem eval all`` report (docs/spec/evaluation.md)
that the page charts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from graphmem.errors import ValidationError
from graphmem.evaluation.funnel import MemoryStage

__all__ = ["Bar", "bar_chart", "fault_bars", "funnel_bars"]

Bar = tuple[str, float, str]
"""One bar: label, value (>= 0) and fill colour."""

ROW = 22
LABEL_W = 220
BAR_W = 360


def bar_chart(title: str, bars: Sequence[Bar], *, unit: str = "") -> str:
    """An SVG of horizontal bars scaled to the largest value, each with its number.

    Args:
        title: the chart's accessible title. bars: the bars, top to bottom.
        unit: appended to each number (e.g. ``%``).

    Returns:
        ``<svg>`` markup, every text escaped.
    """
    top = max((v for _, v, _ in bars), default=0.0) or 1.0
    height = ROW * len(bars) + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" '
             f'width="{LABEL_W + BAR_W + 70}" height="{height}" '
             f'aria-label="{escape(title)}"><title>{escape(title)}</title>']
    for i, (label, value, colour) in enumerate(bars):
        y = 4 + i * ROW
        width = max(0.0, value) / top * BAR_W
        number = f"{value:g}{unit}"
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{y + 15}" text-anchor="end">{escape(label)}</text>'
            f'<rect x="{LABEL_W}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" '
            f'fill="{escape(colour)}"><title>{escape(label)}: {escape(number)}</title></rect>'
            f'<text x="{LABEL_W + width + 4:.1f}" y="{y + 15}">{escape(number)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _count(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValidationError(f"the report's {what} is not a count")
    return float(value)


def funnel_bars(funnel: Mapping[str, Any]) -> list[Bar]:
    """The funnel's stage counts as bars, in the funnel's order (written -> eligible ->
    retrieved -> exposed -> used -> helped, as :class:`MemoryStage` lists them; a report's
    JSON may hold them in any order), other stages after them.

    Raises:
        ValidationError: ``funnel`` has no ``counts`` mapping of counts.
    """
    counts = funnel.get("counts")
    if not isinstance(counts, Mapping):
        raise ValidationError("the report's funnel has no counts")
    order = {stage.value: i for i, stage in enumerate(MemoryStage)}
    ordered = sorted(counts.items(), key=lambda kv: order.get(str(kv[0]), len(order)))
    return [(str(stage), _count(n, f"funnel count of {stage}"), "#2a9d8f")
            for stage, n in ordered]


def fault_bars(faults: Mapping[str, Any]) -> list[Bar]:
    """Per fault: 1 when graphmem let it through (red), 0 when it held; then the naive
    baseline's total for comparison.

    Raises:
        ValidationError: ``faults`` has no ``results`` list of fault results.
    """
    results = faults.get("results")
    if not isinstance(results, list):
        raise ValidationError("the report's fault suite has no results")
    bars: list[Bar] = []
    for item in results:
        if not isinstance(item, Mapping) or not isinstance(item.get("graphmem"), Mapping):
            raise ValidationError("a fault result of the report is malformed")
        through = bool(item["graphmem"].get("let_through"))
        naive = isinstance(item.get("naive"), Mapping) and bool(item["naive"].get("let_through"))
        label = f"{'✗' if through else '✓'} {item.get('fault', '?')}"
        bars.append((label, 1.0 if through else 0.0, "#e76f51"))
        bars.append((f"   naive{' ✗' if naive else ''}", 1.0 if naive else 0.0, "#adb5bd"))
    return bars
