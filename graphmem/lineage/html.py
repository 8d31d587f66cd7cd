"""Lineage as one self-contained interactive HTML page.

:func:`to_html` draws a lineage graph (:func:`graphmem.lineage.graph.build_lineage`) with
Bokeh (BSD-3-Clause), its JavaScript inlined, so the file opens offline and loads nothing
from the network. The page zooms (mouse wheel, box zoom), pans and lets you drag nodes (their
edges and labels follow); as in every Bokeh plot, one drag tool is active at a time: node
dragging at first, the pan tool one click away in the toolbar. Nodes are filled by kind
(erased ones grey) and outlined by status; erased nodes are cross-hatched and
pending-recompute nodes hatched in orange. Hovering a node shows its id, kind, authority,
created time, status and depth. Edges point the way the graph's do (child -> parent,
successor -> predecessor, citer -> evidence), are dashed by type and labelled with their types
up to :data:`~graphmem.lineage.styles.LABELLED_EDGES` edges (past it, the legend's dashes say
the type). Status marks, colours and their order are :mod:`graphmem.lineage.styles`'.

The layout (:mod:`graphmem.lineage.html_layout`) is a tidy layered one, left to right: a
column per generation, each label on its node's right, every record in a row of its own, each
record at the middle of its children's rows and every edge an elbow along the gap before its
child's column, so in a tree no two edges cross and no edge runs through a label, at 500
records too. The plot's frame has the layout's size in pixels (a large lineage makes a large
page that scrolls); zooming out past that scale hides the labels (hover still names a node)
until one zooms back in. A lineage so large that its frame would pass :data:`MAX_FRAME_PX` on a
side is drawn to fit that size with no node labels, and its legend says so.

Bokeh is the optional ``html`` extra (``pip install 'graphmem[html]'``); it is imported when
a page is drawn, not when this module is imported.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import networkx as nx

from graphmem.errors import ValidationError
from graphmem.lineage.html_layout import (
    EDGE_CHAR_PX,
    EDGE_LINE_PX,
    FONT_PX,
    LABEL_DX,
    LINE_PX,
    NODE_PX,
    Layout,
    elbow,
    layout,
    spans,
)
from graphmem.lineage.styles import (
    EDGE_TYPES,
    ERASED_COLOUR,
    KIND_COLOURS,
    LABELLED_EDGES,
    STATUS_COLOURS,
    STATUS_MARKS,
    status_rank,
)
from graphmem.models import Status

__all__ = ["EDGE_LABELS_NAME", "LABELS_NAME", "MAX_FRAME_PX", "NODES_NAME", "STATUS_COLOURS",
           "place_edge_labels", "require_bokeh", "to_html"]

_MISSING = "the html lineage format needs Bokeh: pip install 'graphmem[html]'"

_HINT = ("Drag a node to move it (edges follow); to drag the view instead, pick the pan "
         "tool in the toolbar. The mouse wheel zooms; hover a node for its details.")

NODES_NAME = "lineage-nodes"
"""The ``name`` of the Bokeh renderer that draws the nodes (tests find it with this)."""
LABELS_NAME = "lineage-labels"
"""The ``name`` of the Bokeh label set that writes the node labels."""
EDGE_LABELS_NAME = "lineage-edge-labels"
"""The ``name`` of the label set that writes an edge type's labels, ``-TYPE`` appended."""
MAX_FRAME_PX = 16_000
"""Most pixels a side of the plot's frame may take (browsers cap a canvas's side near 32,000
px); past it the page drops its node labels."""

_HATCHES: Mapping[str, tuple[str, str]] = {
    Status.ERASED.value: ("x", "#495057"),
    Status.PENDING_RECOMPUTE.value: ("/", "#f77f00"),
}
_DASHES: Mapping[str, str] = {
    "derived_from": "solid", "supersedes": "dashed", "evidenced_by": "dotted",
}
_NO_BODY: Mapping[str, Any] = {"line_alpha": 0.0}  # arrows draw only their heads
_KEY: Mapping[str, Any] = {"marker": "circle", "size": 14, "line_color": "#2b2d42"}
_NOWHERE = float("nan")  # legend keys: a glyph with one point that is never drawn
_HEAD_PX = 8  # half an arrowhead's box
_EDGE_LABEL_DX = 4  # from the column gap's turn to an edge label's left end
_MIN_FRAME = (900, 420)  # a small lineage's frame, in pixels
_MARGIN = 24  # pixels around the nodes and labels

