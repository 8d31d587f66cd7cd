"""Lineage pictures draw every record id as written: ``$`` in an id is no TeX (matplotlib read
``$a$`` as math, and ``p$\\undefined$q`` or ``$$x$$`` made the whole PNG/SVG export raise a
bare ValueError, a 500 page in the inspector)."""

from __future__ import annotations

import networkx as nx
import pytest

pytest.importorskip("matplotlib")

from graphmem.lineage.picture import picture, render

IDS = ("$$x^2$$", "p$\\undefinedmacro$q", "$a$", "cost$5", "{{x}}")


def _graph() -> nx.DiGraph:
    graph = nx.DiGraph(root=IDS[0], direction="both", depth=2)
    for node in IDS:
        graph.add_node(node, kind="semantic", status="ACTIVE")
    for child in IDS[1:]:
        graph.add_edge(child, IDS[0], type="derived_from", types="derived_from")
    return graph


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_ids_with_dollar_signs_are_drawn(fmt: str) -> None:
    assert render(_graph(), fmt)  # type: ignore[arg-type]


def test_each_id_is_its_own_text() -> None:
    texts = {t.get_text() for ax in picture(_graph()).axes for t in ax.texts}
    assert set(IDS) <= {line.split(" ", 1)[-1] for line in texts}
    svg = render(_graph(), "svg").decode()
    for node in ("$a$", "cost$5"):
        assert f"<!-- {node} -->" in svg
