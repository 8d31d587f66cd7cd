"""Adapters that let agent frameworks reach graphmem (MCP, LangGraph, Google ADK, Pydantic AI,
Strands, Microsoft Agent Framework), each behind its own optional extra and built on the
public client. The four agent-framework adapters share :mod:`.identity` (the framework's app,
user, session and agent as graphmem's tenant, scope and confined principal) and
:mod:`.bridge` (the graphmem calls they make, run off the event loop)."""