# Moves every edge, arrow and label with the nodes when one is dragged (PointDrawTool
# rewrites the node source's x/y).
_FOLLOW_JS = """
const data = nodes.data;
const at = new Map();
for (let i = 0; i < data.id.length; i++) at.set(data.id[i], [data.x[i], data.y[i]]);
for (const edges of sources) {
  const e = edges.data;
  for (let i = 0; i < e.src.length; i++) {
    const a = at.get(e.src[i]), b = at.get(e.dst[i]);
    if (a === undefined || b === undefined) continue;
    const dx = a[0] - e.x0[i], bx = b[0] - e.x1[i];
    e.x0[i] = a[0]; e.y0[i] = a[1]; e.x1[i] = b[0]; e.y1[i] = b[1];
    // the first three points turn with the child, the others with the parent
    const xs = [...e.xs[i]].map((x, j) => x + (j <= 2 ? dx : bx)), n = xs.length;
    const ys = [...e.ys[i]];
    ys[0] = ys[1] = a[1]; ys[n - 2] = ys[n - 1] = b[1];
    e.xs[i] = xs; e.ys[i] = ys;
    e.xa[i] = xs[n - 2]; e.ya[i] = b[1]; e.xe[i] = xs[n - 1];
    if (Number.isFinite(e.xl[i])) { e.xl[i] = xs[1]; e.yl[i] = a[1]; }
  }
  edges.change.emit();
}
"""


_LABELS_JS = """
const sx = width / (xr.end - xr.start), sy = height / (yr.end - yr.start);
const fits = sx >= need_x * 0.999 && sy >= need_y * 0.999;
for (const set of labels) if (set.visible !== fits) set.visible = fits;
"""


def require_bokeh() -> None:
    """Check that the optional ``html`` extra is installed, before any work is done.

    Raises:
        ValidationError: Bokeh cannot be imported; the message names
            ``pip install 'graphmem[html]'``.
    """
    if importlib.util.find_spec("bokeh") is None:
        raise ValidationError(_MISSING)


def _when(value: Any) -> str:
    return value.isoformat() if isinstance(value, datetime) else "" if value is None else str(value)


def _label_text(node: str, status: str) -> str:
    mark = STATUS_MARKS.get(status, "?" if status else "")
    return f"{mark} {node}".strip() + f"\n{status.lower().replace('_', ' ')}"


def _node_columns(graph: nx.DiGraph, lay: Layout) -> dict[str, list[Any]]:
    cols: dict[str, list[Any]] = {k: [] for k in (
        "id", "x", "y", "kind", "authority", "created", "status", "depth", "label", "fill",
        "outline", "width", "hatch", "hatch_colour", "root")}
    for node, a in sorted(graph.nodes(data=True)):
        status = str(a.get("status") or "")
        hatch, hatch_colour = _HATCHES.get(status, (" ", "#000000"))
        erased = bool(a.get("erased"))
        cols["id"].append(str(node))
        cols["x"].append(lay.nodes[str(node)][0])
        cols["y"].append(lay.nodes[str(node)][1])
        cols["kind"].append(str(a.get("kind") or "?"))
        cols["authority"].append(str(a.get("authority") or ""))
        cols["created"].append(_when(a.get("created_at")))
        cols["status"].append(status)
        cols["depth"].append(int(a.get("depth") or 0))
        cols["label"].append(_label_text(str(node), status))
        cols["fill"].append(ERASED_COLOUR if erased
                            else KIND_COLOURS.get(str(a.get("kind") or ""), "#ffffff"))
        cols["outline"].append(STATUS_COLOURS.get(status, "#2b2d42"))
        cols["width"].append(2.0 if status == Status.ACTIVE.value else 3.5)
        cols["hatch"].append(hatch)
        cols["hatch_colour"].append(hatch_colour)
        cols["root"].append(node == graph.graph.get("root"))
    return cols


Box = tuple[float, float, float, float]


def _clear(box: Box, taken: list[Box]) -> bool:
    return all(box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1]
               for b in taken)


def _types(attrs: Mapping[str, Any]) -> str:
    return str(attrs.get("types") or attrs.get("type") or "").replace(",", ", ")


def place_edge_labels(graph: nx.DiGraph, lay: Layout,
                      labels: Mapping[str, str]) -> set[tuple[str, str]]:
    """The edges whose type label is drawn: each sits on its edge's first stretch, from the
    child's node to the column gap, and covers no node, node label, arrowhead or other edge
    label (boxes in pixels); an edge with no such place is left out (the legend's line styles
    say its type)."""
    taken: list[Box] = []
    half = NODE_PX / 2
    for node, (x, y) in lay.nodes.items():
        lines = labels[node].count("\n") + 1
        taken.append((x - half, y - half, x + half, y + half))
        taken.append((x + half + LABEL_DX, y - lines * LINE_PX / 2, lay.ports[node],
                      y + lines * LINE_PX / 2))
    for _, v in graph.edges():
        xv, yv = lay.ports[str(v)], lay.nodes[str(v)][1]
        taken.append((xv, yv - _HEAD_PX, xv + 2 * _HEAD_PX, yv + _HEAD_PX))
    placed: set[tuple[str, str]] = set()
    for u, v, attrs in sorted(graph.edges(data=True)):
        x, y = lay.trunks[str(u)] + _EDGE_LABEL_DX, lay.nodes[str(u)][1] + 2
        box = (x, y, x + len(_types(attrs)) * EDGE_CHAR_PX, y + EDGE_LINE_PX)
        if _clear(box, taken):
            taken.append(box)
            placed.add((str(u), str(v)))
    return placed


