"""DOT and Mermaid exports: every status visible (class, colour, mark), an arrowhead on every
edge, edge labels only up to a size and a legend past it."""

from __future__ import annotations

import re

import networkx as nx
import pytest

from graphmem.db.browse import LISTED_STATUSES
from graphmem.lineage import to_dot, to_mermaid
from graphmem.lineage.styles import LABELLED_EDGES, STATUS_COLOURS, STATUS_MARKS
from tests.support.lineage_graphs import every_status, layered, summary_of_episodes

_DOT_NODE = re.compile(r'^  "(?P<id>[^"]+)" \[label="(?P<label>[^"]*)", class="(?P<cls>[^"]*)", '
                       r'fillcolor="[^"]*", color="(?P<colour>[^"]*)"')
_DOT_EDGE = re.compile(r'^  "[^"]+" -> "[^"]+" \[(?P<attrs>[^\]]*)\];$')
_MERMAID_EDGE = re.compile(r"^  n\d+ (?P<arrow>\S+?)(\|[^|]*\|)? n\d+$")


def _dot_nodes(text: str) -> dict[str, re.Match[str]]:
    return {m["id"]: m for m in map(_DOT_NODE.match, text.splitlines()) if m}


def test_dot_shows_every_status_by_class_colour_and_mark() -> None:
    """Each status has its class, border colour and mark on its node; nothing else does."""
    nodes = _dot_nodes(to_dot(every_status()))
    for status in LISTED_STATUSES:
        node = nodes[f"s-{status.value.lower()}"]
        assert f"status-{status.value.lower()}" in node["cls"].split()
        assert node["colour"] == STATUS_COLOURS[status.value]
        assert node["label"].startswith(f"{STATUS_MARKS[status.value]} s-".lstrip())
        assert status.value in node["label"]
    classes = [m["cls"] for m in nodes.values()]
    assert sum("status-quarantined" in c for c in classes) == 1


def test_mermaid_shows_every_status_by_class_and_mark() -> None:
    """Each status but active has a classDef and exactly its node in that class; the mark and
    the status are on the label."""
    graph = every_status()
    text = to_mermaid(graph)
    ids = {node: f"n{i}" for i, node in enumerate(sorted(graph.nodes))}
    for status in LISTED_STATUSES:
        name, node = status.value.lower(), f"s-{status.value.lower()}"
        if status.value == "ACTIVE":
            assert f"classDef {name} " not in text
            continue
        assert re.search(rf"^  classDef {name} stroke:{STATUS_COLOURS[status.value]}", text,
                         re.M)
        assert re.findall(rf"^  class (n\d+) {name}$", text, re.M) == [ids[node]]
        assert re.search(rf'^  {ids[node]}\["{re.escape(STATUS_MARKS[status.value])} {node}'
                         rf'<br/>episodic · {status.value}"\]$', text, re.M)


def test_the_status_is_the_nodes_status_not_its_flags() -> None:
    """A node whose flags say retracted but whose status (the query's, by precedence) is
    erased is drawn erased only."""
    graph = nx.DiGraph(root="a")
    graph.add_node("a", kind="episodic", status="ERASED", erased=True, retracted=True)
    assert _dot_nodes(to_dot(graph))["a"]["cls"].split() == ["kind-episodic", "status-erased"]
    mermaid = to_mermaid(graph)
    assert "class n0 erased" in mermaid and "class n0 retracted" not in mermaid


@pytest.mark.parametrize("graph", [every_status(), summary_of_episodes(34), layered(500)],
                         ids=["statuses", "34", "500"])
def test_every_edge_has_an_arrowhead(graph: nx.DiGraph) -> None:
    """DOT: every edge line names an arrowhead and points forward (also the default); Mermaid:
    every edge line ends in ``>``; as many edge lines as edges."""
    dot = to_dot(graph)
    assert "edge [dir=forward, arrowhead=normal" in dot
    edges = [m for m in map(_DOT_EDGE.match, dot.splitlines()) if m]
    assert len(edges) == graph.number_of_edges()
    assert all("arrowhead=normal" in m["attrs"] and "arrowhead=none" not in m["attrs"]
               for m in edges)
    arrows = [m["arrow"] for m in map(_MERMAID_EDGE.match, to_mermaid(graph).splitlines()) if m]
    assert len(arrows) == graph.number_of_edges()
    assert all(a in ("-->", "-.->", "==>") for a in arrows)


def test_edge_labels_up_to_a_size_then_a_legend() -> None:
    """A small graph labels its edges with their types and needs no edge legend; past
    LABELLED_EDGES no edge carries a label and the legend names each line style."""
    small, large = every_status(), summary_of_episodes(LABELLED_EDGES + 2)
    assert small.number_of_edges() <= LABELLED_EDGES < large.number_of_edges()
    dot_small, dot_large = to_dot(small), to_dot(large)
    assert all("label=" in m["attrs"] for m in map(_DOT_EDGE.match, dot_small.splitlines()) if m)
    assert not any("label=" in m["attrs"]
                   for m in map(_DOT_EDGE.match, dot_large.splitlines()) if m)
    assert "dashed supersedes" in dot_large and "dashed supersedes" not in dot_small
    mermaid_small, mermaid_large = to_mermaid(small), to_mermaid(large)
    assert "|derived_from|" in mermaid_small and "legend[" not in mermaid_small
    assert "|" not in "".join(line for line in mermaid_large.splitlines()
                          if _MERMAID_EDGE.match(line))
    assert "legend[" in mermaid_large and "dotted supersedes" in mermaid_large
