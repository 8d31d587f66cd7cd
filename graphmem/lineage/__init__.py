"""Lineage for analysts: ``DERIVED_FROM`` graphs as networkx, exports (GraphML, GEXF, DOT,
Mermaid, pictures), Neo4j Browser snippets and the ``graphmem lineage`` command.

``graphmem.lineage.export``, ``graphmem.lineage.SNIPPETS`` and the rest of
:mod:`graphmem.lineage.graph` are re-exported here, as docs/guide/analysts.md documents them.
"""

from graphmem.lineage.graph import (
    FORMATS,
    SNIPPETS,
    LineageDirection,
    LineageGraph,
    build_lineage,
    export,
    render,
    snippet,
    to_dot,
    to_mermaid,
)

__all__ = [
    "FORMATS",
    "SNIPPETS",
    "LineageDirection",
    "LineageGraph",
    "build_lineage",
    "export",
    "render",
    "snippet",
    "to_dot",
    "to_mermaid",
]
