"""The lineage explorer of the inspector: the page, its graph data and the export of the
current view (docs/ui.md; the graph is :meth:`graphmem.Memory.lineage`'s).

The page draws with the vendored Cytoscape.js and its dagre layout (layered, node boxes sized
to their labels, so labels never overlap); a click on a node asks ``/api/lineage/ID`` for its
neighbours and adds them. The current view is a list of *steps* (``ID:DIRECTION:DEPTH``, the
root's first, then one per expanded node); the export rebuilds the union of those lineages and
writes it in one of :data:`graphmem.lineage.FORMATS`.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any, get_args

import networkx as nx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graphmem.client import store_of
from graphmem.errors import ValidationError
from graphmem.lineage import FORMATS, LineageDirection, export, styles
from graphmem.ui.web import UiState, form_int, page, state_of

__all__ = ["MARKS", "STATUS_COLOURS", "elements", "lineage_api", "lineage_export",
           "lineage_page", "parse_steps"]

MAX_STEPS = 200
"""Most expansions one exported view may hold."""
MAX_DEPTH = 50
"""Deepest walk one step may ask for."""

STATUS_COLOURS = styles.STATUS_COLOURS
"""Border colour of a node by status (the static exports' own)."""
MARKS = styles.STATUS_MARKS
"""A mark before a node's label by status: the status is readable without colour."""

SHAPES: Mapping[str, str] = {
    "episodic": "ellipse", "semantic": "round-rectangle", "procedural": "diamond",
    "prospective": "hexagon",
}
"""Node shape by kind (its fill colour is :data:`graphmem.lineage.styles.KIND_COLOURS`)."""


def parse_steps(text: str) -> list[tuple[str, LineageDirection, int]]:
    """Steps ``ID:DIRECTION:DEPTH`` separated by spaces (a record id holds no whitespace).

    Raises:
        ValidationError: a malformed step, an unknown direction, a depth out of range, no
            step or more than :data:`MAX_STEPS`.
    """
    steps: list[tuple[str, LineageDirection, int]] = []
    for item in text.split():
        record_id, sep, rest = item.rpartition(":")
        rid, sep2, direction = record_id.rpartition(":")
        if not sep or not sep2 or not rid:
            raise ValidationError(f"a view step is ID:DIRECTION:DEPTH, got {item!r}")
        if direction not in get_args(LineageDirection):
            raise ValidationError(f"direction must be up, down or both, not {direction!r}")
        steps.append((rid, direction, form_int(rest, "depth", 1, 0, MAX_DEPTH)))  # type: ignore[arg-type]
    if not steps or len(steps) > MAX_STEPS:
        raise ValidationError(f"a view holds 1 to {MAX_STEPS} steps")
    return steps


def _view(state: UiState, steps: list[tuple[str, LineageDirection, int]]) -> nx.DiGraph:
    """The union of the steps' lineages (the root's attributes on the result)."""
    now = store_of(state.memory).clock()
    graphs = [state.memory.lineage(rid, direction, depth, now=now)
              for rid, direction, depth in steps]
    union: nx.DiGraph = nx.compose_all(graphs)
    union.graph.update(graphs[0].graph)
    return union


def elements(graph: nx.DiGraph) -> dict[str, list[dict[str, Any]]]:
    """The graph as Cytoscape.js elements: nodes with label (status mark, id), kind, status,
    colours and shape; edges (id ``SOURCE -> TARGET``) with their types (shown on hover)."""
    nodes = []
    for node_id, attrs in graph.nodes(data=True):
        status, kind = str(attrs.get("status", "")), str(attrs.get("kind", ""))
        mark = MARKS.get(status, "?")
        nodes.append({"data": {
            "id": node_id, "label": f"{mark} {node_id}".strip(), "kind": kind,
            "status": status, "authority": attrs.get("authority"),
            "fill": styles.ERASED_COLOUR if attrs.get("erased")
            else styles.KIND_COLOURS.get(kind, "#ffffff"),
            "border": STATUS_COLOURS.get(status, "#000000"),
            "shape": SHAPES.get(kind, "rectangle")}})
    # an edge's id has spaces, which no record id holds: it is no node's id and no other
    # edge's (``u->v`` was the id of a record named so, and that record hid the edge)
    edges = [{"data": {"id": f"{u} -> {v}", "source": u, "target": v,
                       "label": attrs.get("types", attrs.get("type", ""))}}
             for u, v, attrs in graph.edges(data=True)]
    return {"nodes": nodes, "edges": edges}


def _steps_of(request: Request) -> list[tuple[str, LineageDirection, int]]:
    record_id = request.path_params["record_id"]
    direction = request.query_params.get("direction", "both")
    depth = request.query_params.get("depth", "2")
    extra = request.query_params.get("view", "")
    return parse_steps(f"{record_id}:{direction}:{depth} {extra}")


def lineage_page(request: Request) -> Response:
    """``/lineage/{id}?direction=&depth=``: the explorer around one record."""
    state = state_of(request)
    steps = _steps_of(request)
    graph = _view(state, steps[:1])  # refuses an id out of reach before any page
    rid, direction, depth = steps[0]
    return page(request, "lineage.html", title=f"Lineage of {rid}", root=rid,
                direction=direction, depth=depth, formats=FORMATS,
                size=graph.number_of_nodes(), marks=MARKS, colours=STATUS_COLOURS,
                shapes=SHAPES)


def lineage_api(request: Request) -> Response:
    """``/api/lineage/{id}?direction=&depth=&view=``: the view's elements as JSON."""
    state = state_of(request)
    return JSONResponse(elements(_view(state, _steps_of(request))))


def lineage_export(request: Request) -> Response:
    """``/export/lineage/{id}?format=&direction=&depth=&view=``: the current view in one of
    :data:`graphmem.lineage.FORMATS`, as a download."""
    state = state_of(request)
    fmt = request.query_params.get("format", "json")
    if fmt not in FORMATS:
        raise ValidationError(f"unknown lineage format {fmt!r}; use one of {', '.join(FORMATS)}")
    graph = _view(state, _steps_of(request))
    body = export(graph, fmt)
    suffix = {"mermaid": "mmd"}.get(fmt, fmt)
    media = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html",
             "json": "application/json"}.get(fmt, "text/plain")
    name = f"lineage-{graph.graph.get('root', 'view')}.{suffix}"
    return Response(body, media_type=media, headers={"Content-Disposition": _attachment(name)})


def _attachment(name: str) -> str:
    """A Content-Disposition for a download called ``name``: an ASCII ``filename`` and the
    name itself as ``filename*`` (RFC 6266), since a header holds latin-1 only (an id of
    Cyrillic or CJK letters was a UnicodeEncodeError, a 500 page)."""
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_"
                         for c in name)
    return (f'attachment; filename="{ascii_name}"; '
            f"filename*=UTF-8''{urllib.parse.quote(name, safe='')}")
