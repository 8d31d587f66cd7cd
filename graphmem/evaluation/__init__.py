"""Evaluation (docs/spec/evaluation.md): funnel and paired effect, write- and read-path suites,
fault injection, the naive baseline, the reader, namespaces, reports and the ``graphmem eval``
commands."""
