"""How lineage pictures show a record's kind and status, and an edge's type: one set of
colours, marks and classes for every export (DOT, Mermaid, PNG/SVG, HTML) and the inspector's
explorer (docs/ui.md).

A node's status is the ``status`` attribute :func:`graphmem.lineage.build_lineage` gives it:
``parts/record_status`` computed it, in the precedence :class:`graphmem.models.Status` declares
(the first that applies); nothing here decides a status again. :func:`status_rank` orders
statuses by that same declaration.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphmem.models import MemoryKind, Status

__all__ = ["EDGE_LEGEND", "EDGE_STYLES", "EDGE_TYPES", "ERASED_COLOUR", "KIND_COLOURS",
           "LABELLED_EDGES", "STATUS_COLOURS", "STATUS_MARKS", "status_class", "status_rank"]

EDGE_TYPES = ("derived_from", "supersedes", "evidenced_by")
"""Edge types, the first being the one an edge is drawn as when two records are linked twice."""

KIND_COLOURS: Mapping[str, str] = {
    MemoryKind.EPISODIC.value: "#8ecae6",
    MemoryKind.SEMANTIC.value: "#b5e48c",
    MemoryKind.PROCEDURAL.value: "#ffb703",
    MemoryKind.PROSPECTIVE.value: "#cdb4db",
}
"""Node fill by kind."""

ERASED_COLOUR = "#d9d9d9"
"""Node fill of an erased record, whatever its kind."""

STATUS_COLOURS: Mapping[str, str] = {
    Status.ACTIVE.value: "#2a9d8f",
    Status.SUPERSEDED.value: "#8d99ae",
    Status.EXPIRED.value: "#adb5bd",
    Status.NOT_YET_VALID.value: "#90be6d",
    Status.RETRACTED.value: "#e76f51",
    Status.PENDING_RECOMPUTE.value: "#f4a261",
    Status.QUARANTINED.value: "#9d4edd",
    Status.ERASED.value: "#495057",
}
"""Node border colour by status."""

STATUS_MARKS: Mapping[str, str] = {
    Status.ACTIVE.value: "",
    Status.SUPERSEDED.value: "~",
    Status.EXPIRED.value: "†",
    Status.NOT_YET_VALID.value: "…",
    Status.RETRACTED.value: "✗",
    Status.PENDING_RECOMPUTE.value: "↻",
    Status.QUARANTINED.value: "⚠",
    Status.ERASED.value: "∅",
}
"""A mark before a node's label by status: the status is readable without colour."""

EDGE_STYLES: Mapping[str, str] = {
    "derived_from": "solid", "supersedes": "dashed", "evidenced_by": "dotted",
}
"""Edge line style by type (the type is readable without a label)."""

EDGE_LEGEND = "edges point child → parent: solid derived_from, dashed supersedes, " \
              "dotted evidenced_by"
"""What the line styles mean, for a picture whose edges carry no label."""

LABELLED_EDGES = 24
"""Most edges a static picture labels with their types; past it, labels crowd the layers, so
none is drawn and the legend (:data:`EDGE_LEGEND`) says what each line style means."""


def status_class(status: str) -> str:
    """The class name of a status (``QUARANTINED`` -> ``quarantined``), for DOT and Mermaid."""
    return status.lower()


def status_rank(status: str) -> int:
    """Position of ``status`` in :class:`graphmem.models.Status`' precedence (unknown last)."""
    order = [s.value for s in Status]
    return order.index(status) if status in order else len(order)
