"""The inspector against hostile input and other sites' pages, over HTTP and in headless
Chromium: a deletion subject of another tenant is refused whether or not that tenant holds
it; a page of another site (another port of this machine included) gets no subresource,
fetch or form answer, and no page that writes (a logged retrieval, an issued certificate, a
kept deletion plan) even by navigating to it."""

from __future__ import annotations

import html
import http.server
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.ui.config import UiConfig
from tests.support.headless import Chromium

from .serving import CONFINED, fetch, record, running, small_store

pytestmark = pytest.mark.neo4j

#: the Fetch Metadata a browser sends with an <img> of another site's page
FOREIGN_IMAGE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors",
                 "Sec-Fetch-Dest": "image"}
#: ... and with a link of another site's page followed to the inspector
FOREIGN_LINK = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Dest": "document", "Sec-Fetch-User": "?1"}


def confined(**options: Any) -> UiConfig:
    return UiConfig.build(tenants=["acme"], scope={"user": CONFINED["user"]}, **options)


def logged_retrievals(memory: Memory) -> int:
    store = store_of(memory)
    records, _, _ = store.driver.execute_query("MATCH (q:Retrieval) RETURN count(q) AS n",
                                               database_=store.database)
    return int(records[0]["n"])


def test_a_subject_of_another_tenant_is_refused_whether_it_exists_or_not(
        memory: Memory) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        empty = fetch(f"{base}/deletion/plan?subject=tenant%3Dglobex")
        memory.put_many([{**record("globex-17", "Globex note"),
                          "scope": {"tenant": "globex", "user": "u-17"}}])
        held = fetch(f"{base}/deletion/plan?subject=tenant%3Dglobex")
    assert (empty.status, held.status) == (403, 403)
    assert "may not read tenant" in empty.body and "may not read tenant" in held.body


