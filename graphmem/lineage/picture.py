"""Lineage as a picture (PNG or SVG, matplotlib): layered, parents on top (docs/ui.md).

Each generation is a row, wrapped into several rows past :func:`row_cap` records so that a wide
generation does not make a picture a strip many times wider than high. Boxes are as wide as
their labels and columns as wide as the widest box, so no two labels overlap; a box's fill
gives the kind (erased grey and hatched), its border colour and width the status, and a mark
before the id the status without colour (:mod:`graphmem.lineage.styles`). Every edge is drawn
from border to border, its line behind the boxes it crosses and its arrowhead above every box,
so the head always shows, slanted or not. Edges are
labelled with their types up to :data:`~graphmem.lineage.styles.LABELLED_EDGES`, each label
where along its edge it covers no box and no other label (or left out if there is no such
place); past that size the line style alone says the type, as the legend does.

matplotlib is the optional ``charts`` extra; it is imported when a picture is drawn.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any, Literal

import networkx as nx

from graphmem.errors import ValidationError
from graphmem.lineage.styles import (
    EDGE_LEGEND,
    EDGE_STYLES,
    ERASED_COLOUR,
    KIND_COLOURS,
    LABELLED_EDGES,
    STATUS_COLOURS,
    STATUS_MARKS,
    status_rank,
)
from graphmem.models import Status

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["layers", "picture", "render", "row_cap"]

_CHAR_W = 0.075  # data units per label character at the font size used (7 pt, 1 unit = 1 in)
_ROW_H = 1.1  # data units between rows
_BOX_H = 0.36
_SMALL_CHAR_W = 0.05  # inches per character of an edge label (5.5 pt), with room to spare
_SMALL_H = 0.14  # inches of an edge label's height, its plate included


def row_cap(size: int, column_width: float = 1.0) -> int:
    """Most records one row holds in a picture of ``size`` records whose columns are
    ``column_width`` inches wide: as many as make the picture, were it one generation, about
    1.6 times wider than high (a landscape page), and at least 4."""
    return max(4, math.ceil(math.sqrt(1.6 * size * _ROW_H / column_width)))


def layers(graph: nx.DiGraph, column_width: float = 1.0) -> dict[str, tuple[float, float]]:
    """Positions (column, row; row 0 on top, rows downward negative): one row per generation,
    parents on top, each record ordered under the mean column of its parents (then by id), a
    generation wider than :func:`row_cap` wrapped into several rows (falls
    back to a spring layout when the graph has a cycle). ``column_width``: inches per column
    (:func:`row_cap`)."""
    if graph.number_of_nodes() == 0:
        return {}
    try:
        generations = list(nx.topological_generations(graph.reverse(copy=False)))
    except nx.NetworkXUnfeasible:
        raw = nx.spring_layout(graph, seed=7)
        return {n: (float(p[0]), float(p[1])) for n, p in raw.items()}
    cap = row_cap(graph.number_of_nodes(), column_width)
    pos: dict[str, tuple[float, float]] = {}

    def under_parents(node: str) -> tuple[float, str]:
        # a record goes under the mean column of its parents (fewer crossing edges), then
        # by id; one with no parent placed yet after the others
        xs = [pos[p][0] for p in graph.successors(node) if p in pos]
        return (sum(xs) / len(xs) if xs else math.inf, str(node))

    row = 0
    for layer in generations:
        ordered = sorted(layer, key=under_parents)
        for start in range(0, len(ordered), cap):
            chunk = ordered[start:start + cap]
            for col, node in enumerate(chunk):
                pos[node] = (col - (len(chunk) - 1) / 2, -float(row))
            row += 1
    return pos


def _label(node: str, attrs: dict[str, Any]) -> tuple[str, str]:
    status = str(attrs.get("status") or "")
    mark = STATUS_MARKS.get(status, "?" if status else "")
    return f"{mark} {node}".strip(), status.lower().replace("_", " ")


def _border(start: tuple[float, float], end: tuple[float, float], half_w: float,
            half_h: float) -> tuple[float, float]:
    """Where the segment from ``start`` to the centre ``end`` of a box enters the box."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    if dx == 0 and dy == 0:
        return end
    scale = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return end[0] - dx * scale, end[1] - dy * scale


def _free_spot(tail: tuple[float, float], head: tuple[float, float], width: float,
               taken: list[tuple[float, float, float, float]]) -> tuple[float, float] | None:
    """A point along the edge from ``tail`` to ``head`` where a label ``width`` wide covers no
    box and no label placed before (the rectangle is added to ``taken``); None if none is
    free (the label is then left out: its line style still says the type)."""
    for t in (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9):
        x, y = tail[0] + (head[0] - tail[0]) * t, tail[1] + (head[1] - tail[1]) * t
        rect = (x - width / 2, y - _SMALL_H / 2, x + width / 2, y + _SMALL_H / 2)
        if not any(rect[0] < r[2] and r[0] < rect[2] and rect[1] < r[3] and r[1] < rect[3]
                   for r in taken):
            taken.append(rect)
            return x, y
    return None


