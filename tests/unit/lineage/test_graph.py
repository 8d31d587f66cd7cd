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




@pytest.mark.parametrize("depth", [2**63, 2**70])
def test_a_depth_past_a_64_bit_integer_is_a_validation_error(depth: int) -> None:
    """Was a raw OverflowError from the driver (``Memory.lineage``, ``AsyncMemory.lineage``,
    the MCP ``lineage`` tool): checked before the store is asked anything."""
    from typing import Any, cast

    from graphmem.lineage.graph import build_lineage

    with pytest.raises(ValidationError, match="depth"):
        build_lineage(cast(Any, None), "r", direction="both", depth=depth)
