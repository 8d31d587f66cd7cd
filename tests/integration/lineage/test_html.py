"""``graphmem lineage ID --format html``: one self-contained page, checked in a real browser. The
page is opened in headless Chromium with name resolution disabled; the test reads what BokehJS drew,
hovers, drags, pans and zooms, and requires that the page logged no error and asked for nothing but
the file itself and inline data."""

from __future__ import annotations

import io
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from graphmem.lineage.graph import KIND_COLOURS, export
from graphmem.lineage.html import NODES_NAME
from tests.support.headless import Chromium
from tests.support.northwind import load

SUBJECT = {"tenant": "acme", "user": "u-17"}

# Bokeh's own view tree: the node renderer's view, its screen coordinates, canvas box and
# plot frame.
NODES_JS = f"""(() => {{
  const view = [...Bokeh.index.all_views()].find(v => v.model.name === '{NODES_NAME}');
  if (!view || !view.has_finished()) return null;
  const box = view.parent.canvas_view.el.getBoundingClientRect();
  const data = view.model.data_source.data;
  return {{ids: [...data.id], status: [...data.status], kind: [...data.kind],
          x: [...data.x], y: [...data.y],
          sx: [...view.glyph.sx].map(x => x + box.left),
          sy: [...view.glyph.sy].map(y => y + box.top),
          left: box.left, top: box.top, width: box.width, height: box.height,
          frame: (b => [b.x0 + box.left, b.y0 + box.top, b.x1 + box.left, b.y1 + box.top])(
            view.parent.frame.bbox),
          range: [view.parent.model.x_range.start, view.parent.model.x_range.end]}};
}})()"""
EDGES_JS = """(() => {
  const doc = Bokeh.documents[0];
  const out = [];
  for (const kind of ['derived_from', 'supersedes', 'evidenced_by']) {
    const source = doc.get_model_by_name('lineage-' + kind);
    if (!source) continue;
    const d = source.data;
    for (let i = 0; i < d.src.length; i++)
      out.push({src: d.src[i], dst: d.dst[i], x0: d.x0[i], y0: d.y0[i], x1: d.x1[i],
                y1: d.y1[i], types: d.types[i]});
  }
  return out;
})()"""
# The centre of the toolbar button whose title is TITLE (in Bokeh's shadow DOM).
BUTTON_JS = """(() => {
  let found = null;
  const walk = (node) => {
    if (found) return;
    if (node.getAttribute && node.getAttribute('title') === 'TITLE') {
      const r = node.getBoundingClientRect();
      found = [r.x + r.width / 2, r.y + r.height / 2];
    }
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children ?? []) walk(child);
  };
  walk(document.body);
  return found;
})()"""
# The text a tooltip shows (Bokeh draws it in shadow DOM, so walk shadow roots too).
TEXT_JS = """(() => {
  const texts = [];
  const walk = (node) => {
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children ?? []) {
      if (child.tagName === 'STYLE' || child.tagName === 'SCRIPT') continue;
      walk(child);
    }
    if (node.nodeType === 1 && node.childElementCount === 0 && node.textContent.trim())
      texts.push(node.textContent.trim());
  };
  walk(document.body);
  return texts.join(' | ');
})()"""


