"""``graphmem mcp``: run graphmem as an MCP server over stdio or streamable HTTP.

::

    graphmem mcp [--tenant T ...] [--clearance C] [--scope KEY=VALUE ...] [--agent NAME]
                 [--max-authority A] [--allow-deletion] [--http] [--host 127.0.0.1]
                 [--port 8000]

Over ``--http`` every request carries ``Authorization: Bearer TOKEN``: ``GRAPHMEM_MCP_TOKEN``,
or a token made at start and printed on stderr (:mod:`.http_auth`).

Every option may also come from an environment variable (``GRAPHMEM_MCP_*``, listed in
each option's help; list-valued ones are space-separated). The database comes from
``NEO4J_URI``/``NEO4J_USER``/``NEO4J_PASSWORD``/``NEO4J_DATABASE`` or the ``graphmem db
start`` server. Nothing is printed on stdout: over stdio it carries the protocol.

Exit codes as for every command (:mod:`graphmem.terminal`): 2 for a usage error (the ``mcp``
extra is missing, a bad option). The server starts without waiting for the database: a tool
call while it is unreachable returns ``DatabaseUnavailableError`` within about
``--db-timeout`` seconds, and the next call connects again. ``mcp`` is imported only inside
the command.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from graphmem.errors import GraphmemError
from graphmem.terminal import err_console, fail, usage_error

from .config import (
    DEFAULT_AGENT,
    DEFAULT_DB_TIMEOUT_S,
    DEFAULT_PLAN_TTL_S,
    ServerConfig,
    parse_pairs,
)

__all__ = ["INSTALL_HINT", "mcp_command"]

INSTALL_HINT = "pip install 'graphmem[mcp]'"

def mcp_command(
    tenant: Annotated[list[str] | None, typer.Option(
        "--tenant", envvar="GRAPHMEM_MCP_TENANTS", show_default=False,
        help="A tenant this server may read and write (repeat for several; "
             "space-separated in the env var).")] = None,
    clearance: Annotated[str, typer.Option(
        envvar="GRAPHMEM_MCP_CLEARANCE",
        help="Highest sensitivity the server may see: normal, confidential or "
             "restricted.")] = "normal",
    scope: Annotated[list[str] | None, typer.Option(
        "--scope", envvar="GRAPHMEM_MCP_SCOPE", show_default=False,
        help="Default scope KEY=VALUE (repeat; space-separated in the env var): the "
             "server's confinement; tool calls may add keys, never change these, and reach "
             "no memory of another value of them.")] = None,
    agent: Annotated[str, typer.Option(
        envvar="GRAPHMEM_MCP_AGENT",
        help="Name recorded as the author of writes and deletions.")] = DEFAULT_AGENT,
    max_authority: Annotated[str, typer.Option(
        "--max-authority", envvar="GRAPHMEM_MCP_MAX_AUTHORITY",
        help="Highest authority the agent's writes may claim: untrusted, model_inferred, "
             "human_instruction, verified_outcome or authoritative_source.")
    ] = "human_instruction",
    allow_deletion: Annotated[bool, typer.Option(
        "--allow-deletion", envvar="GRAPHMEM_MCP_ALLOW_DELETION",
        help="Offer the deletion tools (plan_deletion, apply_deletion, "
             "verify_deletion).")] = False,
    db_timeout: Annotated[float, typer.Option(
        envvar="GRAPHMEM_MCP_DB_TIMEOUT",
        help="Seconds a tool call waits for an unreachable database before its error.")
    ] = DEFAULT_DB_TIMEOUT_S,
    plan_ttl: Annotated[float, typer.Option(
        envvar="GRAPHMEM_MCP_PLAN_TTL",
        help="Seconds a deletion plan stays appliable (by any server with the same "
             "options).")] = DEFAULT_PLAN_TTL_S,
    http: Annotated[bool, typer.Option(
        "--http", help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(
        envvar="GRAPHMEM_MCP_HOST", help="HTTP host (with --http).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        envvar="GRAPHMEM_MCP_PORT", help="HTTP port (with --http).")
    ] = 8000,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", envvar="GRAPHMEM_MCP_ALLOWED_HOSTS", show_default=False,
        help="A name clients reach the HTTP server by, besides 127.0.0.1, localhost and "
             "--host (repeat; space-separated in the env var); a request naming another "
             "Host or Origin is refused (DNS rebinding).")] = None,
) -> None:
    """Serve graphmem's memory tools to agents over the Model Context Protocol."""
    try:
        from graphmem.integrations.mcp.http_auth import TOKEN_ENV, http_token
        from graphmem.integrations.mcp.server import build_server, http_security
    except ModuleNotFoundError as exc:
        # the SDK, or a module the server imports with it (anyio, starlette, ...): any that
        # is not graphmem's own means the extra is not installed (whole)
        if exc.name and exc.name.partition(".")[0] != "graphmem":
            raise usage_error(f"`graphmem mcp` needs the MCP SDK ({exc.name} is missing): "
                              f"{INSTALL_HINT}") from None
        raise
    try:
        config = ServerConfig.build(
            tenants=tenant or (), clearance=clearance,
            scope=parse_pairs(scope or ()), allow_deletion=allow_deletion, agent=agent,
            max_authority=max_authority, db_timeout_s=db_timeout, plan_ttl_s=plan_ttl)
    except GraphmemError as exc:
        raise fail(exc) from None
    if not http:
        build_server(config).run()
        return
    try:
        token = http_token(os.environ.get(TOKEN_ENV))
    except GraphmemError as exc:
        raise fail(exc) from None
    server = build_server(config, bearer_token=token)
    chosen = os.environ.get(TOKEN_ENV)
    err_console.print(f"graphmem MCP server on http://{host}:{port}/mcp; clients send the "
                      "header Authorization: Bearer "
                      + (f"${TOKEN_ENV}" if chosen else token), highlight=False,
                      soft_wrap=True)
    server.run("streamable-http", host=host, port=port,
               transport_security=http_security(host, allowed_host or ()))
