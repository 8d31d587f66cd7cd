"""``graphmem mcp``: graphmem as a Model Context Protocol server.

Needs the optional extra ``graphmem[mcp]`` (the official ``mcp`` SDK, major version 2).
Importing this package does not import ``mcp``: only :mod:`.server` and :mod:`.tools` do,
so ``graphmem`` and its CLI load without the extra.

Modules: :mod:`.config` (who the caller is and the default scope, fixed at start-up),
:mod:`.state` (the server's state: a client connected on first use), :mod:`.schemas` (typed
tool inputs and outputs), :mod:`.tools`, :mod:`.reading` and :mod:`.privacy` (the tools),
:mod:`.server` (:func:`~.server.build_server`), :mod:`.commands` (the typer command).
"""
