"""Derivation graphs for analysts: lineage as a networkx graph, and its exports.

:func:`build_lineage` walks a record's lineage in Neo4j (``cypher/lineage/up.cypher`` and
``lineage/down.cypher``: pruning BFS walks over DERIVED_FROM, SUPERSEDES and EVIDENCED_BY)
and returns a :class:`networkx.DiGraph` whose edges point the way the graph's do (child ->
parent, successor -> predecessor, citer -> evidence). :func:`export` writes it as GraphML or
GEXF (Gephi, yEd), node-link JSON, DOT, Mermaid, a PNG/SVG picture (matplotlib, imported
only when a picture is asked for) or an interactive HTML page (Bokeh, likewise).

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

import io
import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, TypeAlias

import networkx as nx

from graphmem.db.access import OPERATOR, Access, out_of_reach
from graphmem.db.codec import require_aware
from graphmem.db.ops.lineage import LineageOps, LineageSource, query_text
from graphmem.db.store import Neo4jStore
from graphmem.errors import RecordNotFoundError, ValidationError
from graphmem.models import MemoryKind, Sensitivity, Status

__all__ = [
    "FORMATS",
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

EDGE_TYPES = ("derived_from", "supersedes", "evidenced_by")
KIND_COLOURS: Mapping[str, str] = {
    MemoryKind.EPISODIC.value: "#8ecae6",
    MemoryKind.SEMANTIC.value: "#b5e48c",
    MemoryKind.PROCEDURAL.value: "#ffb703",
    MemoryKind.PROSPECTIVE.value: "#cdb4db",
}
ERASED_COLOUR = "#d9d9d9"
_EDGE_STYLES: Mapping[str, str] = {
    "derived_from": "solid", "supersedes": "dashed", "evidenced_by": "dotted",
}


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
        ValidationError: unknown direction, negative depth, naive ``now``.
    """
    if direction not in ("up", "down", "both"):
        raise ValidationError(f"direction must be up, down or both, not {direction!r}")
    if depth is not None and depth < 0:
        raise ValidationError("depth must be >= 0")
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
    return graph


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


