"""A deletion's plan, apply and report build one small object per node (10^5 and more), none
cyclic: each runs with the cyclic collector paused (graphmem.db.codec.paused_gc), which left
running costs about as much as the work itself (docs/performance.md), and it runs again after
each, whether it succeeded or failed."""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.deletion import apply_deletion, plan_deletion, verify_deletion
from graphmem.errors import DeletionError
from graphmem.models import MemoryKind, MemoryRecord

T0 = datetime(2026, 9, 1, tzinfo=UTC)
# the modules by name: graphmem.deletion exports functions named like some of them
plan_module = importlib.import_module("graphmem.deletion.plan")
apply_module = importlib.import_module("graphmem.deletion.apply")
verify_module = importlib.import_module("graphmem.deletion.verify")


def _spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[bool]:
    """Wrap ``module.name`` so that each call notes whether the collector was on."""
    seen: list[bool] = []
    inner: Callable[..., Any] = getattr(module, name)

    def spied(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return inner(*args, **kwargs)

    monkeypatch.setattr(module, name, spied)
    return seen


def _lineage(memory: Memory) -> None:
    memory.put_many([
        MemoryRecord(id="root", kind=MemoryKind.EPISODIC, content="a call", created_at=T0,
                     scope={"tenant": "a"}),
        *(MemoryRecord(id=f"child-{i}", kind=MemoryKind.SEMANTIC, content=f"fact {i}",
                       created_at=T0, scope={"tenant": "a"}, derived_from=("root",))
          for i in range(3)),
    ])


def test_plan_apply_and_report_run_with_the_collector_paused(
        memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    _lineage(memory)
    store = store_of(memory)
    planned = _spy(monkeypatch, plan_module, "lineage_columns")
    applied = _spy(monkeypatch, apply_module, "_apply_batch")
    reported = _spy(monkeypatch, verify_module, "_report_entries")
    verified = _spy(monkeypatch, verify_module, "scan_tenant_text")
    assert gc.isenabled()
    plan = plan_deletion(store, roots=["root"], requested_by="dpo", reason="request")
    assert planned == [False] and gc.isenabled()
    done = apply_deletion(store, plan, batch_size=2, settle_disk=False)
    assert done.verification.passed and len(done.entries) == 4
    assert applied == [False, False] and reported == [False] and verified == [False]
    assert gc.isenabled()
    verify_deletion(store, plan.request_id)
    assert reported == [False, False] and verified == [False, False] and gc.isenabled()


def test_the_collector_runs_again_after_a_refused_plan_and_apply(memory: Memory) -> None:
    _lineage(memory)
    store = store_of(memory)
    with pytest.raises(DeletionError):
        plan_deletion(store, roots=["nothing-here"], requested_by="dpo", reason="request")
    assert gc.isenabled()
    plan = plan_deletion(store, roots=["root"], requested_by="dpo", reason="request")
    edited = plan.model_copy(update={"reason": "another"})  # its digest no longer matches
    with pytest.raises(DeletionError):
        apply_deletion(store, edited, settle_disk=False)
    assert gc.isenabled()
    with pytest.raises(DeletionError):
        verify_deletion(store, "del-none")
    assert gc.isenabled()
