"""Adapters that let agent frameworks reach graphmem (MCP, LangGraph), each behind its own
optional extra and built on the public client."""
