"""Lineage pictures (matplotlib): no two labels overlap at 34 and 500 records, the picture of a
wide generation is not a strip, and every edge's arrowhead is drawn above the boxes, at a
box's border."""

from __future__ import annotations

from functools import cache

import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.transforms import Bbox

from graphmem.lineage.picture import picture, render, row_cap
from graphmem.lineage.styles import LABELLED_EDGES
from tests.support.lineage_graphs import every_status, layered, summary_of_episodes

GRAPHS = {"statuses": every_status(), "34": summary_of_episodes(34), "500": layered(500)}


@cache
def _picture(name: str) -> Figure:
    """The picture of ``GRAPHS[name]``, drawn once for the tests that only read it (the
    500-record one takes seconds)."""
    return picture(GRAPHS[name])


def _overlaps(boxes: list[Bbox]) -> list[tuple[int, int]]:
    """Pairs of boxes that overlap (sweep along x)."""
    order = sorted(range(len(boxes)), key=lambda i: boxes[i].x0)
    found: list[tuple[int, int]] = []
    open_: list[int] = []
    for i in order:
        open_ = [j for j in open_ if boxes[j].x1 > boxes[i].x0]
        found += [(j, i) for j in open_
                  if boxes[j].y0 < boxes[i].y1 and boxes[i].y0 < boxes[j].y1]
        open_.append(i)
    return found


@pytest.mark.parametrize("name", list(GRAPHS))
def test_no_two_labels_overlap(name: str) -> None:
    """Every text drawn (node ids, statuses, edge labels) has a box of its own."""
    graph, fig = GRAPHS[name], _picture(name)
    renderer = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    texts = [t for t in fig.axes[0].texts if t.get_text()]
    assert len(texts) >= 2 * graph.number_of_nodes()
    boxes = [t.get_window_extent(renderer) for t in texts]
    assert _overlaps(boxes) == []


def test_a_wide_generation_wraps_into_rows() -> None:
    """A summary of 33 episodes is no longer one 6,000-pixel strip: its generation wraps
    into rows and the PNG is less than three times wider than high."""
    graph = summary_of_episodes(34)
    fig = picture(graph)
    width, height = fig.get_size_inches()
    assert width / height < 3
    png = render(graph)
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert w < 3000 and w / h < 3, (w, h)
    assert row_cap(34, 2.4) < 33


@pytest.mark.parametrize("name", list(GRAPHS))
def test_every_edge_has_an_arrowhead_above_the_boxes(name: str) -> None:
    """One line and one head per edge: the lines behind the boxes, the heads above them all,
    each head ending on the border of a box (not inside one)."""
    graph, ax = GRAPHS[name], _picture(name).axes[0]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    heads = [a for a in arrows if type(a.get_arrowstyle()).__name__ == "CurveFilledB"]
    lines = [a for a in arrows if a not in heads]
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    assert len(heads) == len(lines) == graph.number_of_edges()
    assert len(boxes) == graph.number_of_nodes()
    assert min(h.get_zorder() for h in heads) > max(b.get_zorder() for b in boxes)
    assert max(line.get_zorder() for line in lines) < min(b.get_zorder() for b in boxes)
    extents = [b.get_bbox() for b in boxes]
    for head in heads:
        (hx, hy) = head._posA_posB[1]  # type: ignore[attr-defined]
        inside = [e for e in extents if e.x0 + 1e-6 < hx < e.x1 - 1e-6
                  and e.y0 + 1e-6 < hy < e.y1 - 1e-6]
        assert inside == [], "an arrowhead ends inside a box"


def test_edge_labels_only_up_to_a_size() -> None:
    """Up to LABELLED_EDGES edges each carries its type; past it none does and the legend
    says what the line styles mean."""
    small, large = every_status(), summary_of_episodes(LABELLED_EDGES + 2)
    small_texts = [t.get_text() for t in picture(small).axes[0].texts]
    assert sum(t in ("derived_from", "supersedes", "evidenced_by") for t in small_texts) \
        == small.number_of_edges()
    fig = picture(large)
    assert not any(t.get_text() == "derived_from" for t in fig.axes[0].texts)
    legend = fig.legends[0]
    assert "dashed supersedes" in legend.get_title().get_text()
