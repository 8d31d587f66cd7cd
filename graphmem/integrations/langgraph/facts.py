"""The LangGraph store's facts and filter compilation, defined in
:mod:`graphmem.db.langgraph_shape` (one definition for the store and the migration of items
written before it kept them)."""

from graphmem.db.langgraph_shape import compile_filter, value_facts

__all__ = ["compile_filter", "value_facts"]
