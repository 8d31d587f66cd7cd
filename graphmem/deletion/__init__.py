"""Deletion walks (docs/spec/deletion.md): plan a deletion, review it, apply it, prove it; the
vocabulary (:mod:`~graphmem.deletion.models`) and the ``graphmem delete`` commands.

A privacy request names roots (record or intention ids) or a subject scope (every record and
intention whose scope holds all of the subject's key/values). Planning walks ``DERIVED_FROM``
from the roots in one Cypher query that Neo4j runs as a pruning breadth-first expansion
(``cypher/deletion/walk.cypher``), so its cost follows the number of descendants, not the
number of paths, and gives every node a :class:`Disposition`:

==========  ===================================================================
DELETE      a root, or a descendant all of whose parents are being deleted
RECOMPUTE   a descendant with a surviving parent, or derived from a RECOMPUTE one
REDACT      would be RECOMPUTE (or is untouched by lineage) and holds a term the
            request names: the term is replaced in place and the record stays live
QUARANTINE  a procedure touched by deleted content (derived from it or citing it)
==========  ===================================================================

The plan is a pydantic model with a digest, saved and loaded as JSON for review; it holds its
entries as columns (:class:`PlanColumns`), not one object per node. Applying it
erases DELETE records to content-free tombstones, redacts, marks the rest, and keeps the
request in the graph::

    (:DeletionRequest {id, state, digest, requested_by, reason, ...})
        -[:DISPOSED {disposition, at, changed, root}]->(:Record | :Intention)

When the request names terms, the last step redacts them from every other text of the
tenants' graph too (:mod:`~graphmem.deletion.redaction`: reasons, queries, action ids,
provenance and metadata keys, any property added later), and the verification scans every
string property of every node and relationship of those tenants for them.

A plan that fits one batch is applied in one transaction. A larger one is applied in batches,
each its own transaction; every change is guarded by the absence of its ``DISPOSED`` edge, so
an apply that crashed between batches resumes when the same plan is applied again, and an
applied plan applied again changes nothing.

The vocabulary is imported with the package; the walks (and the driver they need) on first
use of their names (PEP 562).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from graphmem.deletion.models import (
    Citation,
    DeletionPlan,
    DeletionReport,
    DeletionRequestInfo,
    Disposition,
    NodeType,
    PlanColumns,
    PlanEntry,
    PlanReach,
    ReportEntry,
    RetrievalHit,
    Verification,
)

if TYPE_CHECKING:
    from graphmem.deletion.apply import apply_deletion, recompute
    from graphmem.deletion.plan import (
        DEFAULT_BATCH_SIZE,
        REDACTION,
        ProgressCallback,
        plan_deletion,
        walk_descendants,
    )
    from graphmem.deletion.redaction import redact_record
    from graphmem.deletion.stored import load_plan, store_plan
    from graphmem.deletion.verify import report, verify, verify_deletion

_LAZY: dict[str, str] = {
    "DEFAULT_BATCH_SIZE": "graphmem.deletion.plan",
    "REDACTION": "graphmem.deletion.plan",
    "ProgressCallback": "graphmem.deletion.plan",
    "plan_deletion": "graphmem.deletion.plan",
    "walk_descendants": "graphmem.deletion.plan",
    "apply_deletion": "graphmem.deletion.apply",
    "recompute": "graphmem.deletion.apply",
    "load_plan": "graphmem.deletion.stored",
    "redact_record": "graphmem.deletion.redaction",
    "store_plan": "graphmem.deletion.stored",
    "report": "graphmem.deletion.verify",
    "verify": "graphmem.deletion.verify",
    "verify_deletion": "graphmem.deletion.verify",
}


def __getattr__(name: str) -> Any:
    """Import a walk's module on first use of its name (PEP 562).

    Raises:
        AttributeError: ``name`` is not a public name of graphmem.deletion.
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem.deletion' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """This package, whose public names win over its submodules of the same name: importing
    ``graphmem.deletion.verify`` (the module) must not replace ``verify`` (the function), as
    the import system would by setting the submodule as an attribute of the package."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _LAZY:
            return  # the submodule stays reachable through sys.modules and its imports
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "DEFAULT_BATCH_SIZE",
    "REDACTION",
    "Citation",
    "DeletionPlan",
    "DeletionReport",
    "DeletionRequestInfo",
    "Disposition",
    "NodeType",
    "PlanColumns",
    "PlanEntry",
    "PlanReach",
    "ProgressCallback",
    "ReportEntry",
    "RetrievalHit",
    "Verification",
    "apply_deletion",
    "load_plan",
    "plan_deletion",
    "recompute",
    "redact_record",
    "report",
    "store_plan",
    "verify",
    "verify_deletion",
    "walk_descendants",
]