@pytest.fixture()
def erased(memory: Memory, neo4j_db: Any, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """Northwind with user u-17 erased (tombstones and pending recomputes), and the CLI
    pointed at the same database."""
    load(memory)
    memory.apply_deletion(memory.plan_deletion(subject=SUBJECT, requested_by="p", reason="r"))
    settings = neo4j_db.settings
    monkeypatch.setenv("NEO4J_URI", settings.uri)
    monkeypatch.setenv("NEO4J_USER", settings.user)
    monkeypatch.setenv("NEO4J_PASSWORD", settings.password)
    monkeypatch.setenv("NEO4J_DATABASE", settings.database)
    return memory


class _External(HTMLParser):
    """Every attribute of the document's own tags that points at another resource."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "srcset", "data", "action") and value:
                self.links.append(f"<{tag} {name}={value}>")


def _rgb(png: bytes, x: float, y: float) -> tuple[int, int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        pixel = image.convert("RGB").getpixel((round(x), round(y)))
    assert isinstance(pixel, tuple), pixel  # an RGB image's pixel is a tuple of its bands
    r, g, b, *_ = pixel
    return int(r), int(g), int(b)


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def test_html_page_renders_offline_in_chromium(erased: Memory, chromium: str,
                                               tmp_path: Path) -> None:
    page = tmp_path / "lineage.html"
    result = CliRunner().invoke(app, ["lineage", "sum-duplicate-charges", "--format", "html",
                                      "-o", str(page)])
    assert result.exit_code == 0, result.output
    graph = erased.lineage("sum-duplicate-charges", "both")
    statuses = {n: a["status"] for n, a in graph.nodes(data=True)}
    assert statuses["ep-u17-call"] == "ERASED"
    assert statuses["fact-retry-bug"] == "PENDING_RECOMPUTE"

    parser = _External()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.links == []  # every script and style is inline

    with Chromium(chromium) as browser:
        browser.open(page)
        drawn = browser.wait_for(NODES_JS)
        # the page drew every node of the lineage, at a place inside its canvas
        assert sorted(drawn["ids"]) == sorted(graph.nodes)
        assert dict(zip(drawn["ids"], drawn["status"], strict=True)) == statuses
        for x, y in zip(drawn["sx"], drawn["sy"], strict=True):
            assert drawn["left"] < x < drawn["left"] + drawn["width"]
            assert drawn["top"] < y < drawn["top"] + drawn["height"]
        edges = browser.evaluate(EDGES_JS)
        assert {(e["src"], e["dst"]): e["types"].replace(" ", "") for e in edges} == {
            (u, v): a["types"] for u, v, a in graph.edges(data=True)}
        assert "derived_from,evidenced_by" in {a["types"] for *_, a in graph.edges(data=True)}

        # ... and the pixels are there: an active node's centre has its kind's colour
        shot = browser.screenshot(tmp_path / "lineage.png")
        at = {node: i for i, node in enumerate(drawn["ids"])}
        active = at["ep-u18-call"]
        assert statuses["ep-u18-call"] == "ACTIVE"
        pixel = _rgb(shot, drawn["sx"][active], drawn["sy"][active])
        want = _hex(KIND_COLOURS[drawn["kind"][active]])
        assert all(abs(a - b) <= 6 for a, b in zip(pixel, want, strict=True)), (pixel, want)

        # hover: the tooltip names the node, its kind, authority, created time and status
        node = graph.nodes["ep-u18-call"]
        browser.mouse("mouseMoved", drawn["sx"][active], drawn["sy"][active])
        text = browser.wait_for(f"(() => {{ const t = {TEXT_JS}; "
                                "return t.includes('authority') ? t : null; })()")
        for value in ("ep-u18-call", node["kind"], node["authority"], "ACTIVE",
                      node["created_at"].isoformat()):
            assert value in text

        # drag the node: it moves, and its edge ends follow
        x, y = drawn["sx"][active], drawn["sy"][active]
        browser.mouse("mousePressed", x, y)
        for step in range(1, 11):
            browser.mouse("mouseMoved", x - 12 * step, y + 9 * step, pressed=True)
        browser.mouse("mouseReleased", x - 120, y + 90)
        moved = browser.wait_for(NODES_JS)
        nx_, ny_ = moved["x"][active], moved["y"][active]
        assert (nx_, ny_) != (drawn["x"][active], drawn["y"][active])
        touching = [e for e in browser.evaluate(EDGES_JS) if "ep-u18-call" in (e["src"],
                                                                              e["dst"])]
        assert touching
        for e in touching:
            end = (e["x0"], e["y0"]) if e["src"] == "ep-u18-call" else (e["x1"], e["y1"])
            assert end == pytest.approx((nx_, ny_))

        # zoom (mouse wheel) narrows the visible range
        corner = (moved["frame"][0] + 30, moved["frame"][3] - 30)  # the plot's, not a legend's
        browser.call("Input.dispatchMouseEvent", type="mouseWheel", x=corner[0] + 300,
                     y=corner[1] - 200, deltaX=0, deltaY=-400)
        zoomed = browser.wait_for(f"(() => {{ const d = {NODES_JS}; return d && "
                                  f"d.range[1] - d.range[0] < {moved['range'][1]} - "
                                  f"{moved['range'][0]} ? d.range : null; }})()")
        # pick the pan tool in the toolbar; dragging the background then moves the view
        button = browser.evaluate(BUTTON_JS.replace("TITLE", "Pan"))
        assert button is not None, "no Pan button in the toolbar"
        browser.mouse("mousePressed", *button)
        browser.mouse("mouseReleased", *button)
        browser.mouse("mousePressed", *corner)
        for step in range(1, 6):
            browser.mouse("mouseMoved", corner[0] + 20 * step, corner[1], pressed=True)
        browser.mouse("mouseReleased", corner[0] + 100, corner[1])
        panned = browser.wait_for(NODES_JS)["range"]
        assert panned[0] < zoomed[0]  # dragged right: the view shows what lay to the left
        assert panned[1] - panned[0] == pytest.approx(zoomed[1] - zoomed[0])

        assert browser.errors == []
        assert browser.requests, "the browser reported no request at all"
        outside = [u for u in browser.requests if not u.startswith(("file:", "data:", "blob:"))]
        assert outside == []


def test_to_html_without_bokeh_is_a_typed_error(erased: Memory,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.errors import ValidationError

    graph = erased.lineage("fact-retry-bug", "up")
    page = export(graph, "html")
    assert isinstance(page, str) and page.lstrip().lower().startswith("<!doctype html>")
    monkeypatch.setitem(sys.modules, "bokeh", None)
    monkeypatch.setitem(sys.modules, "bokeh.embed", None)
    with pytest.raises(ValidationError, match=r"graphmem\[html\]"):
        export(graph, "html")
