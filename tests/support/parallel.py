"""How the suite is spread over pytest-xdist workers (``-n auto`` in pyproject.toml's
``addopts``; tests/conftest.py applies what is decided here).

- Worker count: a run of folders (``pytest``, ``pytest tests/unit``) is spread over one
  worker per core, at most :data:`MAX_WORKERS`, except that a run reaching
  tests/integration stays in one process below :data:`SERVER_CPUS` cores (on 2 idle cores two
  workers, each with its own Neo4j, ran the suite in 14 min 6 s and one process in 21 min 13 s:
  one process keeps about one core busy, a test and its server mostly waiting on each other;
  bench/results/test-suite-20261203-d.md); a run of named files or tests only runs in
  the pytest process itself (starting workers, each with a Neo4j of its own, would cost more
  than it saves), and so does a run that may reach the one database ``NEO4J_URI`` names
  (anything beyond tests/unit), which the suite must not share between processes. ``-n N``
  or ``PYTEST_XDIST_AUTO_NUM_WORKERS`` choose otherwise; ``-n 0`` runs in one process.
- Work units (:func:`unit_of`): a worker runs a test module whole (module fixtures such as a
  seeded store are set up once, as in one process). The modules of the crash server
  (``crash_server``, a session fixture that starts a Neo4j of its own) share one unit, so it
  is started once. (Units come from a scheduler of the suite's own, not from ``xdist_group``
  marks, which pytest-xdist 3.8 cannot apply under pytest 9.)
- Order: the modules known to take minutes (:data:`SLOW_FIRST`) go out first, then the rest of
  tests/integration, then tests/unit, whose many short modules fill in while the last long
  ones finish.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

#: The most workers ``-n auto`` starts: each starts a Neo4j (1 GB heap) for the integration
#: tests, and the crash, lease and restart tests start more of their own.
MAX_WORKERS = 4
#: Fewest cores for which ``-n auto`` spreads integration tests over workers: on one core
#: the workers' Neo4j servers would only compete with the tests for it.
SERVER_CPUS = 2
#: tests/unit/: its tests reach no database, so NEO4J_URI does not keep them in one process.
UNIT = Path(__file__).resolve().parents[1] / "unit"
#: The work unit of the modules using the crash server (one server start for all of them).
CRASH_UNIT = "crash-server"
#: The test modules (relative to tests/) that use ``crash_server``
#: (tests/unit/test_suite_layout.py checks the list against the sources).
CRASH_MODULES = (
    "integration/reliability/test_crash.py",
    "integration/reliability/test_async_lost_server.py",
    "integration/concurrency/test_group_commit_breaker.py",
)
#: Test modules (relative to tests/) that took a minute or more each at idle, slowest first;
#: scheduled before all others so that none of them is the last thing a parallel run waits
#: for. Only the order depends on it: a module missing here runs after them, a name here
#: that no longer exists is ignored (tests/unit/test_suite_layout.py keeps the list honest).
SLOW_FIRST = (
    "integration/deletion/test_erasure_disk.py",
    "integration/reliability/test_crash.py",
    "integration/reliability/test_async_lost_server.py",
    "integration/concurrency/test_group_commit_breaker.py",
    "integration/db/test_write_plans.py",
    "integration/server/test_leases.py",
    "integration/mcp/test_infra.py",
    "integration/db/test_catalogue.py",
)


def auto_workers(args: Sequence[str], cpus: int | None) -> int | None:
    """How many workers ``-n auto`` starts for a run given ``args`` (the paths and node ids
    on the command line, after pytest filled in ``testpaths``).

    Returns 0 (no worker: run in this process) when every argument names a file or a test,
    or when the run is not all under tests/unit and either ``NEO4J_URI`` is set or ``cpus``
    is below :data:`SERVER_CPUS`; otherwise
    ``min(cpus, MAX_WORKERS)`` (``cpus`` None or below 1 counts as 1), or None when
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` is set, to let pytest-xdist read it.
    """
    paths = [Path(arg.split("::", 1)[0]).resolve() for arg in args]
    if os.environ.get("NEO4J_URI") and not (
            paths and all(p.is_relative_to(UNIT) for p in paths)):
        return 0  # the run may reach that one database
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    if paths and not any(p.is_dir() for p in paths):
        return 0
    if (cpus or 1) < SERVER_CPUS and not (paths and all(p.is_relative_to(UNIT) for p in paths)):
        return 0  # the workers' servers would compete with the tests for too few cores
    return max(1, min(cpus or 1, MAX_WORKERS))


def unit_of(nodeid: str) -> str:
    """The work unit of the test ``nodeid`` (``tests/<module>::<name>``): the crash unit for
    the modules of :data:`CRASH_MODULES`, else its module's path."""
    path = nodeid.split("::", 1)[0]
    module = path.removeprefix("tests/")
    return CRASH_UNIT if module in CRASH_MODULES else path


def rank(module: str) -> int:
    """Where a module's tests go in the queue: its place in :data:`SLOW_FIRST`, then the
    other integration modules, then the unit ones."""
    if module in SLOW_FIRST:
        return SLOW_FIRST.index(module)
    return len(SLOW_FIRST) + (0 if module.startswith("integration/") else 1)