def picture(graph: nx.DiGraph, *, title: str | None = None) -> Figure:
    """The matplotlib figure :func:`render` saves (tests measure its text boxes).

    Raises:
        ValidationError: matplotlib is not installed.
    """
    try:
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
    except ImportError:
        raise ValidationError("png and svg lineage pictures need matplotlib: "
                              "pip install 'graphmem[charts]'") from None

    labels = {node: _label(str(node), a) for node, a in graph.nodes(data=True)}
    widest = max((max(len(a), len(b)) for a, b in labels.values()), default=8)
    col_w = max(1.0, widest * _CHAR_W + 0.35)
    grid = layers(graph, col_w)
    box_w = col_w - 0.25
    pos = {n: (x * col_w, y * _ROW_H) for n, (x, y) in grid.items()}
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    span_x, span_y = max(xs) - min(xs) + col_w, max(ys) - min(ys) + _ROW_H
    fig = Figure(figsize=(max(6.0, span_x + 2.5), max(3.0, span_y + 1.0)))
    ax = fig.add_axes((0.0, 0.0, span_x / (span_x + 2.5), 1.0))
    ax.set_axis_off()
    ax.set_xlim(min(xs) - col_w / 2, max(xs) + col_w / 2)
    ax.set_ylim(min(ys) - _ROW_H / 2 - 0.2, max(ys) + _ROW_H / 2)
    labelled = graph.number_of_edges() <= LABELLED_EDGES
    # what a label may not cover: the boxes, then each label placed
    taken = [(x - box_w / 2, y - _BOX_H / 2, x + box_w / 2, y + _BOX_H / 2)
             for x, y in pos.values()]
    plate = {"facecolor": "white", "alpha": 0.9, "edgecolor": "none", "pad": 0.5}
    for u, v, a in graph.edges(data=True):
        style = {"solid": "-", "dashed": "--", "dotted": ":"}[
            EDGE_STYLES.get(a.get("type", ""), "solid")]
        tail = _border(pos[v], pos[u], box_w / 2, _BOX_H / 2)
        head = _border(pos[u], pos[v], box_w / 2, _BOX_H / 2)
        # the line runs behind the boxes it crosses; its head is drawn above them all
        ax.add_patch(FancyArrowPatch(tail, head, arrowstyle="-", linestyle=style,
                                     color="#555555", shrinkA=0, shrinkB=0, linewidth=0.8,
                                     zorder=1))
        length = math.hypot(head[0] - tail[0], head[1] - tail[1]) or 1.0
        back = min(0.12, length) / length
        neck = (head[0] - (head[0] - tail[0]) * back, head[1] - (head[1] - tail[1]) * back)
        ax.add_patch(FancyArrowPatch(neck, head, arrowstyle="-|>", mutation_scale=10,
                                     color="#555555", shrinkA=0, shrinkB=0, linewidth=0.8,
                                     zorder=4))
        if labelled:
            text = str(a.get("types", "")).replace(",", ", ")
            spot = _free_spot(tail, head, len(text) * _SMALL_CHAR_W + 0.06, taken)
            if spot is not None:
                ax.text(spot[0], spot[1], text, ha="center", va="center", fontsize=5.5,
                        color="#333333", bbox=plate, zorder=5, parse_math=False)
    for node, a in graph.nodes(data=True):
        x, y = pos[node]
        status = str(a.get("status") or "")
        erased = status == Status.ERASED.value
        face = ERASED_COLOUR if erased else KIND_COLOURS.get(a.get("kind") or "", "#ffffff")
        ax.add_patch(FancyBboxPatch((x - box_w / 2, y - _BOX_H / 2), box_w, _BOX_H,
                                    boxstyle="round,pad=0.02", facecolor=face,
                                    edgecolor=STATUS_COLOURS.get(status, "#333333"),
                                    linewidth=1.0 if status == Status.ACTIVE.value else 2.4,
                                    linestyle="--" if erased else "-",
                                    hatch="//" if erased else None, zorder=2))
        name, state = labels[node]
        # an id is text as written: ``$a$`` is no TeX (``p$\\x$q`` raised a ValueError)
        ax.text(x, y + 0.07, name, ha="center", va="center", fontsize=7, zorder=3,
                parse_math=False,
                fontweight="bold" if node == graph.graph.get("root") else "normal",
                bbox={**plate, "pad": 0.2} if erased else None)
        ax.text(x, y - 0.09, state, ha="center", va="center", fontsize=6, color="#333333",
                zorder=3, parse_math=False)
    handles: list[Any] = [Patch(facecolor=c, edgecolor="#333333", label=k)
                          for k, c in KIND_COLOURS.items()]
    shown = sorted({str(a.get("status") or "") for _, a in graph.nodes(data=True)} - {""},
                   key=status_rank)
    handles += [Patch(facecolor="#ffffff", edgecolor=STATUS_COLOURS.get(s, "#333333"),
                      linewidth=2, label=f"{STATUS_MARKS.get(s, '?')} {s.lower()}".strip())
                for s in shown]
    handles += [Line2D([], [], color="#555555", linestyle="-", label="derived_from"),
                Line2D([], [], color="#555555", linestyle="--", label="supersedes"),
                Line2D([], [], color="#555555", linestyle=":", label="evidenced_by")]
    fig.legend(handles=handles, loc="upper right", fontsize=7, frameon=False,
               title=None if labelled else EDGE_LEGEND.replace(": ", ":\n"),
               title_fontsize=6)
    fig.suptitle(title or f"lineage of {graph.graph.get('root', '')} "
                          f"({graph.graph.get('direction', '')})", fontsize=9, x=0.02,
                 ha="left", parse_math=False)
    return fig


def render(graph: nx.DiGraph, fmt: Literal["png", "svg"] = "png", *, title: str | None = None
           ) -> bytes:
    """A picture of the graph (:func:`picture`), as PNG or SVG bytes.

    Needs matplotlib (``pip install graphmem[charts]``); it is imported here, not at import.

    Raises:
        ValidationError: ``fmt`` is not png or svg, or matplotlib is not installed.
    """
    if fmt not in ("png", "svg"):
        raise ValidationError(f"render writes png or svg, not {fmt!r}")
    fig = picture(graph, title=title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, bbox_inches="tight", dpi=150,
                metadata={"Software": "graphmem"} if fmt == "png" else {"Date": None})
    return buffer.getvalue()