def _edge_columns(graph: nx.DiGraph, lay: Layout, kind: str,
                  placed: set[tuple[str, str]]) -> dict[str, list[Any]]:
    cols: dict[str, list[Any]] = {k: [] for k in (
        "src", "dst", "x0", "y0", "x1", "y1", "xs", "ys", "xa", "ya", "xe", "xl", "yl",
        "types")}
    for u, v, a in sorted(graph.edges(data=True)):
        if a.get("type") != kind:
            continue
        xs, ys = elbow(lay, str(u), str(v))
        cols["src"].append(str(u))
        cols["dst"].append(str(v))
        for key, value in zip(("x0", "y0"), lay.nodes[str(u)], strict=True):
            cols[key].append(value)
        for key, value in zip(("x1", "y1"), lay.nodes[str(v)], strict=True):
            cols[key].append(value)
        cols["xs"].append(xs)
        cols["ys"].append(ys)
        cols["xa"].append(xs[-2])  # the arrow: from the last turn to the parent's port
        cols["ya"].append(ys[-1])
        cols["xe"].append(xs[-1])
        shown = (str(u), str(v)) in placed  # else no label, drawn nowhere
        cols["xl"].append(xs[1] if shown else _NOWHERE)
        cols["yl"].append(ys[0] if shown else _NOWHERE)
        cols["types"].append(_types(a) or kind)
    return cols


