"""The HTML lineage page's tidy layout: a column per generation, a row per record, each record
at the middle of its children, edges as elbows along the column gaps."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from graphmem.lineage.html_layout import NODE_PX, elbow, fits, label_width, layout


def _tree(size: int) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(f"n{i:03d}" for i in range(size))
    graph.add_edges_from((f"n{i:03d}", f"n{(i - 1) // 3:03d}") for i in range(1, size))
    return graph


def _labels(graph: nx.DiGraph) -> dict[str, str]:
    return {str(n): f"{n}\nactive" for n in graph.nodes}


@pytest.mark.parametrize("size", [1, 2, 4, 40, 500])
def test_a_tree_takes_a_row_per_record_and_centres_each_parent(size: int) -> None:
    graph = _tree(size)
    lay = layout(graph, _labels(graph))
    rows = {round(-y / lay.row, 3) for _, y in lay.nodes.values()}
    leaves = [n for n in graph.nodes if graph.in_degree(n) == 0]
    assert len(rows & {float(r) for r in range(len(leaves))}) == len(leaves)
    for parent in graph.nodes:
        kids = sorted(lay.nodes[str(c)][1] for c in graph.predecessors(parent))
        if kids:  # at the middle row of its children, one column to their left
            middle = (kids[0] + kids[-1]) / 2
            assert abs(lay.nodes[parent][1] - middle) < lay.row
            assert (lay.nodes[parent][1] / lay.row).is_integer()
            assert all(lay.nodes[str(c)][0] > lay.ports[parent]
                       for c in graph.predecessors(parent))
    by_column: dict[float, list[float]] = {}
    for x, y in lay.nodes.values():
        by_column.setdefault(x, []).append(y)
    for ys in by_column.values():  # no two records of a column closer than a row
        ys.sort()
        assert all(b - a >= lay.row - 1e-9 for a, b in itertools.pairwise(ys))


def test_an_edge_is_an_elbow_from_the_child_to_the_end_of_the_parents_label() -> None:
    graph = _tree(4)
    labels = _labels(graph)
    lay = layout(graph, labels)
    xs, ys = elbow(lay, "n002", "n000")
    (xc, yc), (xp, yp) = lay.nodes["n002"], lay.nodes["n000"]
    assert xs[0] == xc - NODE_PX / 2 and ys[:2] == [yc, yc] and ys[2:] == [yp, yp]
    assert xs[1] == xs[2] and xp + NODE_PX / 2 + label_width(labels["n000"]) < xs[3] < xs[2]


def test_an_edge_that_skips_a_generation_crosses_it_between_two_rows() -> None:
    graph = nx.DiGraph([("c", "b"), ("b", "a"), ("c", "a"), ("d", "b")])
    lay = layout(graph, {n: f"{n}\nactive" for n in graph.nodes})
    xs, ys = elbow(lay, "c", "a")
    assert len(xs) == 6 and ys[2] == ys[3] == lay.nodes["a"][1] - lay.row / 2
    rows = {y for _, y in lay.nodes.values()}
    assert all(abs(ys[2] - y) >= lay.row / 2 for y in rows)  # no record on the lane's row
    assert lay.ports["a"] < xs[3] < lay.nodes["b"][0] - NODE_PX / 2  # up after a's column


def test_edge_labels_widen_the_gaps_and_a_huge_tree_does_not_fit() -> None:
    graph = _tree(40)
    plain, wide = layout(graph, _labels(graph)), layout(graph, _labels(graph), 72.0)
    assert wide.nodes["n039"][0] - plain.nodes["n039"][0] >= 72.0
    assert fits(plain, 16_000)
    big = _tree(3000)
    assert not fits(layout(big, _labels(big)), 16_000)


def test_a_cycle_is_laid_out_too() -> None:
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])
    graph.add_node("lone")
    lay = layout(graph, {n: n for n in graph.nodes})
    assert set(lay.nodes) == {"a", "b", "c", "lone"}
