"""Adapters that let agent frameworks reach graphmem (each behind its own optional extra)."""
