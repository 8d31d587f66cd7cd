"""Derivation graphs for analysts: lineage as a networkx graph, and its exports.

:func:`build_lineage` walks a record's lineage in Neo4j (``cypher/lineage/up.cypher`` and
``lineage/down.cypher``: pruning BFS walks over DERIVED_FROM, SUPERSEDES and EVIDENCED_BY)
and returns a :class:`networkx.DiGraph` whose edges point the way the graph's do (child ->
parent, successor -> predecessor, citer -> evidence). :func:`export` writes it as GraphML or
GEXF (Gephi, yEd), node-link JSON, DOT or Mermaid (:mod:`graphmem.lineage.text`), a PNG/SVG
picture (:mod:`graphmem.lineage.picture`: matplotlib, imported only when a picture is asked
for) or an interactive HTML page (Bokeh, likewise); all draw status and kind alike
(:mod:`graphmem.lineage.styles`).

Node attributes: ``kind``, ``authority``, ``status`` (one of
:data:`graphmem.db.stats.RECORD_STATUSES`, ignoring who asks, from the query's
``parts/record_status``: the status ``graphmem stats`` counts; docs/status.md),
``created_at`` (aware datetime or None), ``scope`` (dict), ``tenant``, ``sensitivity``,
``source``, ``depth`` (shortest distance from the root), ``erased``, ``retracted``, and
``content`` only when asked for. Edge attributes: ``type`` (``derived_from``, ``supersedes``
or ``evidenced_by``; the first of these when two records are linked twice) and ``types`` (all
of them, comma-separated).

:data:`SNIPPETS` names the Cypher files for Neo4j Browser and Bloom users (docs/spec/deletion.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, TypeAlias

import networkx as nx

from graphmem.db.access import OPERATOR, Access, out_of_reach
from graphmem.db.codec import require_aware
from graphmem.db.ops.lineage import LineageOps, LineageSource, query_text
from graphmem.db.store import Neo4jStore
from graphmem.errors import RecordNotFoundError, ValidationError
from graphmem.fields import MAX_INT64
from graphmem.lineage.picture import render
from graphmem.lineage.styles import EDGE_TYPES, ERASED_COLOUR, KIND_COLOURS
from graphmem.lineage.text import to_dot, to_mermaid
from graphmem.models import Sensitivity, Status

__all__ = [
    "EDGE_TYPES",  # with the colours, from graphmem.lineage.styles, where they were before
    "ERASED_COLOUR",
    "FORMATS",
    "KIND_COLOURS",
    "SNIPPETS",
    "LineageDirection",
    "LineageGraph",
    "build_lineage",
    "export",
    "render",
    "snippet",
    "to_dot",
    "to_mermaid",
]

LineageDirection = Literal["up", "down", "both"]
LineageGraph: TypeAlias = nx.DiGraph
"""The type :func:`build_lineage` returns (a ``networkx.DiGraph``)."""

FORMATS = ("graphml", "gexf", "json", "dot", "mermaid", "png", "svg", "html")
"""Export formats; ``png`` and ``svg`` are bytes, the rest text (``html``: one interactive,
self-contained page, :mod:`graphmem.lineage.html`)."""

SNIPPETS: Mapping[str, str] = {
    "record_lineage": "snippet/record_lineage",
    "subject_footprint": "snippet/subject_footprint",
    "deletion_request": "snippet/deletion_request",
}
"""Cypher snippets for Neo4j Browser/Bloom users: purpose -> file name in ``cypher/``."""



def snippet(name: str) -> str:
    """The text of Browser snippet ``name`` (a key of :data:`SNIPPETS`), comments stripped.

    Raises:
        KeyError: no such snippet.
    """
    return query_text(SNIPPETS[name])


def _native(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


def _reached(access: Access, props: Mapping[str, Any]) -> bool:
    scope = json.loads(props["scope_json"]) if props.get("scope_json") else {}
    try:
        sensitivity = Sensitivity(str(props.get("sensitivity")))
    except ValueError:
        sensitivity = Sensitivity.RESTRICTED  # unknown: only the widest clearance sees it
    return access.allows(props.get("tenant"), sensitivity, scope, change=False)


def build_lineage(
    store: Neo4jStore,
    record_id: str,
    *,
    direction: LineageDirection = "up",
    depth: int | None = None,
    now: datetime | None = None,
    include_content: bool = False,
    access: Access = OPERATOR,
) -> nx.DiGraph:
    """The lineage of ``record_id`` as a directed graph (docs/spec/deletion.md, for analysts).

    Args:
        store: the store. record_id: the root record.
        direction: ``up`` (what it comes from: parents, predecessors, evidence), ``down``
            (what comes from it) or ``both``.
        depth: keep nodes at most this many edges from the root (None: no limit).
        now: aware UTC time the statuses are computed for (default: the store clock).
        include_content: add each record's ``content`` as a node attribute (off by default:
            exports leave the database, and content is user data).
        access: the caller's reach (default: the operator's): records out of it are left
            out of the graph, with their edges (docs/spec/eligibility.md).

    Returns:
        A ``networkx.DiGraph``; graph attributes ``root``, ``direction``, ``depth``.

    Raises:
        RecordNotFoundError: no record with this id (erased ones are found, as tombstones).
        OutOfReachError: ``access`` does not reach the root.
        ValidationError: unknown direction, a depth outside 0..2**63-1, naive ``now``.
    """
    if direction not in ("up", "down", "both"):
        raise ValidationError(f"direction must be up, down or both, not {direction!r}")
    if depth is not None and not 0 <= depth <= MAX_INT64:  # larger: a raw OverflowError
        raise ValidationError(f"depth must be from 0 to {MAX_INT64} (None: no limit)")
    at = require_aware(now, "now") if now is not None else store.clock()
    return _graph(LineageOps(store), record_id, direction, depth, at, include_content, access)


def _graph(reads: LineageSource, record_id: str, direction: LineageDirection,
           depth: int | None, at: datetime, include_content: bool, access: Access
           ) -> nx.DiGraph:
    """:func:`build_lineage`'s graph, its arguments checked, read from ``reads``."""
    depths: dict[str, int] = {record_id: 0}
    for reached in ((reads.ancestors(record_id, depth) if direction != "down" else [])
                    + (reads.descendants(record_id, depth) if direction != "up" else [])):
        depths[reached.id] = min(reached.depth, depths.get(reached.id, reached.depth))
    rows = [row for row in reads.nodes(sorted(depths), at) if _reached(access, row.props)]
    if not any(row.props["id"] == record_id for row in rows):
        if access.bound:
            raise out_of_reach("this record id")
        raise RecordNotFoundError(f"no record {record_id!r}", record_ids=[record_id])
    graph = nx.DiGraph(root=record_id, direction=direction, depth=depth)
    for row in rows:
        props = row.props
        status = Status(row.status)
        attrs: dict[str, Any] = {
            "label": props["id"],
            "kind": props.get("kind"),
            "authority": props.get("authority"),
            "status": status.value,
            "created_at": _native(props.get("created_at")),
            "scope": json.loads(props["scope_json"]) if props.get("scope_json") else {},
            "tenant": props.get("tenant"),
            "sensitivity": props.get("sensitivity"),
            "source": props.get("source"),
            "depth": depths[props["id"]],
            "erased": bool(props.get("erased")),
            "retracted": bool(props.get("retracted")),
        }
        if props.get("erased"):
            attrs["erased_at"] = _native(props.get("erased_at"))
            attrs["erased_by_request"] = props.get("erased_by_request")
        if include_content and props.get("content") is not None:
            attrs["content"] = props["content"]
        graph.add_node(props["id"], **attrs)
    for row in rows:
        source = row.props["id"]
        for rel_type, target in row.edges:
            if target not in graph or target == source:
                continue
            kind = rel_type.lower()
            if graph.has_edge(source, target):
                types = [*graph.edges[source, target]["types"].split(","), kind]
                ordered = [t for t in EDGE_TYPES if t in types]
                graph.edges[source, target].update(type=ordered[0], types=",".join(ordered))
            else:
                graph.add_edge(source, target, type=kind, types=kind)
    if access.bound:
        _through_reach(graph, record_id, direction)
    return graph


