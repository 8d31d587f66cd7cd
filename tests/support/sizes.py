"""Sizes of the heavy tests (crash, soak, fuzz, races, the property tests' example counts,
the plan-cost and bulk-import stores): smaller by default, so the suite runs
in ``.ci/run``'s budget, and the full sizes with ``pytest --heavy`` or ``GRAPHMEM_HEAVY_TESTS=1``
(docs/operations.md#running-the-tests). A test's own environment variable
(``GRAPHMEM_CRASH_IMPORT_RECORDS``, ...) wins over both.

A default is cut only where the smaller size still exercises the same property: the same
faults at the same points, the same races with every assertion kept; the full size only
makes the run longer or the search wider.
"""

from __future__ import annotations

import os
from typing import TypeVar

#: Set (to ``1``) by ``pytest --heavy`` before any test module is imported (tests/conftest.py).
HEAVY_ENV = "GRAPHMEM_HEAVY_TESTS"

N = TypeVar("N", int, float)


def heavy() -> bool:
    """True when the full sizes were asked for (``--heavy`` or ``GRAPHMEM_HEAVY_TESTS=1``)."""
    return os.environ.get(HEAVY_ENV, "").strip().lower() in {"1", "true", "yes"}


def size(default: N, full: N, env: str | None = None) -> N:
    """``full`` under :func:`heavy`, else ``default``; the environment variable ``env``, when
    set, wins (parsed as the type of ``default``)."""
    if env is not None and (raw := os.environ.get(env, "").strip()):
        return type(default)(raw)
    return full if heavy() else default