def _quote_dot(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: nx.DiGraph) -> str:
    """Graphviz DOT text: parents above children, fill by kind, erased grey and dashed,
    retracted with a red border; edge style by type."""
    lines = ["digraph lineage {", "  rankdir=BT;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica"];']
    for node, a in sorted(graph.nodes(data=True)):
        styles = ["rounded", "filled"]
        colour = KIND_COLOURS.get(a.get("kind") or "", "#ffffff")
        extra = ""
        if a.get("erased"):
            styles.append("dashed")
            colour = ERASED_COLOUR
        elif a.get("retracted"):
            extra = ', color="#c1121f", penwidth=2'
        label = _quote_dot(f"{node}\n{a.get('kind') or '?'} · {a.get('status', '')}")
        lines.append(f'  {_quote_dot(node)} [label={label}, '
                     f'fillcolor="{colour}", style="{",".join(styles)}"{extra}];')
    for u, v, a in sorted(graph.edges(data=True)):
        style = _EDGE_STYLES.get(a.get("type", ""), "solid")
        lines.append(f'  {_quote_dot(u)} -> {_quote_dot(v)} [label="{a.get("types", "")}", '
                     f"style={style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


_MERMAID_UNSAFE = re.compile(r'["<>`|]')
_MERMAID_ARROWS: Mapping[str, str] = {
    "derived_from": "-->", "supersedes": "-.->", "evidenced_by": "-.-o",
}


def to_mermaid(graph: nx.DiGraph) -> str:
    """A Mermaid ``flowchart`` for docs: one class per kind, ``erased`` and ``retracted``
    classes, edge labels by type."""
    ids = {node: f"n{i}" for i, node in enumerate(sorted(graph.nodes))}
    lines = ["flowchart BT"]
    for node in sorted(graph.nodes):
        a = graph.nodes[node]
        name = _MERMAID_UNSAFE.sub("", str(node))
        lines.append(f'  {ids[node]}["{name}<br/>{a.get("kind") or "?"} · '
                     f'{a.get("status", "")}"]')
    for u, v, a in sorted(graph.edges(data=True)):
        arrow = _MERMAID_ARROWS.get(a.get("type", ""), "-->")
        lines.append(f"  {ids[u]} {arrow}|{a.get('types', '')}| {ids[v]}")
    for kind, colour in KIND_COLOURS.items():
        lines.append(f"  classDef {kind} fill:{colour},stroke:#333")
    lines.append(f"  classDef erased fill:{ERASED_COLOUR},stroke:#666,stroke-dasharray:5 5")
    lines.append("  classDef retracted stroke:#c1121f,stroke-width:3px")
    for node in sorted(graph.nodes):
        a = graph.nodes[node]
        cls = ("erased" if a.get("erased") else
               "retracted" if a.get("retracted") else a.get("kind") or "")
        if cls:
            lines.append(f"  class {ids[node]} {cls}")
    return "\n".join(lines) + "\n"


def _layers(graph: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Positions: one row per generation, parents on top (falls back to a spring layout)."""
    if graph.number_of_nodes() == 0:
        return {}
    try:
        generations = list(nx.topological_generations(graph.reverse(copy=False)))
    except nx.NetworkXUnfeasible:
        raw = nx.spring_layout(graph, seed=7)
        return {n: (float(p[0]), float(p[1])) for n, p in raw.items()}
    pos: dict[str, tuple[float, float]] = {}
    for row, layer in enumerate(generations):
        layer = sorted(layer)
        for col, node in enumerate(layer):
            pos[node] = (col - (len(layer) - 1) / 2, -float(row))
    return pos


def render(graph: nx.DiGraph, fmt: Literal["png", "svg"] = "png", *, title: str | None = None
           ) -> bytes:
    """A picture of the graph: nodes coloured by kind, erased grey with a dashed border,
    retracted with a red border, edge style by type, and a legend.

    Needs matplotlib (``pip install graphmem[charts]``); it is imported here, not at import.

    Raises:
        ValidationError: ``fmt`` is not png or svg, or matplotlib is not installed.
    """
    if fmt not in ("png", "svg"):
        raise ValidationError(f"render writes png or svg, not {fmt!r}")
    try:
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
    except ImportError:
        raise ValidationError("png and svg lineage pictures need matplotlib: "
                              "pip install 'graphmem[charts]'") from None

    pos = _layers(graph)
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    width = max(6.0, 2.2 * (max(xs) - min(xs) + 1))
    height = max(4.0, 1.4 * (max(ys) - min(ys) + 1) + 1.5)
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.set_axis_off()
    box_w, box_h = 0.8, 0.32
    for u, v, a in graph.edges(data=True):
        style = {"solid": "-", "dashed": "--", "dotted": ":"}[
            _EDGE_STYLES.get(a.get("type", ""), "solid")]
        skips = abs(pos[u][1] - pos[v][1]) > 1.0  # spans a layer: bend around its boxes
        ax.add_patch(FancyArrowPatch(pos[u], pos[v], arrowstyle="-|>", mutation_scale=12,
                                     linestyle=style, color="#555555", shrinkA=16, shrinkB=16,
                                     connectionstyle=f"arc3,rad={0.35 if skips else 0.0}",
                                     zorder=1))
    for node, a in graph.nodes(data=True):
        x, y = pos[node]
        erased, retracted = bool(a.get("erased")), bool(a.get("retracted"))
        face = ERASED_COLOUR if erased else KIND_COLOURS.get(a.get("kind") or "", "#ffffff")
        edge = "#c1121f" if retracted and not erased else "#333333"
        ax.add_patch(FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h,
                                    boxstyle="round,pad=0.03", facecolor=face, edgecolor=edge,
                                    linewidth=2.2 if retracted or erased else 1.0,
                                    linestyle="--" if erased else "-",
                                    hatch="//" if erased else None, zorder=2))
        plate = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.6}
        ax.text(x, y + 0.04, str(node), ha="center", va="center", fontsize=7, zorder=3,
                fontweight="bold" if node == graph.graph.get("root") else "normal",
                bbox=plate if erased else None)
        ax.text(x, y - 0.09, str(a.get("status", "")).lower(), ha="center", va="center",
                fontsize=6, color="#333333", zorder=3)
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.6)
    handles: list[Any] = [Patch(facecolor=c, edgecolor="#333333", label=k)
                          for k, c in KIND_COLOURS.items()]
    handles += [
        Patch(facecolor=ERASED_COLOUR, edgecolor="#333333", hatch="//", linestyle="--",
              label="erased"),
        Patch(facecolor="#ffffff", edgecolor="#c1121f", linewidth=2, label="retracted"),
        Line2D([], [], color="#555555", linestyle="-", label="derived_from"),
        Line2D([], [], color="#555555", linestyle="--", label="supersedes"),
        Line2D([], [], color="#555555", linestyle=":", label="evidenced_by"),
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7,
              frameon=False)
    ax.set_title(title or f"lineage of {graph.graph.get('root', '')} "
                          f"({graph.graph.get('direction', '')})", fontsize=9)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, bbox_inches="tight", dpi=150,
                metadata={"Software": "graphmem"} if fmt == "png" else {"Date": None})
    return buffer.getvalue()


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
