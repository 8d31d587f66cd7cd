"""Benchmarks (run from the repo root: ``python -m bench.<name>``)."""
