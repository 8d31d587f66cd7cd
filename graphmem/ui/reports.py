"""The reports page of the inspector: the funnel and the fault suite of the evaluation report
given at start (``graphmem ui --report eval-report/report.json``, the file ``graphmem eval
all`` writes), as inline SVG charts (docs/ui.md; docs/spec/evaluation.md).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graphmem.errors import ValidationError
from graphmem.ui.charts import bar_chart, fault_bars, funnel_bars
from graphmem.ui.web import page, state_of

__all__ = ["load_report", "reports_page"]


def load_report(path: Any) -> dict[str, Any]:
    """The report at ``path`` as a dict.

    Raises:
        ValidationError: the file cannot be read or is not a JSON object.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise ValidationError(f"cannot read the report {path}: {exc.strerror or exc}") from None
    except ValueError:
        raise ValidationError(f"the report {path} is not JSON") from None
    if not isinstance(data, dict):
        raise ValidationError(f"the report {path} is not a JSON object")
    return data


def reports_page(request: Request) -> Response:
    """``/reports``: the funnel and fault-suite charts, or how to produce a report."""
    state = state_of(request)
    path = state.config.report
    charts: list[tuple[str, str]] = []
    summary: dict[str, Any] = {}
    if path is not None:
        data = load_report(path)
        funnel = (data.get("northwind") or {}).get("funnel") or data.get("funnel")
        if isinstance(funnel, dict):
            charts.append(("Memory funnel (trials reaching each stage)",
                           bar_chart("memory funnel", funnel_bars(funnel))))
            summary["trials"] = funnel.get("trials")
        faults = data.get("faults")
        if isinstance(faults, dict):
            charts.append(("Fault suite (✗: let through, ✓: held)",
                           bar_chart("fault suite", fault_bars(faults))))
            summary["graphmem_through"] = faults.get("graphmem_through")
            summary["naive_through"] = faults.get("naive_through")
    return page(request, "reports.html", title="Reports", report=path, charts=charts,
                summary=summary)
