"""The store's operations: one module per concern, each a small set of typed operations
that run the named queries of that concern (the only place outside the rest of
:mod:`graphmem.db` where named queries run). The domain packages depend on these
operations through the protocols declared beside them, never on query names or on the
store's query runner (docs/architecture.md).
"""