def test_another_sites_requests_get_nothing_and_write_nothing(memory: Memory) -> None:
    small_store(memory)
    with running(memory, confined(allow_writes=True)) as base:
        before = logged_retrievals(memory)
        for path in ("/retrieval?goal=tea", "/records", "/api/lineage/pref-1",
                     "/export/lineage/pref-1?format=json", "/deletion/plan?roots=ep-1"):
            answer = fetch(base + path, headers=FOREIGN_IMAGE)
            assert answer.status == 403, path
            assert "another site" in answer.body, path
            same_site = fetch(base + path, headers={**FOREIGN_IMAGE,
                                                    "Sec-Fetch-Site": "same-site"})
            assert same_site.status == 403, path
        for path in ("/retrieval?goal=tea", "/deletion/plan?roots=ep-1",
                     "/deletion/requests/del-x/certificate"):
            assert fetch(base + path, headers=FOREIGN_LINK).status == 403, path
        assert logged_retrievals(memory) == before
        # a link from elsewhere still opens a page that only reads
        for path in ("/", "/records", "/records/pref-1", "/lineage/pref-1", "/retrieval",
                     "/deletion?roots=ep-1"):
            assert fetch(base + path, headers=FOREIGN_LINK).status == 200, path
        # the inspector's own pages, a typed URL and a client without Fetch Metadata
        own = {"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
        assert fetch(f"{base}/api/lineage/pref-1", headers=own).status == 200
        typed = {**FOREIGN_LINK, "Sec-Fetch-Site": "none"}
        assert fetch(f"{base}/retrieval?goal=tea", headers=typed).status == 200
        assert fetch(f"{base}/retrieval?goal=tea").status == 200
        assert logged_retrievals(memory) == before + 2


@contextmanager
def other_site(folder: Path) -> Iterator[str]:
    """``folder`` served on another port of 127.0.0.1 (a site of its own to the browser)."""
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_a_page_of_another_site_cannot_make_the_inspector_retrieve(
        memory: Memory, chromium: str, tmp_path: Path) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        (tmp_path / "index.html").write_text(
            f'<img id="a" src="{base}/retrieval?goal=tea+one">'
            f'<script src="{base}/retrieval?goal=tea+two"></script>'
            f'<iframe src="{base}/retrieval?goal=tea+three"></iframe>'
            '<script>fetch("' + base + '/retrieval?goal=tea+four", {mode: "no-cors"})'
            '.finally(() => { window.done = true; });</script>')
        before = logged_retrievals(memory)
        with other_site(tmp_path) as site, Chromium(chromium, loopback=True) as browser:
            browser.call("Page.navigate", url=f"{site}/index.html")
            browser.wait_for("window.done === true && document.readyState === 'complete'")
        assert logged_retrievals(memory) == before


def test_record_ids_cannot_hide_an_edge_or_break_the_explorer(
        memory: Memory, chromium: str) -> None:
    """An id may hold ``->``, quotes and backslashes: each edge is still drawn (an edge's id
    was ``PARENT->CHILD``, the id of a record that hid it), and the root is still marked."""
    memory.put_many([record("m", "m"), record("n", "n", minutes=1, derived_from=["m"]),
                     record("n->m", "an id that was the edge's", minutes=2, derived_from=["m"]),
                     record("a", "a", minutes=3, derived_from=["m"]),
                     record("b->c", "b", minutes=4, derived_from=["a"]),
                     record("a->b", "c", minutes=5, derived_from=["m"]),
                     record("c", "c", minutes=6, derived_from=["a->b"]),
                     record("q'\\\"`", "quotes", minutes=7, derived_from=["m"])])
    with running(memory, confined()) as base, Chromium(chromium, loopback=True) as browser:
        for root, nodes, edges in (("m", 8, 7), ("q%27%5C%22%60", 2, 1)):
            browser.call("Page.navigate", url=f"{base}/lineage/{root}?direction=both&depth=5")
            browser.wait_for("window.graphmemLineage && window.graphmemLineage.ready")
            drawn = browser.evaluate("""(() => {
              const cy = graphmemLineage.cy, root = document.getElementById('graph').dataset.root;
              return {nodes: cy.nodes().length, edges: cy.edges().length,
                      pairs: cy.edges().map(e => e.source().id() + ' ' + e.target().id()),
                      root: cy.getElementById(root).style('border-width')};
            })()""")
            assert (drawn["nodes"], drawn["edges"]) == (nodes, edges), drawn
            assert drawn["root"] == "6px", drawn
            assert browser.errors == []


def test_a_retraction_returns_to_its_own_record_whatever_its_id(memory: Memory) -> None:
    """The redirect after a retraction quotes the id: ``?``, ``#`` and ``%`` in it led to
    another record's page (``/records/x?y`` is record ``x``) or to none."""
    odd = ["x?y", "x#y", "x%2Fy", "x%3Fy"]
    memory.put_many([record("x", "x"), *(record(rid, rid, minutes=i + 1)
                                         for i, rid in enumerate(odd))])
    config = confined(allow_writes=True)
    with running(memory, config) as base:
        for rid in odd:
            path = "/records/" + urllib.parse.quote(rid, safe="")
            answer = fetch(f"{base}{path}/retract",
                           form={"token": config.token, "confirm": "yes", "reason": "r"})
            assert answer.status == 303, (rid, answer.body)
            back = fetch(base + answer.headers["location"])
            assert back.status == 200 and f"Record {rid}" in html.unescape(back.body), rid
    assert memory.get("x").retracted is False
    assert all(memory.get(rid).retracted for rid in odd)


HOSTILE = '<img src=x onerror="window.xss=1"></script><script>window.xss=2</script><!--'
#: an id of the same kind (ids hold no whitespace)
HOSTILE_ID = "x</script><svg/onload=window.xss=3><!--"


def test_hostile_text_is_text_on_every_page(memory: Memory, chromium: str) -> None:
    """Content, id, scope, provenance, asserted key and value, a retraction's reason and a
    query that hold markup show as the text they are: no element of theirs in the page."""
    memory.put_many([
        {**record("h-1", HOSTILE, provenance={"<b>k</b>": HOSTILE}, asserts="k<i>",
                  asserted_value=HOSTILE),
         "scope": {**CONFINED, "project": "<u>p</u>"}},
        record(HOSTILE_ID, HOSTILE, minutes=1, derived_from=["h-1"])])
    memory.retract("h-1", by="<i>analyst</i>", reason=HOSTILE)
    quoted = urllib.parse.quote(HOSTILE_ID, safe="")
    pages = ["/records?status=any", "/records/h-1", f"/records/{quoted}",
             f"/lineage/{quoted}", "/retrieval?goal=" + urllib.parse.quote(HOSTILE),
             f"/deletion/plan?roots={quoted}&reason=" + urllib.parse.quote(HOSTILE),
             "/records/" + urllib.parse.quote(HOSTILE_ID + "-none", safe="")]
    injected = ("document.querySelectorAll('img[src=x], svg[onload], script:not([src]), b, i, u')"
                ".length")
    with running(memory, confined()) as base, Chromium(chromium, loopback=True) as browser:
        for path in pages:
            browser.call("Page.navigate", url=base + path)
            browser.wait_for("document.readyState === 'complete'")
            if path.startswith("/lineage"):
                browser.wait_for("window.graphmemLineage && window.graphmemLineage.ready")
            assert browser.evaluate(injected) == 0, path
            assert browser.evaluate("window.xss === undefined"), path
            if not path.endswith("-none"):  # the not-found page names no id
                assert "</script>" in browser.evaluate("document.body.innerText"), path


def test_pages_are_neither_kept_by_the_browser_nor_embedded_elsewhere(memory: Memory) -> None:
    """A page shows records (personal data): no browser cache or back-forward copy keeps it
    (``no-store``), and no other origin may load or open it as its own resource."""
    small_store(memory)
    with running(memory, confined()) as base:
        for path in ("/records/pref-1", "/records", "/api/lineage/pref-1",
                     "/export/lineage/pref-1?format=json", "/records/bob-1"):
            headers = {k.lower(): v for k, v in fetch(base + path).headers.items()}
            assert headers["cache-control"] == "no-store", path
            assert headers["cross-origin-resource-policy"] == "same-origin", path
            assert headers["cross-origin-opener-policy"] == "same-origin", path
            assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        static = {k.lower(): v for k, v in fetch(f"{base}/static/app.css").headers.items()}
        assert "cache-control" not in static
        assert static["cross-origin-resource-policy"] == "same-origin"


def test_an_id_ending_in_export_opens_its_own_lineage(memory: Memory) -> None:
    """``/lineage/x/export`` was the export of record x, so the explorer of a record named
    ``x/export`` downloaded x's lineage instead; the export has an address of its own."""
    memory.put_many([record("x", "x"), record("x/export", "y", minutes=1, derived_from=["x"])])
    with running(memory, confined()) as base:
        page = fetch(f"{base}/lineage/x/export")
        assert page.status == 200 and "Lineage of x/export" in page.body
        assert "content-disposition" not in {k.lower() for k in page.headers}
        assert 'href="/export/lineage/x/export?format=json&amp;' in page.body
        export = fetch(f"{base}/export/lineage/x%2Fexport?format=json&direction=up&depth=0")
        assert export.status == 200 and '"x/export"' in export.body
        assert "lineage-x_export.json" in export.headers["content-disposition"]


def test_the_explain_time_round_trips_at_the_ends_of_the_range(memory: Memory) -> None:
    """The record page's ``at`` box gives back what it was given: ``%Y`` wrote year 1 as
    ``1``, and submitting the form again was a 400."""
    small_store(memory)
    with running(memory, confined()) as base:
        for given in ("0001-01-01T00:00:00", "0999-12-31T23:59:59", "9999-12-31T23:59:59"):
            page = fetch(f"{base}/records/pref-1?at={given}")
            assert page.status == 200 and f'name="at" value="{given}"' in page.body, given
