"""Where the HTML lineage page (:mod:`graphmem.lineage.html`) draws each node, label and edge.

A tidy layered layout, left to right, in pixels of the page's first view: one column per
generation (parents left of their children), a node's label on its right, and every
record in a whole row of its own. Each record's children take consecutive rows and it sits at
the middle one, so in a tree no two edges cross and an edge never runs through a label. An
edge is drawn as an elbow: from the child's node left to the column gap before it, along the
gap to the parent's row, then left to the end of the parent's label, where its arrowhead
points at the parent; an edge that skips generations crosses them between two rows. A
lineage that is not a tree (a record with several parents, an edge that skips a generation)
is laid out along each record's nearest parent; its other edges take the same elbows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import networkx as nx

NODE_PX = 30
"""A node's diameter."""
FONT_PX = 10
"""Node label font size."""
CHAR_PX = 7.0
"""Pixels a label character may take at that size (wider than most glyphs)."""
LINE_PX = 13
"""Pixels a label line takes."""
LABEL_DX = 5
"""From a node's right edge to its label's left end."""
PORT_DX = 6
"""From a label's right end to where an edge from a child ends."""
ROW_GAP = 8
"""At least this much between two rows' nodes or labels."""
TRUNK_PX = 32
"""The column gap's width for the edges (without edge labels)."""
EDGE_CHAR_PX = 6.0
"""Pixels an edge label character may take (9 px italic)."""
EDGE_LINE_PX = 12
"""An edge label's height."""


@dataclass(frozen=True)
class Layout:
    """Positions in pixels (y upwards, as the plot's data): ``nodes`` centre of each node;
    ``ports`` x where edges into a node end (the end of its label); ``trunks`` x of the gap
    left of each node's column, where its edges to its parents turn; ``row`` the pitch (every
    record sits on a whole row, so half a row between two is free of nodes and labels)."""

    nodes: Mapping[str, tuple[float, float]]
    ports: Mapping[str, float]
    trunks: Mapping[str, float]
    row: float
    columns: Mapping[str, int] = field(default_factory=dict)
    """Each node's column (generation)."""
    turns: tuple[float, ...] = ()
    """x of each column's gap (where edges into that column's records turn)."""


def label_width(text: str) -> float:
    """Pixels the widest line of a node label ``text`` may take."""
    return max(len(line) for line in text.split("\n")) * CHAR_PX


def _generations(graph: nx.DiGraph) -> list[list[str]]:
    try:
        return [sorted(map(str, g)) for g in nx.topological_generations(graph.reverse(copy=False))]
    except nx.NetworkXUnfeasible:  # a cycle: generations by distance from the first node
        start = min(map(str, graph.nodes))
        seen = {start}
        found = [sorted(map(str, g)) for g in nx.bfs_layers(graph.to_undirected(), [start])]
        seen.update(n for g in found for n in g)
        rest = sorted(str(n) for n in graph.nodes if str(n) not in seen)
        return found + ([rest] if rest else [])


def layout(graph: nx.DiGraph, labels: Mapping[str, str], edge_label_px: float = 0.0
           ) -> Layout:
    """The layout of ``graph`` (edges child -> parent) whose nodes carry ``labels`` (lines
    split by newlines); ``edge_label_px``: the widest edge label drawn, which the column gaps
    make room for (0: none)."""
    if graph.number_of_nodes() == 0:
        return Layout({}, {}, {}, 0.0)
    generations = _generations(graph)
    column = {n: i for i, g in enumerate(generations) for n in g}
    lines = max(text.count("\n") + 1 for text in labels.values())
    row = max(NODE_PX, lines * LINE_PX) + ROW_GAP
    # the gap: the arrowheads left of the turn, the edge labels (if any) right of it
    child_side = edge_label_px + 10 if edge_label_px else TRUNK_PX / 2
    gap = TRUNK_PX / 2 + child_side
    xs, x = [], 0.0
    for g in generations:
        xs.append(x)
        x += NODE_PX + LABEL_DX + max(label_width(labels[n]) for n in g) + PORT_DX + gap

    # each record under its nearest parent (the latest column, then the id): a tree
    children: dict[str, list[str]] = {n: [] for n in column}
    roots: list[str] = []
    for g in generations:
        for n in g:
            parents = sorted((str(p) for p in graph.successors(n) if column[str(p)] < column[n]),
                             key=lambda p: (-column[p], p))
            (children[parents[0]] if parents else roots).append(n)
    ys: dict[str, float] = {}
    next_row = 0

    def place(node: str) -> None:  # depth first, leaves on consecutive rows
        nonlocal next_row
        stack: list[tuple[str, bool]] = [(node, False)]
        while stack:
            n, done = stack.pop()
            kids = children[n]
            if not kids:
                ys[n] = float(next_row)
                next_row += 1
            elif done:  # the middle row of its children's (a whole row)
                ys[n] = float(math.floor((ys[kids[0]] + ys[kids[-1]]) / 2))
            else:
                stack.append((n, True))
                stack.extend((k, False) for k in reversed(kids))

    for r in roots:
        place(r)
    nodes = {n: (xs[column[n]] + NODE_PX / 2, -ys[n] * row) for n in column}
    ports = {n: nodes[n][0] + NODE_PX / 2 + LABEL_DX + label_width(labels[n]) + PORT_DX
             for n in column}
    turns = tuple(x - child_side for x in xs)
    trunks = {n: turns[column[n]] for n in column}
    return Layout(nodes, ports, trunks, row, column, turns)


def elbow(lay: Layout, child: str, parent: str) -> tuple[list[float], list[float]]:
    """The path of the edge ``child -> parent``: from the child's node to its column gap,
    along it to the parent's row, then to the parent's port. An edge that skips columns
    crosses them half a row below the parent's row (between two rows: no node or label
    there), then turns up in the gap after the parent's column."""
    (xc, yc), (_, yp) = lay.nodes[child], lay.nodes[parent]
    xt = lay.trunks[child]
    start, port = xc - NODE_PX / 2, lay.ports[parent]
    skip = lay.columns.get(child, 0) - lay.columns.get(parent, 0) > 1
    if not skip:
        return [start, xt, xt, port], [yc, yc, yp, yp]
    lane, turn = yp - lay.row / 2, lay.turns[lay.columns[parent] + 1]
    return [start, xt, xt, turn, turn, port], [yc, yc, lane, lane, yp, yp]


def spans(lay: Layout) -> tuple[float, float, float, float]:
    """The extent (x0, y0, x1, y1) of every node and label."""
    if not lay.nodes:
        return (0.0, 0.0, 1.0, 1.0)
    xs = [x for x, _ in lay.nodes.values()]
    ys = [y for _, y in lay.nodes.values()]
    half = max(lay.row, NODE_PX) / 2
    return (min(xs) - NODE_PX, min(ys) - half, max(lay.ports.values()), max(ys) + half)


def fits(lay: Layout, most_px: int) -> bool:
    """The layout's extent takes at most ``most_px`` on each side."""
    x0, y0, x1, y1 = spans(lay)
    return math.ceil(x1 - x0) <= most_px and math.ceil(y1 - y0) <= most_px
