"""Adapters that put graphmem behind other frameworks' memory interfaces (optional extras)."""
