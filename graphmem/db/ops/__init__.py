"""The store's operations, one module per concern: the only code that runs named queries
(``cypher/``) besides the store's own concerns in :mod:`graphmem.db`. Each operation takes
and returns typed values; the domain packages call these, never a query by name."""
