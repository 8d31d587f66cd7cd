"""The HTML lineage page titles its root id as written: a root id such as ``$$x^2$$`` was a
TeX title, drawn as a formula, and made the page inline MathJax (two more megabytes)."""

from __future__ import annotations

import networkx as nx
import pytest

pytest.importorskip("bokeh")

from graphmem.lineage.html import to_html


def _page(root: str) -> str:
    graph = nx.DiGraph(root=root, direction="both", depth=1)
    graph.add_node(root, kind="semantic", status="ACTIVE")
    return to_html(graph)


def test_a_tex_like_root_id_is_plain_text() -> None:
    plain, tex = _page("x-2-x"), _page("$$x^2$$")
    assert abs(len(tex) - len(plain)) < 10_000, "MathJax was inlined"
    assert '"PlainText"' in tex and "lineage of $$x^2$$ (both)" in tex
