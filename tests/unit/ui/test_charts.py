"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

import pytest

from graphmem.errors import (
    ValidationError,
)
from graphmem.ui.charts import bar_chart, fault_bars, funnel_bars


def test_charts_are_escaped_svg_scaled_to_the_largest_bar() -> None:
    svg = bar_chart("t<1>", [("a&b", 10, "#000"), ("c", 5, "#111")])
    assert svg.startswith("<svg") and "a&amp;b" in svg and "t&lt;1&gt;" in svg
    assert 'width="360.0"' in svg and 'width="180.0"' in svg
    assert funnel_bars({"counts": {"written": 4, "helped": 1}})[1][:2] == ("helped", 1.0)
    # a report's JSON keeps its keys sorted: the bars still follow the funnel
    stages = {"eligible": 10, "exposed": 10, "helped": 9, "other": 2, "retrieved": 10,
              "used": 10, "written": 12}
    assert [bar[0] for bar in funnel_bars({"counts": stages})] == [
        "written", "eligible", "retrieved", "exposed", "used", "helped", "other"]
    bars = fault_bars({"results": [{"fault": "f", "graphmem": {"let_through": True},
                                    "naive": {"let_through": False}}]})
    assert [b[:2] for b in bars] == [("✗ f", 1.0), ("   naive", 0.0)]
    for bad in ({}, {"counts": {"a": -1}}, {"counts": {"a": True}}):
        with pytest.raises(ValidationError):
            funnel_bars(bad)
    with pytest.raises(ValidationError):
        fault_bars({"results": [1]})
