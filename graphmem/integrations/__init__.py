"""Integrations with other agent frameworks (MCP, LangGraph), built on the public client."""
