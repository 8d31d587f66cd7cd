"""``graphmem cypher list|show``: the Cypher catalogue (graphmem.db.catalogue), as the store
sends it.

``show NAME`` prints on stdout the statement exactly as the store sends it: the file
``cypher/NAME.cypher`` with its parts (``{{name}}``) pasted in, its comment lines dropped and
each parameter ``$p`` read as ``$args.p`` from the one map parameter ``args`` (one plan per
query, whatever the lengths of its lists and strings: see graphmem.db.catalogue). A note on that
convention and the parameters the query reads goes to stderr, so that stdout is the statement
alone. No database is needed.

Exit codes (:mod:`graphmem.terminal`): 2 for a name that is not a query (the message names the
closest ones).
"""

from __future__ import annotations

from typing import Annotated

import typer

from graphmem.db import catalogue
from graphmem.errors import UnknownQueryError
from graphmem.terminal import err_console, fail

__all__ = ["cypher_app"]

cypher_app = typer.Typer(
    help="The Cypher queries graphmem runs, as it sends them (no database needed).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@cypher_app.command("list")
def cypher_list() -> None:
    """Print the name of every query of the catalogue, one a line (the file
    cypher/NAME.cypher; parts are not queries)."""
    typer.echo("\n".join(sorted(catalogue.names())))


@cypher_app.command("show")
def cypher_show(
    name: Annotated[str, typer.Argument(
        help="A query's name: its path in cypher/ without .cypher, e.g. deletion/walk.")],
) -> None:
    """Print query NAME exactly as graphmem sends it: the file with its parts pasted in and
    each parameter $p read as $args.p from one map parameter, args (a note on stderr lists
    the parameters)."""
    try:
        text = catalogue.sent(name)
    except UnknownQueryError as exc:
        raise fail(exc) from None
    params = sorted(catalogue.parameters(name))
    err_console.print(
        f"// cypher/{name}.cypher, as sent: parts pasted in, each $p read as ${catalogue.ARGS}.p "
        f"from one map parameter `{catalogue.ARGS}` (one plan per query). "
        f"To run it, pass {catalogue.ARGS} = {{{', '.join(params)}}}.",
        markup=False, highlight=False, soft_wrap=True)
    typer.echo(text)
