"""Lineage pictures without matplotlib are a typed error."""

from __future__ import annotations

import sys

import networkx as nx
import pytest

from graphmem.errors import ValidationError
from graphmem.lineage.graph import export

# -- CLI ---------------------------------------------------------------------------------------


def test_pictures_without_matplotlib_are_a_typed_error(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """Without the charts extra, png/svg raise ValidationError with the install hint, never
    a raw ImportError; the other formats still work."""
    graph = nx.DiGraph(root="r")
    graph.add_node("r", kind="semantic")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    for fmt in ("png", "svg"):
        with pytest.raises(ValidationError, match=r"graphmem\[charts\]"):
            export(graph, fmt)
    assert str(export(graph, "dot")).startswith("digraph lineage {")


