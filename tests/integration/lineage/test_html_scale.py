"""The HTML lineage page at 500 records, in headless Chromium (name resolution off): every node
is drawn with its label, no two label boxes overlap each other or another node (each box
measured with the browser's own text metrics in the font BokehJS draws with), no edge runs
through a node or a label, every edge has its arrowhead, zooming out hides the labels rather
than piling them up, and the page logs no error and asks for nothing outside the file. No
database: the graph is built as :func:`graphmem.lineage.graph.build_lineage` shapes it."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from graphmem.lineage.html import EDGE_LABELS_NAME, LABELS_NAME, MAX_FRAME_PX, NODES_NAME, to_html
from graphmem.lineage.styles import LABELLED_EDGES
from graphmem.models import Status
from tests.support.headless import Chromium

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)

# Each node label's box and each node's disc on the page (BokehJS's screen coordinates), the
# label measured as BokehJS writes it (its font, one line per text line), and the arrowheads.
BOXES_JS = f"""(() => {{
  const views = [...Bokeh.index.all_views()];
  const nodes = views.find(v => v.model.name === '{NODES_NAME}');
  const labels = views.find(v => v.model.name === '{LABELS_NAME}');
  if (!nodes || !labels || !nodes.has_finished() || !labels.has_finished()) return null;
  const m = labels.model;
  const val = s => (s !== null && typeof s === 'object' && 'value' in s) ? s.value : s;
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${{val(m.text_font_style)}} ${{val(m.text_font_size)}} ${{val(m.text_font)}}`;
  const size = parseFloat(val(m.text_font_size));
  const lineH = size * val(m.text_line_height), dx = val(m.x_offset), dy = val(m.y_offset);
  const data = nodes.model.data_source.data;
  const out = {{labels: [], discs: [], visible: m.visible, arrows: 0,
               range: [nodes.parent.model.x_range.start, nodes.parent.model.x_range.end],
               frame: (b => [b.x0, b.y0, b.x1, b.y1])(nodes.parent.frame.bbox)}};
  for (let i = 0; i < data.id.length; i++) {{
    const x = nodes.glyph.sx[i], y = nodes.glyph.sy[i];
    const lines = String(data.label[i]).split('\\n');
    const w = Math.max(...lines.map(t => ctx.measureText(t).width));
    const top = y - dy, left = val(m.text_align) === 'left' ? x + dx : x + dx - w / 2;
    out.labels.push({{id: data.id[i], x1: left, x2: left + w, y1: top,
                      y2: top + lines.length * lineH}});
    out.discs.push({{id: data.id[i], x1: x - 15, x2: x + 15, y1: y - 15, y2: y + 15}});
  }}
  const frame = nodes.parent.frame;
  out.edges = [];
  for (const v of views) {{
    if (!String(v.model.name).startsWith('{EDGE_LABELS_NAME}')) continue;
    const e = v.model;
    ctx.font = `${{val(e.text_font_style)}} ${{val(e.text_font_size)}} ${{val(e.text_font)}}`;
    const h = parseFloat(val(e.text_font_size)) * val(e.text_line_height);
    const d = e.source.data;
    for (let i = 0; i < d.xl.length; i++) {{
      if (!Number.isFinite(d.xl[i])) continue;  // left out: no place clear of the rest
      const x = frame.x_scale.compute(d.xl[i]) + val(e.x_offset);
      const y = frame.y_scale.compute(d.yl[i]) - val(e.y_offset);
      out.edges.push({{id: d.src[i] + '>' + d.dst[i], x1: x,
                       x2: x + ctx.measureText(d.types[i]).width, y1: y - h, y2: y}});
    }}
  }}
  out.paths = [];
  const drawnPaths = new Set();
  for (const v of views) {{  // the edges' lines, in the same screen coordinates
    const ds = v.model.data_source;
    if (!ds || !ds.data.xs || !String(ds.name).startsWith('lineage-') || drawnPaths.has(ds.id))
      continue;
    drawnPaths.add(ds.id);
    const d = ds.data;
    for (let i = 0; i < d.xs.length; i++)
      out.paths.push({{id: d.src[i] + '>' + d.dst[i], src: d.src[i], dst: d.dst[i],
                       xs: [...d.xs[i]].map(x => frame.x_scale.compute(x)),
                       ys: [...d.ys[i]].map(y => frame.y_scale.compute(y))}});
  }}
  for (const v of views)
    if (v.model.type === 'Arrow' || v.model.constructor.name === 'Arrow')
      out.arrows += v.model.source.get_length();
  return out;
}})()"""


def _tree(size: int) -> nx.DiGraph:
    """A ternary derivation tree of ``size`` records (child -> parent), ids of two lengths,
    every status (the longest status line too)."""
    graph = nx.DiGraph(root="note-0000", direction="down")
    statuses = [s.value for s in Status if s not in (Status.UNAUTHORIZED,
                                                     Status.OUT_OF_SCOPE, Status.DISCARDED)]
    for i in range(size):
        rid = f"note-{i:04d}" if i % 7 else f"episode-2026-01-05-{i:04d}"
        status = statuses[i % len(statuses)] if i % 3 == 0 else Status.ACTIVE.value
        graph.add_node(rid, kind="semantic" if i % 2 else "episodic", status=status,
                       authority="model_inferred", created_at=T0 + timedelta(minutes=i),
                       depth=0, erased=status == Status.ERASED.value)
        if i:
            parent = (i - 1) // 3
            pid = f"note-{parent:04d}" if parent % 7 else f"episode-2026-01-05-{parent:04d}"
            graph.add_edge(rid, pid, type="derived_from", types="derived_from")
    return graph


def _overlaps(boxes: list[dict[str, float]], others: list[dict[str, float]]) -> list[str]:
    """Pairs of a box of ``boxes`` and one of ``others`` (of another node) that overlap."""
    found = []
    for a in boxes:
        for b in others:
            if a["id"] != b["id"] and a["x1"] < b["x2"] and b["x1"] < a["x2"] \
                    and a["y1"] < b["y2"] and b["y1"] < a["y2"]:
                found.append(f"{a['id']}/{b['id']}")
    return found


def _crossings(paths: list[dict[str, Any]], boxes: list[dict[str, float]]) -> list[str]:
    """Edges one of whose straight stretches runs through a box (a node or a label) that is
    not of the edge's own child (where the edge starts)."""
    found = []
    for path in paths:
        points = list(zip(path["xs"], path["ys"], strict=True))
        for (xa, ya), (xb, yb) in itertools.pairwise(points):
            lo_x, hi_x, lo_y, hi_y = min(xa, xb), max(xa, xb), min(ya, yb), max(ya, yb)
            for b in boxes:
                if b["id"] == path["src"]:
                    continue
                if lo_x < b["x2"] - 1 and b["x1"] + 1 < hi_x + (lo_x == hi_x) \
                        and lo_y < b["y2"] - 1 and b["y1"] + 1 < hi_y + (lo_y == hi_y):
                    found.append(f"{path['id']} through {b['id']}")
    return found


def test_500_records_keep_their_labels_apart(chromium: str, tmp_path: Path) -> None:
    graph = _tree(500)
    page = tmp_path / "lineage.html"
    page.write_text(to_html(graph), encoding="utf-8")
    with Chromium(chromium) as browser:
        browser.open(page)
        drawn = browser.wait_for(BOXES_JS)
        assert drawn["visible"], "the labels are drawn at the page's first view"
        assert sorted(b["id"] for b in drawn["labels"]) == sorted(graph.nodes)
        assert _overlaps(drawn["labels"], drawn["labels"]) == []
        assert _overlaps(drawn["labels"], drawn["discs"]) == []
        assert drawn["arrows"] == graph.number_of_edges()
        # every edge is drawn, and none runs through a node or a label
        assert sorted(p["id"] for p in drawn["paths"]) == sorted(
            f"{u}>{v}" for u, v in graph.edges)
        assert _crossings(drawn["paths"], drawn["labels"] + drawn["discs"]) == []
        left, top, right, bottom = drawn["frame"]
        assert right - left <= MAX_FRAME_PX and bottom - top <= MAX_FRAME_PX
        for disc in drawn["discs"]:  # every node inside the frame
            assert left < disc["x1"] and disc["x2"] < right, disc
            assert top < disc["y1"] and disc["y2"] < bottom, disc

        # zoom out: the labels would pile up, so they hide
        browser.call("Input.dispatchMouseEvent", type="mouseWheel", x=400, y=300,
                     deltaX=0, deltaY=800)
        hidden = browser.wait_for(f"(() => {{ const d = {BOXES_JS}; return d && "
                                  f"d.range[1] - d.range[0] > {drawn['range'][1]} - "
                                  f"{drawn['range'][0]} ? d : null; }})()")
        assert not hidden["visible"]
        assert browser.errors == []
        outside = [u for u in browser.requests if not u.startswith(("file:", "data:", "blob:"))]
        assert outside == []


@pytest.mark.parametrize("size", [1, 5, 14, 25, 40])
def test_small_lineages_keep_their_labels_apart(chromium: str, tmp_path: Path,
                                                size: int) -> None:
    graph = _tree(size)
    page = tmp_path / "lineage.html"
    page.write_text(to_html(graph), encoding="utf-8")
    with Chromium(chromium) as browser:
        browser.open(page)
        drawn = browser.wait_for(BOXES_JS)
        assert drawn["visible"]
        assert _overlaps(drawn["labels"], drawn["labels"]) == []
        assert _overlaps(drawn["labels"], drawn["discs"]) == []
        assert drawn["arrows"] == graph.number_of_edges()
        # edge labels (drawn up to a size) clear of each other, node labels and nodes
        edges = graph.number_of_edges()
        if edges > LABELLED_EDGES:
            assert drawn["edges"] == []
        else:  # a label finds its place on most edges
            assert len(drawn["edges"]) >= edges * 0.75, (len(drawn["edges"]), edges)
        assert _overlaps(drawn["edges"], drawn["edges"]) == []
        assert _overlaps(drawn["edges"], drawn["labels"] + drawn["discs"]) == []
        assert _crossings(drawn["paths"], drawn["labels"] + drawn["discs"]) == []
        assert browser.errors == []
