"""Typed operations over the named queries of one concern each: the only place outside the
store classes where ``cypher/`` queries are run (named queries run only inside
:mod:`graphmem.db`)."""
