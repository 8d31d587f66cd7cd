"""``graphmem lineage ID``: export a record's lineage for analysts (GraphML, GEXF, node-link
JSON, DOT, Mermaid, PNG/SVG, or an interactive HTML page). Exit codes
(:mod:`graphmem.terminal`): 2 bad usage or an unknown record, 3 no database."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from graphmem.client import Memory
from graphmem.errors import GraphmemError
from graphmem.lineage.graph import FORMATS, export
from graphmem.lineage.html import require_bokeh
from graphmem.terminal import checked_output, err_console, fail, usage_error, writing

__all__ = ["EXTENSIONS", "lineage_command"]

EXTENSIONS = {**{f: f for f in FORMATS}, "htm": "html", "mmd": "mermaid", "gv": "dot",
              "md": "mermaid", "txt": "mermaid"}
"""File extensions of ``-o FILE`` that name a format when ``--format`` is not given (Mermaid
is text, so ``.md`` and ``.txt`` take it); another extension is a usage error."""


def lineage_command(
    record_id: Annotated[str, typer.Argument(help="The record whose lineage to export.")],
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f",
        help="graphml, gexf, json (node-link), dot, mermaid, png, svg or html "
             "(interactive page; pip install 'graphmem[html]'); default: from -o FILE's "
             "extension, else mermaid.")] = None,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write to this file (required for png, svg and html).")] = None,
    direction: Annotated[str, typer.Option(help="up, down or both.")] = "both",
    depth: Annotated[int | None, typer.Option(help="At most this many edges away.")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Same as --format json: node-link JSON on stdout.")] = False,
) -> None:
    """Export a record's lineage: GraphML/GEXF for Gephi and yEd, node-link JSON, DOT,
    Mermaid for docs, a PNG/SVG picture, or a self-contained interactive HTML page."""
    if as_json:
        fmt = "json"
    if fmt is None:  # `-o lineage.png` means a picture, not Mermaid text in a .png file
        suffix = output.suffix.lower().lstrip(".") if output is not None else ""
        if suffix and suffix not in EXTENSIONS:
            raise usage_error(f"{output} has extension .{suffix}, which names no format: use "
                              f"one of {', '.join('.' + e for e in EXTENSIONS)}, or --format")
        fmt = EXTENSIONS.get(suffix, "mermaid")
    if fmt not in FORMATS:
        raise usage_error(f"--format must be one of {', '.join(FORMATS)}")
    if fmt in ("png", "svg", "html") and output is None:
        raise usage_error(f"--format {fmt} writes a file: give -o FILE")
    if fmt == "html":
        try:
            require_bokeh()  # before connecting: a missing extra fails fast
        except GraphmemError as exc:
            raise fail(exc) from None
    if direction not in ("up", "down", "both"):
        raise usage_error("--direction must be up, down or both")
    try:
        with Memory.connect() as memory:
            graph = memory.lineage(record_id, direction, depth)  # type: ignore[arg-type]
        data = export(graph, fmt)  # png/svg without matplotlib: a typed error, exit 2
    except GraphmemError as exc:
        raise fail(exc) from None
    if output is not None:
        with writing(output):
            if isinstance(data, bytes):
                output.write_bytes(data)
            else:
                output.write_text(data, encoding="utf-8")
        err_console.print(f"{graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges "
                          f"written to {output}", highlight=False)
    else:
        assert isinstance(data, str)
        sys.stdout.write(data)
