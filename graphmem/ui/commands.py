"""``graphmem ui``: the local inspector for analysts and privacy teams (docs/ui.md).

::

    graphmem ui --tenant T [--clearance C] [--scope KEY=VALUE ...] [--allow-writes]
                [--agent NAME] [--report eval-report/report.json] [--port 8765]

Serves http://127.0.0.1:PORT only. The database comes from ``NEO4J_URI``/``NEO4J_USER``/
``NEO4J_PASSWORD``/``NEO4J_DATABASE`` or the ``graphmem db start`` server, as for every
command. Starlette, uvicorn and Jinja2 (the ``ui`` extra) are imported only inside the
command; without them it exits 2 with the install hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphmem.errors import GraphmemError
from graphmem.fields import parse_pairs
from graphmem.terminal import err_console, fail, usage_error
from graphmem.ui.config import DEFAULT_AGENT, UiConfig

__all__ = ["INSTALL_HINT", "ui_command"]

INSTALL_HINT = "pip install 'graphmem[ui]'"
EXTRA_MODULES = ("starlette", "uvicorn", "jinja2")


def ui_command(
    tenant: Annotated[list[str], typer.Option(
        "--tenant", envvar="GRAPHMEM_UI_TENANTS", show_default=False,
        help="A tenant the inspector may show (repeat for several).")],
    clearance: Annotated[str, typer.Option(
        envvar="GRAPHMEM_UI_CLEARANCE",
        help="Highest sensitivity shown: normal, confidential or restricted.")] = "normal",
    scope: Annotated[list[str] | None, typer.Option(
        "--scope", envvar="GRAPHMEM_UI_SCOPE", show_default=False,
        help="Confinement KEY=VALUE (repeat), e.g. user=u-17: records of another value "
             "are out of reach.")] = None,
    allow_writes: Annotated[bool, typer.Option(
        "--allow-writes", help="Offer the write actions (apply a deletion, retract a "
                               "record, issue a certificate), each with a confirmation.")
    ] = False,
    agent: Annotated[str, typer.Option(
        envvar="GRAPHMEM_UI_AGENT",
        help="Name recorded as the author of the inspector's writes.")] = DEFAULT_AGENT,
    report: Annotated[Path | None, typer.Option(
        "--report", help="A `graphmem eval all` report.json to chart on the reports "
                         "page.")] = None,
    port: Annotated[int, typer.Option(
        envvar="GRAPHMEM_UI_PORT", help="Port on 127.0.0.1.")] = 8765,
) -> None:
    """Browse records, lineage, retrievals and deletions in a local web page."""
    from graphmem.client import Memory

    try:
        from graphmem.ui.access import KEY_PARAMETER
        from graphmem.ui.app import HOST, create_app, serve
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in EXTRA_MODULES:
            raise usage_error(f"`graphmem ui` needs its extra: {INSTALL_HINT}") from None
        raise
    try:
        config = UiConfig.build(tenants=tenant, clearance=clearance,
                                scope=parse_pairs(scope or ()), allow_writes=allow_writes,
                                agent=agent, report=report, access_key=True)
        with Memory.connect() as memory:
            app = create_app(memory, config)
            mode = "read-write" if allow_writes else "read-only"
            # the address holds the access key: open it once (graphmem.ui.access)
            err_console.print(f"graphmem inspector ({mode}) on http://{HOST}:{port}/"
                              f"?{KEY_PARAMETER}={config.access_key} (Ctrl-C stops it)",
                              highlight=False, soft_wrap=True)
            serve(app, port)
    except GraphmemError as exc:
        raise fail(exc) from None