def _through_reach(graph: nx.DiGraph, root: str, direction: LineageDirection) -> None:
    """Keep only the records ``root`` reaches through records within reach, at their depth
    along those: a record reached only through one out of reach (A derived from another
    user's H, derived from B) was shown at its depth with no edge, which told a bound caller
    that a record it may not see lies between (docs/spec/eligibility.md#confinement)."""
    found: dict[str, int] = {}
    for view in ((graph,) if direction == "up" else (graph.reverse(copy=False),)
                 if direction == "down" else (graph, graph.reverse(copy=False))):
        for node, depth in nx.single_source_shortest_path_length(view, root).items():
            found[node] = min(depth, found.get(node, depth))
    graph.remove_nodes_from([node for node in list(graph) if node not in found])
    for node, depth in found.items():
        graph.nodes[node]["depth"] = depth


# ------------------------------------------------------------------------------ exports


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


def _flat_copy(graph: nx.DiGraph) -> nx.DiGraph:
    """A copy whose attributes are all str/int/float/bool (GraphML and GEXF need that)."""
    flat = nx.DiGraph()
    flat.graph.update({k: _plain(v) for k, v in graph.graph.items() if v is not None})
    for node, attrs in graph.nodes(data=True):
        flat.add_node(node, **{k: _plain(v) for k, v in attrs.items() if v is not None})
    for u, v, attrs in graph.edges(data=True):
        flat.add_edge(u, v, **{k: _plain(x) for k, x in attrs.items() if x is not None})
    return flat


def export(graph: nx.DiGraph, fmt: str) -> str | bytes:
    """The graph in ``fmt`` (one of :data:`FORMATS`): text, or bytes for png/svg.

    GraphML and GEXF get flat attributes (datetimes as ISO strings, scope as JSON, missing
    values left out); ``json`` is networkx node-link data (``nodes``/``edges``); ``html`` is
    an interactive page that loads nothing from the network (:func:`graphmem.lineage.html.to_html`).

    Raises:
        ValidationError: unknown format; ``html`` without Bokeh (``pip install 'graphmem[html]'``).
    """
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(_flat_copy(graph))) + "\n"
    if fmt == "gexf":
        return "\n".join(nx.generate_gexf(_flat_copy(graph))) + "\n"
    if fmt == "json":
        data = nx.node_link_data(graph, edges="edges")
        return json.dumps(data, default=_plain, sort_keys=True, indent=2) + "\n"
    if fmt == "dot":
        return to_dot(graph)
    if fmt == "mermaid":
        return to_mermaid(graph)
    if fmt in ("png", "svg"):
        return render(graph, fmt)  # type: ignore[arg-type]
    if fmt == "html":
        from graphmem.lineage.html import to_html  # Bokeh, the optional html extra

        return to_html(graph)
    raise ValidationError(f"unknown lineage format {fmt!r}; use one of {', '.join(FORMATS)}")
