"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

import networkx as nx
import pytest

from graphmem.errors import (
    ValidationError,
)
from graphmem.models import Status
from graphmem.ui.lineage import MARKS, STATUS_COLOURS, elements, parse_steps


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
    assert data["edges"] == [{"data": {"id": "retracted -> active", "source": "retracted",
                                       "target": "active", "label": "derived_from"}}]


def test_no_edge_id_is_a_node_id_or_another_edges() -> None:
    """Record ids hold no whitespace, so ``SOURCE -> TARGET`` names one edge and no node (a
    record named ``a->b`` had the id of the edge a -> b, and the explorer dropped the edge)."""
    graph = nx.DiGraph()
    for u, v in (("a", "b"), ("a->b", "c"), ("a", "b->c"), ("a->b", "b")):
        graph.add_edge(u, v, type="derived_from", types="derived_from")
    for node in graph:
        graph.nodes[node].update(kind="semantic", status="ACTIVE")
    data = elements(graph)
    ids = [e["data"]["id"] for e in data["nodes"] + data["edges"]]
    assert len(ids) == len(set(ids)) == 5 + 4
