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

Node labels never overlap: the plot's frame has a fixed size in pixels, chosen so that a
column is wider than the widest label and a row taller than a node and its two-line label
(:func:`label_scale`; a large lineage makes a large page that scrolls); zooming out past that
scale hides the node labels (hover still names a node) until one zooms back in. A lineage so
large that its frame would pass :data:`MAX_FRAME_PX` on a side is drawn to fit that size with no
node labels, and its legend says so.

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
from graphmem.lineage.picture import layers as _layers
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
           "label_scale", "place_edge_labels", "require_bokeh", "to_html"]

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
_SPACING = (2.6, 1.6)  # data units between columns and between rows
_NO_BODY: Mapping[str, Any] = {"line_alpha": 0.0}  # arrows draw only their heads
_KEY: Mapping[str, Any] = {"marker": "circle", "size": 14, "line_color": "#2b2d42"}
_NOWHERE = float("nan")  # legend keys: a glyph with one point that is never drawn
_ARROW_AT = 0.6  # the arrowhead sits this far along an edge, clear of the target node
_LABEL_AT = (0.4, 0.3, 0.5, 0.2, 0.25, 0.35, 0.45, 0.15, 0.7, 0.75, 0.8)  # where along an
# edge its label may sit (first that covers nothing), clear of the arrowhead
_EDGE_CHAR_PX = 6.0  # pixels an edge label character may take (9 px italic)
_EDGE_LINE_PX = 12  # an edge label's height
_EDGE_LABEL_DX = 6  # from the edge to its label's left end
_HEAD_PX = 8  # half an arrowhead's box
_FONT_PX = 10  # node label font size
_CHAR_PX = 7.0  # pixels a label character may take at that size (wider than most glyphs)
_LINE_PX = 13  # pixels a label line takes
_LABEL_BELOW_PX = 20  # from a node's centre down to its label's top
_NODE_PX = 30  # a node's diameter
_GAP_PX = 12  # at least this much between two labels, or a label and the next row's node
_MIN_FRAME = (900, 420)  # a small lineage's frame, in pixels
_MARGIN = (2.0, (1.2, 0.8))  # data units around the nodes: each side; below, above

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
    e.x0[i] = a[0]; e.y0[i] = a[1]; e.x1[i] = b[0]; e.y1[i] = b[1];
    e.xa[i] = a[0] + (b[0] - a[0]) * share; e.ya[i] = a[1] + (b[1] - a[1]) * share;
    e.xl[i] = a[0] + (b[0] - a[0]) * e.at[i]; e.yl[i] = a[1] + (b[1] - a[1]) * e.at[i];
  }
  edges.change.emit();
}
"""


_LABELS_JS = """
const sx = width / (xr.end - xr.start), sy = height / (yr.end - yr.start);
const fits = sx >= need_x * 0.999 && sy >= need_y * 0.999;
for (const set of labels) if (set.visible !== fits) set.visible = fits;
"""


def label_scale(labels: list[str], edge_labels: bool = False) -> tuple[float, float]:
    """Pixels per data unit (x, y) at which node labels of these texts (lines split by
    newlines), written below their nodes, cannot overlap one another or the next row's nodes:
    a column (:data:`_SPACING`) wider than the widest label and a gap, a row taller than a
    node's lower half, its label and a node's upper half; with ``edge_labels``, rows leave
    room for edge labels between them too."""
    widest = max((len(line) for text in labels for line in text.split("\n")), default=1)
    lines = max((text.count("\n") + 1 for text in labels), default=1)
    column = max(_NODE_PX, widest * _CHAR_PX) + _GAP_PX
    row = _LABEL_BELOW_PX + lines * _LINE_PX + _GAP_PX + _NODE_PX / 2
    if edge_labels:
        row += 3 * _EDGE_LINE_PX
    return column / _SPACING[0], row / _SPACING[1]


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


def _node_columns(graph: nx.DiGraph, pos: Mapping[str, tuple[float, float]]
                  ) -> dict[str, list[Any]]:
    cols: dict[str, list[Any]] = {k: [] for k in (
        "id", "x", "y", "kind", "authority", "created", "status", "depth", "label", "fill",
        "outline", "width", "hatch", "hatch_colour", "root")}
    for node, a in sorted(graph.nodes(data=True)):
        status = str(a.get("status") or "")
        hatch, hatch_colour = _HATCHES.get(status, (" ", "#000000"))
        erased = bool(a.get("erased"))
        cols["id"].append(str(node))
        cols["x"].append(pos[node][0] * _SPACING[0])
        cols["y"].append(pos[node][1] * _SPACING[1])
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


def place_edge_labels(graph: nx.DiGraph, pos: Mapping[str, tuple[float, float]],
                      scale: tuple[float, float]) -> dict[tuple[str, str], float]:
    """Where along each edge (a share of the way from its source to its target) its type label
    sits, at ``scale`` pixels per data unit, so that it covers no node, node label, arrowhead
    or other edge label (boxes in pixels, with the sizes :func:`label_scale` assumes); an edge
    with no such place is left out (the legend's line styles say its type)."""
    sx, sy = scale

    def at(node: str) -> tuple[float, float]:
        return pos[node][0] * _SPACING[0] * sx, pos[node][1] * _SPACING[1] * sy

    taken: list[Box] = []
    for node, attrs in graph.nodes(data=True):
        x, y = at(node)
        lines = _label_text(str(node), str(attrs.get("status") or "")).split("\n")
        half = max(len(line) for line in lines) * _CHAR_PX / 2
        taken.append((x - _NODE_PX / 2, y - _NODE_PX / 2, x + _NODE_PX / 2, y + _NODE_PX / 2))
        taken.append((x - half, y - _LABEL_BELOW_PX - len(lines) * _LINE_PX, x + half,
                      y - _LABEL_BELOW_PX))
    for u, v in graph.edges():
        (x0, y0), (x1, y1) = at(u), at(v)
        xa, ya = x0 + (x1 - x0) * _ARROW_AT, y0 + (y1 - y0) * _ARROW_AT
        taken.append((xa - _HEAD_PX, ya - _HEAD_PX, xa + _HEAD_PX, ya + _HEAD_PX))
    placed: dict[tuple[str, str], float] = {}
    for u, v, attrs in sorted(graph.edges(data=True)):
        (x0, y0), (x1, y1) = at(u), at(v)
        width = len(str(attrs.get("types") or attrs.get("type") or "").replace(",", ", ")) \
            * _EDGE_CHAR_PX
        for share in _LABEL_AT:
            x, y = x0 + (x1 - x0) * share + _EDGE_LABEL_DX, y0 + (y1 - y0) * share
            box = (x, y, x + width, y + _EDGE_LINE_PX)
            if _clear(box, taken):
                taken.append(box)
                placed[(str(u), str(v))] = share
                break
    return placed


def _edge_columns(graph: nx.DiGraph, pos: Mapping[str, tuple[float, float]], kind: str,
                  placed: Mapping[tuple[str, str], float]) -> dict[str, list[Any]]:
    cols: dict[str, list[Any]] = {k: [] for k in (
        "src", "dst", "x0", "y0", "x1", "y1", "xa", "ya", "xl", "yl", "at", "types")}
    for u, v, a in sorted(graph.edges(data=True)):
        if a.get("type") != kind:
            continue
        (x0, y0), (x1, y1) = ((p[0] * _SPACING[0], p[1] * _SPACING[1]) for p in (pos[u], pos[v]))
        cols["src"].append(str(u))
        cols["dst"].append(str(v))
        cols["x0"].append(x0)
        cols["y0"].append(y0)
        cols["x1"].append(x1)
        cols["y1"].append(y1)
        cols["xa"].append(x0 + (x1 - x0) * _ARROW_AT)
        cols["ya"].append(y0 + (y1 - y0) * _ARROW_AT)
        share = placed.get((str(u), str(v)))  # None: no label, drawn nowhere
        cols["at"].append(_NOWHERE if share is None else share)
        cols["xl"].append(_NOWHERE if share is None else x0 + (x1 - x0) * share)
        cols["yl"].append(_NOWHERE if share is None else y0 + (y1 - y0) * share)
        cols["types"].append(str(a.get("types") or kind).replace(",", ", "))
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
        from bokeh.plotting import figure
        from bokeh.resources import INLINE
    except ImportError:
        raise ValidationError(_MISSING) from None

    need_x, need_y = label_scale([_label_text(str(n), str(a.get("status") or ""))
                                  for n, a in graph.nodes(data=True)],
                                 edge_labels=graph.number_of_edges() <= LABELLED_EDGES)
    # columns as much wider than rows as the labels need (the layout's wrap follows)
    pos = _layers(graph, column_width=(need_x * _SPACING[0]) / (need_y * _SPACING[1]))
    heading = title or (f"lineage of {graph.graph.get('root', '')} "
                        f"({graph.graph.get('direction', '')})")
    xs = [p[0] * _SPACING[0] for p in pos.values()] or [0.0]
    ys = [p[1] * _SPACING[1] for p in pos.values()] or [0.0]
    x_lo, x_hi = min(xs) - _MARGIN[0], max(xs) + _MARGIN[0]
    y_lo, y_hi = min(ys) - _MARGIN[1][0], max(ys) + _MARGIN[1][1]
    x_range, y_range = Range1d(start=x_lo, end=x_hi), Range1d(start=y_lo, end=y_hi)
    span_x, span_y = x_hi - x_lo, y_hi - y_lo
    width = max(_MIN_FRAME[0], math.ceil(span_x * need_x))
    height = max(_MIN_FRAME[1], math.ceil(span_y * need_y))
    labelled = width <= MAX_FRAME_PX and height <= MAX_FRAME_PX
    width, height = min(width, MAX_FRAME_PX), min(height, MAX_FRAME_PX)
    fig = figure(title=heading, frame_width=width, frame_height=height,
                 tools="pan,wheel_zoom,box_zoom,reset,save", active_scroll="wheel_zoom",
                 x_range=x_range, y_range=y_range)
    fig.add_layout(Title(text=_HINT, text_font_size="10px", text_font_style="normal",
                         text_color="#555555"), "above")
    fig.axis.visible = False
    fig.grid.visible = False
    fig.toolbar.logo = None

    legend: list[Any] = []
    edge_sources: list[Any] = []
    edge_labels: list[Any] = []
    # past a size labels crowd: none is drawn and the legend's line styles say the type
    placed = (place_edge_labels(graph, pos, (width / span_x, height / span_y))
              if labelled and graph.number_of_edges() <= LABELLED_EDGES else {})
    for kind in EDGE_TYPES:
        source = ColumnDataSource(_edge_columns(graph, pos, kind, placed),
                                  name=f"lineage-{kind}")
        edge_sources.append(source)
        if not source.data["src"]:
            continue
        dash = _DASHES[kind]
        line: Any = fig.segment("x0", "y0", "x1", "y1", source=source, line_color="#555555",
                           line_width=1.6, line_dash=dash)
        fig.add_layout(Arrow(source=source, x_start="x0", y_start="y0", x_end="xa",
                             y_end="ya", level="underlay", **_NO_BODY,
                             end=VeeHead(size=11, fill_color="#555555",
                                         line_color="#555555")))
        if placed:
            edge_labels.append(LabelSet(
                source=source, x="xl", y="yl", text="types", x_offset=_EDGE_LABEL_DX,
                text_font_size="9px", text_color="#444444", text_font_style="italic",
                name=f"{EDGE_LABELS_NAME}-{kind}"))
            fig.add_layout(edge_labels[-1])
        legend.append(LegendItem(label=f"edge: {kind}", renderers=[line]))

    nodes = ColumnDataSource(_node_columns(graph, pos), name=f"{NODES_NAME}-data")
    drawn: Any = fig.scatter("x", "y", source=nodes, name=NODES_NAME, size=30, marker="circle",
                        fill_color="fill", line_color="outline", line_width="width",
                        hatch_pattern="hatch", hatch_color="hatch_colour", hatch_alpha=0.8,
                        hatch_scale=8)
    labels = LabelSet(source=nodes, x="x", y="y", text="label", y_offset=-_LABEL_BELOW_PX,
                      text_align="center", text_baseline="top", name=LABELS_NAME,
                      text_font_size=f"{_FONT_PX}px", text_color="#222222", visible=labelled)
    fig.add_layout(labels)
    if labelled:  # zoomed out past the scale that keeps them apart, labels hide
        fits = CustomJS(code=_LABELS_JS, args={
            "labels": [labels, *edge_labels], "xr": x_range, "yr": y_range, "width": width,
            "height": height, "need_x": need_x, "need_y": need_y})
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
                          click_policy="hide", background_fill_alpha=0.7), "right")

    hover = HoverTool(renderers=[drawn], tooltips=[
        ("id", "@id"), ("kind", "@kind"), ("authority", "@authority"),
        ("created", "@created"), ("status", "@status"), ("depth", "@depth")])
    drag = PointDrawTool(renderers=[drawn], add=False, drag=True,
                         description="Drag nodes")
    fig.add_tools(hover, drag)
    fig.toolbar.active_multi = drag
    follow = CustomJS(code=_FOLLOW_JS, args={
        "nodes": nodes, "sources": edge_sources, "share": _ARROW_AT})
    nodes.js_on_change("data", follow)
    return str(file_html(fig, resources=INLINE, title=heading))
