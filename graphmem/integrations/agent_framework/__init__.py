"""Microsoft Agent Framework memory on graphmem: ``GraphmemContextProvider``, a
``ContextProvider``.

Needs the optional extra ``graphmem[agent-framework]`` (``agent-framework-core``); importing
:mod:`graphmem` alone never imports Agent Framework.
"""

from .provider import GraphmemContextProvider

__all__ = ["GraphmemContextProvider"]
