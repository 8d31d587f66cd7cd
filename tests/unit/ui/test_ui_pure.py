"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import networkx as nx
import pytest

from graphmem.errors import (
    AuthorizationError,
    GraphmemError,
    OutOfReachError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import Status
from graphmem.ui.charts import bar_chart, fault_bars, funnel_bars
from graphmem.ui.config import UiConfig
from graphmem.ui.lineage import MARKS, STATUS_COLOURS, elements, parse_steps
from graphmem.ui.web import form_int, form_time, status_for


def test_config_builds_a_confined_principal_and_names_it_in_writes() -> None:
    config = UiConfig.build(tenants=[" acme "], scope={"user": "u-17"})
    assert config.principal.tenants == frozenset({"acme"})
    assert config.principal.scope == {"user": "u-17"}
    assert not config.allow_writes
    assert config.author() == "graphmem-ui[acme;user=u-17]"
    assert config.query_scope() == {"tenant": "acme", "user": "u-17"}
    assert len(config.token) > 20 and config.token != UiConfig.build(tenants=["a"]).token


@pytest.mark.parametrize("options", [
    {"tenants": []}, {"tenants": ["  "]}, {"tenants": ["a"], "clearance": "secret"},
    {"tenants": ["a"], "scope": {"tenant": "b"}}, {"tenants": ["a"], "agent": " "},
    {"tenants": ["a"], "scope": {"user": ""}},
])
def test_config_refuses_bad_options_with_a_typed_error(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        UiConfig.build(**options)  # type: ignore[arg-type]


def test_several_tenants_need_a_choice() -> None:
    config = UiConfig.build(tenants=["a", "b"])
    with pytest.raises(ValidationError):
        config.query_scope()
    assert config.query_scope("b") == {"tenant": "b"}


def test_form_readers() -> None:
    assert form_time("") is None
    assert form_time("2026-01-31T12:00") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    assert form_time("2026-01-31T14:00+02:00") == datetime(2026, 1, 31, 12, tzinfo=UTC)
    assert form_int(None, "k", 7, 1, 9) == 7 and form_int("3", "k", 7, 1, 9) == 3
    for bad in ("yesterday", "31/01/2026"):
        with pytest.raises(ValidationError):
            form_time(bad)
    for bad in ("x", "0", "10", "1.5"):
        with pytest.raises(ValidationError):
            form_int(bad, "k", 7, 1, 9)


def test_statuses_map_to_pages() -> None:
    assert status_for(OutOfReachError("x")) == 404  # as an unknown id, not 403
    assert status_for(RecordNotFoundError("x")) == 404
    assert status_for(AuthorizationError("x")) == 403
    assert status_for(ValidationError("x")) == 400
    assert status_for(GraphmemError("x")) == 500


def test_view_steps() -> None:
    assert parse_steps("a:both:2 ns:x-1:up:0") == [("a", "both", 2), ("ns:x-1", "up", 0)]
    for bad in ("", "a", "a:sideways:1", "a:up:-1", "a:up:99", ":up:1",
                " ".join(f"r{i}:up:1" for i in range(201))):
        with pytest.raises(ValidationError):
            parse_steps(bad)


def test_elements_mark_every_status_without_colour_alone() -> None:
    graph = nx.DiGraph()
    for status in MARKS:
        graph.add_node(status.lower(), kind="semantic", status=status)
    graph.add_edge("retracted", "active", type="derived_from", types="derived_from")
    data = elements(graph)
    labels = {n["data"]["id"]: n["data"]["label"] for n in data["nodes"]}
    assert labels["active"] == "active"
    others = [labels[s.lower()].split(" ")[0] for s in MARKS if s != Status.ACTIVE.value]
    assert len(set(others)) == len(others) and all(others)
    borders = {n["data"]["border"] for n in data["nodes"]}
    assert len(borders) == len(STATUS_COLOURS)
    assert data["edges"] == [{"data": {"id": "retracted->active", "source": "retracted",
                                       "target": "active", "label": "derived_from"}}]


def test_charts_are_escaped_svg_scaled_to_the_largest_bar() -> None:
    svg = bar_chart("t<1>", [("a&b", 10, "#000"), ("c", 5, "#111")])
    assert svg.startswith("<svg") and "a&amp;b" in svg and "t&lt;1&gt;" in svg
    assert 'width="360.0"' in svg and 'width="180.0"' in svg
    assert funnel_bars({"counts": {"written": 4, "helped": 1}})[1][:2] == ("helped", 1.0)
    bars = fault_bars({"results": [{"fault": "f", "graphmem": {"let_through": True},
                                    "naive": {"let_through": False}}]})
    assert [b[:2] for b in bars] == [("✗ f", 1.0), ("   naive", 0.0)]
    for bad in ({}, {"counts": {"a": -1}}, {"counts": {"a": True}}):
        with pytest.raises(ValidationError):
            funnel_bars(bad)
    with pytest.raises(ValidationError):
        fault_bars({"results": [1]})


def test_the_cli_imports_only_the_ui_command() -> None:
    code = ("import sys; from graphmem.cli import build_app; build_app('ui'); "
            "print(sorted(m for m in sys.modules if m.startswith('graphmem.') and "
            "m.split('.')[1] in ('lineage', 'integrations', 'evaluation', 'demo', 'ui')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert eval(out) == ["graphmem.ui", "graphmem.ui.commands", "graphmem.ui.config"]
    assert "starlette" not in out