def to_html(graph: nx.DiGraph, *, title: str | None = None) -> str:
    """One self-contained HTML page showing ``graph`` (docs/spec/deletion.md#walk, lineage for
    analysts).

    Args:
        graph: a lineage graph as :func:`graphmem.lineage.graph.build_lineage` returns it
            (node attributes ``kind``, ``authority``, ``status``, ``created_at``, ``depth``,
            ``erased``; edge attributes ``type`` and ``types``).
        title: the page and plot title (default: "lineage of ROOT (DIRECTION)").

    Returns:
        The page as text (UTF-8 when written); every script and style is inline.

    Raises:
        ValidationError: Bokeh, the optional ``html`` extra, is not installed (the message
            names ``pip install 'graphmem[html]'``).
    """
    try:
        from bokeh.embed import file_html
        from bokeh.models import ColumnDataSource, CustomJS, HoverTool, PointDrawTool, Range1d
        from bokeh.models.annotations import Title
        from bokeh.models.annotations.arrows import Arrow, VeeHead
        from bokeh.models.annotations.labels import LabelSet
        from bokeh.models.annotations.legends import Legend, LegendItem
        from bokeh.models.text import PlainText
        from bokeh.plotting import figure
        from bokeh.resources import INLINE
    except ImportError:
        raise ValidationError(_MISSING) from None

    texts = {str(n): _label_text(str(n), str(a.get("status") or ""))
             for n, a in graph.nodes(data=True)}
    edge_labelled = graph.number_of_edges() <= LABELLED_EDGES
    widest_edge = max((len(_types(a)) for *_, a in graph.edges(data=True)), default=0)
    lay = layout(graph, texts, widest_edge * EDGE_CHAR_PX if edge_labelled else 0.0)
    heading = title or (f"lineage of {graph.graph.get('root', '')} "
                        f"({graph.graph.get('direction', '')})")
    # one data unit is one pixel at the first view (a small lineage centred in its frame)
    x0, y0, x1, y1 = spans(lay)
    width = max(_MIN_FRAME[0], math.ceil(x1 - x0) + 2 * _MARGIN)
    height = max(_MIN_FRAME[1], math.ceil(y1 - y0) + 2 * _MARGIN)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    x_range = Range1d(start=cx - width / 2, end=cx + width / 2)
    y_range = Range1d(start=cy - height / 2, end=cy + height / 2)
    labelled = width <= MAX_FRAME_PX and height <= MAX_FRAME_PX
    width, height = min(width, MAX_FRAME_PX), min(height, MAX_FRAME_PX)
    # plain text: a root id such as $$x^2$$ was drawn as TeX (and inlined MathJax, 2 MB)
    fig = figure(title=Title(text=PlainText(text=heading)), frame_width=width,
                 frame_height=height,
                 tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom",
                 x_range=x_range, y_range=y_range, toolbar_location="left")
    fig.add_layout(Title(text=_HINT, text_font_size="10px", text_font_style="normal",
                         text_color="#555555"), "above")
    fig.axis.visible = False
    fig.grid.visible = False
    fig.toolbar.logo = None

    legend: list[Any] = []
    edge_sources: list[Any] = []
    edge_labels: list[Any] = []
    # past a size labels crowd: none is drawn and the legend's line styles say the type
    placed = place_edge_labels(graph, lay, texts) if labelled and edge_labelled else set()
    for kind in EDGE_TYPES:
        source = ColumnDataSource(_edge_columns(graph, lay, kind, placed),
                                  name=f"lineage-{kind}")
        edge_sources.append(source)
        if not source.data["src"]:
            continue
        dash = _DASHES[kind]
        line: Any = fig.multi_line("xs", "ys", source=source, line_color="#555555",
                                   line_width=1.4, line_dash=dash)
        fig.add_layout(Arrow(source=source, x_start="xa", y_start="ya", x_end="xe",
                             y_end="ya", **_NO_BODY,
                             end=VeeHead(size=11, fill_color="#555555",
                                         line_color="#555555")))
        if placed:
            edge_labels.append(LabelSet(
                source=source, x="xl", y="yl", text="types", x_offset=_EDGE_LABEL_DX,
                y_offset=2, text_font_size="9px", text_color="#444444", text_font_style="italic",
                name=f"{EDGE_LABELS_NAME}-{kind}"))
            fig.add_layout(edge_labels[-1])
        legend.append(LegendItem(label=f"edge: {kind}", renderers=[line]))

    nodes = ColumnDataSource(_node_columns(graph, lay), name=f"{NODES_NAME}-data")
    drawn: Any = fig.scatter("x", "y", source=nodes, name=NODES_NAME, size=30, marker="circle",
                        fill_color="fill", line_color="outline", line_width="width",
                        hatch_pattern="hatch", hatch_color="hatch_colour", hatch_alpha=0.8,
                        hatch_scale=8)
    lines = max((t.count("\n") + 1 for t in texts.values()), default=1)
    labels = LabelSet(source=nodes, x="x", y="y", text="label", x_offset=NODE_PX / 2 + LABEL_DX,
                      y_offset=lines * LINE_PX / 2, text_align="left", text_baseline="top",
                      text_line_height=LINE_PX / FONT_PX, name=LABELS_NAME,
                      text_font_size=f"{FONT_PX}px", text_color="#222222", visible=labelled)
    fig.add_layout(labels)
    if labelled:  # zoomed out past the scale that keeps them apart, labels hide
        fits = CustomJS(code=_LABELS_JS, args={
            "labels": [labels, *edge_labels], "xr": x_range, "yr": y_range, "width": width,
            "height": height, "need_x": 1.0, "need_y": 1.0})
        for side in (x_range, y_range):
            side.js_on_change("start", fits)
            side.js_on_change("end", fits)
    else:
        unlabelled: Any = fig.scatter([_NOWHERE], [_NOWHERE], fill_color="#ffffff", **_KEY)
        legend.append(LegendItem(label=f"{graph.number_of_nodes()} records: too many to "
                                 "label, hover one", renderers=[unlabelled]))
    present = set(nodes.data["kind"])
    for kind, colour in KIND_COLOURS.items():
        if kind in present:
            key: Any = fig.scatter([_NOWHERE], [_NOWHERE], fill_color=colour, **_KEY)
            legend.append(LegendItem(label=f"kind: {kind}", renderers=[key]))
    for status in sorted(set(nodes.data["status"]), key=status_rank):
        hatch, hatch_colour = _HATCHES.get(status, (" ", "#000000"))
        style = {**_KEY, "line_color": STATUS_COLOURS.get(status, "#2b2d42")}
        key = fig.scatter([_NOWHERE], [_NOWHERE], fill_color="#ffffff", line_width=3,
                          hatch_pattern=hatch, hatch_color=hatch_colour, hatch_scale=6, **style)
        legend.append(LegendItem(label=f"status: {status.lower()}", renderers=[key]))
    fig.add_layout(Legend(items=legend, location="top_left", label_text_font_size="9px",
                          click_policy="hide", background_fill_alpha=0.7), "left")

    hover = HoverTool(renderers=[drawn], tooltips=[
        ("id", "@id"), ("kind", "@kind"), ("authority", "@authority"),
        ("created", "@created"), ("status", "@status"), ("depth", "@depth")])
    drag = PointDrawTool(renderers=[drawn], add=False, drag=True,
                         description="Drag nodes")
    fig.add_tools(hover, drag)
    fig.toolbar.active_multi = drag
    follow = CustomJS(code=_FOLLOW_JS, args={
        "nodes": nodes, "sources": edge_sources})
    nodes.js_on_change("data", follow)
    return str(file_html(fig, resources=INLINE, title=heading))
