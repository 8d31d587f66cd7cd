"""The inspector in headless Chromium (name resolution off): every page loads with no console
error and asks for nothing outside 127.0.0.1; the lineage explorer lays 500 records out with no
two labels overlapping, marks status without colour, shows edge types on hover and expands a
node on click."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.ui.config import UiConfig
from tests.support.headless import Chromium

from .serving import CONFINED, ID_PATHS, record, running, small_store

pytestmark = pytest.mark.neo4j

#: set to a folder to keep each page's screenshot there (docs/img for the docs)
SHOTS = os.environ.get("GRAPHMEM_UI_SCREENSHOTS")

# every pair of node label boxes that overlap (model coordinates, after the layout)
OVERLAPS_JS = """(() => {
  const s = window.graphmemLineage;
  if (!s || !s.ready) return null;
  const boxes = s.cy.nodes().map(n => Object.assign({id: n.id()},
      n.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true})));
  const bad = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) bad.push([a.id, b.id]);
    }
  }
  return {nodes: boxes.length, edges: s.cy.edges().length, overlaps: bad.slice(0, 5),
          count: bad.length, empty: boxes.filter(b => b.w <= 0 || b.h <= 0).length,
          arrows: s.cy.edges().filter(e => e.style('target-arrow-shape') !== 'triangle').length,
          labels: Object.fromEntries(s.cy.nodes().map(n => [n.id(), n.data('label')]))};
})()"""


def confined(**options: Any) -> UiConfig:
    return UiConfig.build(tenants=["acme"], scope={"user": CONFINED["user"]}, **options)


def visit(browser: Chromium, url: str) -> None:
    """Load ``url`` with fresh error and request logs; wait for its load event."""
    browser.errors.clear()
    browser.requests.clear()
    browser.call("Page.navigate", url=url)
    browser.wait_for(f"document.readyState === 'complete' && location.href.startsWith("
                     f"{json.dumps(url.split('?')[0])})")


def shot(browser: Chromium, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        browser.screenshot(Path(SHOTS) / f"ui-{name}.png")


def test_every_page_loads_clean(memory: Memory, chromium: str, tmp_path: Path) -> None:
    small_store(memory)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({
        "northwind": {"funnel": {"trials": 4, "counts": {"written": 4, "eligible": 4,
                                                         "retrieved": 3, "exposed": 3,
                                                         "used": 2, "helped": 1}}},
        "faults": {"graphmem_through": 0, "naive_through": 1, "results": [
            {"fault": "stale_fact", "graphmem": {"let_through": False},
             "naive": {"let_through": True}}]}}))
    pages = {"home": "/", "records": "/records", "record": "/records/pref-1",
             "lineage": "/lineage/pref-1", "retrieval": "/retrieval?goal=what+does+alice+drink",
             "deletion": "/deletion", "deletion-preview": "/deletion/plan?roots=ep-1",
             "reports": "/reports"}
    with (running(memory, confined(report=report)) as base,
          Chromium(chromium, loopback=True) as browser):
        for name, path in pages.items():
            visit(browser, base + path)
            if name == "lineage":
                browser.wait_for("window.graphmemLineage && window.graphmemLineage.ready")
            assert browser.evaluate("document.querySelector('h1').textContent"), name
            assert browser.errors == [], (name, browser.errors)
            outside = [u for u in browser.requests
                       if not u.startswith(base + "/") and not u.startswith("data:")]
            assert outside == [], (name, outside)
            shot(browser, name)
        assert browser.evaluate("document.querySelectorAll('svg.chart rect').length") == 8


def test_lineage_explorer_at_500_records(memory: Memory, chromium: str) -> None:
    """A ternary derivation tree of 500 records (one retracted, one quarantined)."""
    records = [record("n000", "root note")]
    for i in range(1, 500):
        extra: dict[str, Any] = {"retracted": True} if i == 7 else {}
        records.append(record(f"n{i:03d}", f"note {i}", minutes=i,
                              derived_from=[f"n{(i - 1) // 3:03d}"], **extra))
    memory.put_many(records)
    with (running(memory, confined()) as base,
          Chromium(chromium, timeout=120, loopback=True) as browser):
        visit(browser, f"{base}/lineage/n000?direction=down&depth=20")
        result = browser.wait_for(OVERLAPS_JS, timeout=120)
        assert result["nodes"] == 500 and result["edges"] == 499
        assert result["empty"] == 0
        assert result["count"] == 0, result["overlaps"]
        assert result["arrows"] == 0
        assert result["labels"]["n007"].startswith("✗ ")  # status without colour
        assert result["labels"]["n008"] == "n008"  # active: no mark
        assert browser.errors == []
        assert all(u.startswith(base + "/") for u in browser.requests)


def test_lineage_explorer_expands_on_click_and_labels_edges_on_hover(
        memory: Memory, chromium: str) -> None:
    small_store(memory)
    memory.put_many([record("pref-3", "Alice likes green tea", minutes=9,
                            derived_from=["pref-1"])])
    with running(memory, confined()) as base, Chromium(chromium, loopback=True) as browser:
        visit(browser, f"{base}/lineage/pref-3?direction=up&depth=1")
        browser.wait_for("window.graphmemLineage && window.graphmemLineage.ready")
        assert browser.evaluate("graphmemLineage.cy.nodes().length") == 2
        # where pref-1 and the edge's middle are on the page
        where = browser.evaluate("""(() => {
          const cy = graphmemLineage.cy, box = cy.container().getBoundingClientRect();
          const n = cy.getElementById('pref-1').renderedPosition();
          const e = cy.edges()[0].renderedMidpoint();
          return {nx: n.x + box.left, ny: n.y + box.top, ex: e.x + box.left, ey: e.y + box.top};
        })()""")
        browser.mouse("mouseMoved", where["ex"], where["ey"])
        browser.wait_for("document.getElementById('edge-label').textContent"
                         ".includes('derived_from')")
        browser.mouse("mouseMoved", where["nx"], where["ny"])
        browser.mouse("mousePressed", where["nx"], where["ny"])
        browser.mouse("mouseReleased", where["nx"], where["ny"])
        browser.wait_for("graphmemLineage.expansions === 1 && graphmemLineage.ready")
        ids = browser.evaluate("graphmemLineage.cy.nodes().map(n => n.id()).sort()")
        assert ids == ["ep-1", "pref-1", "pref-3"]
        link = browser.evaluate("document.querySelector('a.export-link').href")
        assert "view=pref-1%3Aboth%3A1" in link
        assert browser.errors == []


def test_editing_a_url_reaches_no_other_users_record(memory: Memory, chromium: str) -> None:
    """Each page that takes a record id, its URL edited to name another user's record (or
    none), shows the not-found page: nothing of that record, no script error, and nothing
    asked for outside 127.0.0.1."""
    small_store(memory)
    with running(memory, confined()) as base, Chromium(chromium, loopback=True) as browser:
        for path in ID_PATHS:
            visit(browser, base + path)
            text = browser.evaluate("document.body.innerText")
            assert "4411" not in text and "Bob" not in text, path
            assert "OutOfReachError" in text or "RecordNotFoundError" in text, (path, text)
            # the browser logs the page's own 403/404 answer, and nothing else
            assert [e for e in browser.errors if "status of 40" not in e] == [], path
            assert all(u.startswith(base + "/") for u in browser.requests), path
