"""Lineage as text for Graphviz and for docs: DOT and Mermaid (docs/ui.md; the graph is
:func:`graphmem.lineage.build_lineage`'s).

Both show a node's kind (fill) and status (border colour and width, a mark before the id that
needs no colour, the status named on the label, and a class: ``class="status-quarantined"`` in
DOT, ``class n3 quarantined`` in Mermaid, for every status but active), and draw every edge with
an arrowhead, pointing the way the graph's edges do (child -> parent). Edges are labelled with
their types up to :data:`~graphmem.lineage.styles.LABELLED_EDGES`; past it the line style alone
says the type and a legend says what each style means.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import networkx as nx

from graphmem.lineage.styles import (
    EDGE_LEGEND,
    EDGE_STYLES,
    ERASED_COLOUR,
    KIND_COLOURS,
    LABELLED_EDGES,
    STATUS_COLOURS,
    STATUS_MARKS,
    status_class,
)
from graphmem.models import Status

__all__ = ["MERMAID_ARROWS", "to_dot", "to_mermaid"]

MERMAID_ARROWS: Mapping[str, str] = {
    "derived_from": "-->", "supersedes": "-.->", "evidenced_by": "==>",
}
"""Mermaid edge by type: solid, dotted and thick, each ending in an arrowhead."""
_MERMAID_LEGEND = ("edges point child → parent: solid derived_from, dotted supersedes, "
                   "thick evidenced_by")


def _quote_dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _status(attrs: Mapping[str, Any]) -> str:
    return str(attrs.get("status") or "")


def _label(node: str, attrs: Mapping[str, Any], newline: str) -> str:
    status = _status(attrs)
    mark = STATUS_MARKS.get(status, "?" if status else "")
    return f"{mark} {node}".strip() + f"{newline}{attrs.get('kind') or '?'} · {status}"


def _status_legend(graph: nx.DiGraph) -> str:
    shown = sorted({_status(a) for _, a in graph.nodes(data=True)} - {"", Status.ACTIVE.value},
                   key=[s.value for s in Status].index)
    return "status: " + ", ".join(f"{STATUS_MARKS.get(s, '?')} {s.lower()}" for s in shown)


def to_dot(graph: nx.DiGraph) -> str:
    """Graphviz DOT text: parents above children, fill by kind (erased grey and dashed),
    border by status with its mark and class, edge style by type, an arrowhead on every edge,
    and a legend (the graph's label) for the statuses shown and, when edges carry no labels,
    for the edge styles."""
    labelled = graph.number_of_edges() <= LABELLED_EDGES
    lines = ["digraph lineage {", "  rankdir=BT;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
             '  edge [dir=forward, arrowhead=normal, fontname="Helvetica", fontsize=10];']
    for node, a in sorted(graph.nodes(data=True)):
        status = _status(a)
        styles = ["rounded", "filled"]
        colour = KIND_COLOURS.get(a.get("kind") or "", "#ffffff")
        if status == Status.ERASED.value:
            styles.append("dashed")
            colour = ERASED_COLOUR
        width = 1 if status == Status.ACTIVE.value else 2.5
        classes = " ".join(c for c in (f"kind-{a.get('kind') or 'unknown'}",
                                       f"status-{status_class(status)}" if status else "") if c)
        lines.append(f"  {_quote_dot(node)} [label={_quote_dot(_label(node, a, chr(10)))}, "
                     f'class="{classes}", fillcolor="{colour}", '
                     f'color="{STATUS_COLOURS.get(status, "#333333")}", penwidth={width}, '
                     f'style="{",".join(styles)}"];')
    for u, v, a in sorted(graph.edges(data=True)):
        style = EDGE_STYLES.get(a.get("type", ""), "solid")
        label = f'label="{a.get("types", "")}", ' if labelled else ""
        lines.append(f"  {_quote_dot(u)} -> {_quote_dot(v)} [{label}style={style}, "
                     "arrowhead=normal];")
    legend = [_status_legend(graph)] + ([] if labelled else [EDGE_LEGEND])
    lines.append(f"  label={_quote_dot(chr(10).join(legend))}; labelloc=b; fontsize=10;")
    lines.append("}")
    return "\n".join(lines) + "\n"


_MERMAID_UNSAFE = re.compile(r'["<>`|]')


def to_mermaid(graph: nx.DiGraph) -> str:
    """A Mermaid ``flowchart`` for docs: one class per kind and one per status (but active),
    the status mark and name on each label, an arrowhead on every edge (solid, dotted or thick
    by type), edge labels by type up to a size, past it a legend node."""
    ids = {node: f"n{i}" for i, node in enumerate(sorted(graph.nodes))}
    labelled = graph.number_of_edges() <= LABELLED_EDGES
    lines = ["flowchart BT"]
    for node in sorted(graph.nodes):
        name = _MERMAID_UNSAFE.sub("", _label(str(node), graph.nodes[node], "\n"))
        lines.append(f'  {ids[node]}["{name.replace(chr(10), "<br/>")}"]')
    for u, v, a in sorted(graph.edges(data=True)):
        arrow = MERMAID_ARROWS.get(a.get("type", ""), "-->")
        label = f"|{a.get('types', '')}|" if labelled else ""
        lines.append(f"  {ids[u]} {arrow}{label} {ids[v]}")
    if not labelled:
        lines.append(f'  legend["{_MERMAID_LEGEND}"]')
        lines.append("  classDef legend fill:#ffffff,stroke:#999999,stroke-dasharray:2 2")
        lines.append("  class legend legend")
    for kind, colour in KIND_COLOURS.items():
        lines.append(f"  classDef {kind} fill:{colour},stroke:#333")
    for status, colour in STATUS_COLOURS.items():
        if status == Status.ACTIVE.value:
            continue
        extra = (f",fill:{ERASED_COLOUR},stroke-dasharray:5 5"
                 if status == Status.ERASED.value else "")
        lines.append(f"  classDef {status_class(status)} stroke:{colour},stroke-width:3px{extra}")
    for node in sorted(graph.nodes):
        a = graph.nodes[node]
        if a.get("kind") in KIND_COLOURS:
            lines.append(f"  class {ids[node]} {a['kind']}")
        status = _status(a)
        if status in STATUS_COLOURS and status != Status.ACTIVE.value:
            lines.append(f"  class {ids[node]} {status_class(status)}")
    return "\n".join(lines) + "\n"
