"""The hypothesis profiles of the fuzz tests and their check: a call succeeds or raises a
GraphmemError, and one that raises leaves the database unchanged."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from graphmem.client import Memory, store_of
from graphmem.errors import GraphmemError

# CI runs a fixed sample, so a run that lands does not depend on luck; the long profile
# explores (GRAPHMEM_FUZZ_PROFILE=fuzz-long: 1000 examples a test, about 48 minutes here)
settings.register_profile(
    "fuzz-ci", max_examples=30, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


settings.register_profile(
    "fuzz-long", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


FUZZ = settings.get_profile(os.environ.get("GRAPHMEM_FUZZ_PROFILE", "fuzz-ci"))


def snapshot(memory: Memory) -> tuple[int, int, str]:
    """(nodes, relationships, digest of every record's and intention's properties)."""
    driver, db = store_of(memory).driver, store_of(memory).database
    nodes = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=db)[0][0]["n"]
    rels = driver.execute_query("MATCH ()-[r]->() RETURN count(r) AS n", database_=db
                                )[0][0]["n"]
    rows = driver.execute_query(
        "MATCH (n) WHERE n:Record OR n:Intention RETURN labels(n) AS l, properties(n) AS p "
        "ORDER BY n.id", database_=db)[0]
    digest = hashlib.sha256()
    for row in rows:
        props = {k: str(v) for k, v in row["p"].items()}
        digest.update(json.dumps([row["l"], props], sort_keys=True, ensure_ascii=True).encode())
    return int(nodes), int(rels), digest.hexdigest()


def check(memory: Memory, call: Callable[[], Any]) -> Any:
    """Run ``call``: it succeeds, or raises a GraphmemError and changes nothing."""
    before = snapshot(memory)
    try:
        return call()
    except GraphmemError:
        assert snapshot(memory) == before, "a call that raised changed the database"
        return None
    except Exception as exc:
        pytest.fail(f"untyped error escaped the client: {type(exc).__module__}."
                    f"{type(exc).__name__}: {str(exc)[:300]!r}")
