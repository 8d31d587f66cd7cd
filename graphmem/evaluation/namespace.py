"""Evaluation runs share a database with real memory, so each run writes into its own names.

A :class:`Namespace` rewrites every tenant and id of a fixture with the run's prefix
(``gmeval-<hex>``), so a run can never read or change records outside it, two runs never
collide, and :meth:`Namespace.cleanup` deletes exactly what the run wrote
(``cypher/eval_cleanup.cypher``). Record content is left as it is: ranking sees the same
text it would see without the namespace.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.db.ops.evaluation import EvaluationOps
from graphmem.db.store import Neo4jStore
from graphmem.models import Principal

__all__ = ["Namespace"]

PREFIX = "gmeval-"
_CLEANUP_BATCH = 10_000


@dataclass(frozen=True)
class Namespace:
    """One evaluation run's names (or a part of it, see :meth:`child`).

    Attributes:
        prefix: starts every tenant, record id and intention id the run writes.
    """

    prefix: str

    @classmethod
    def fresh(cls) -> Namespace:
        """A new run namespace, ``gmeval-<12 hex>``."""
        return cls(f"{PREFIX}{uuid.uuid4().hex[:12]}")

    def child(self, name: str) -> Namespace:
        """A sub-namespace (one per fault, say) that the run's cleanup also removes."""
        return Namespace(f"{self.prefix}.{name}")

    # -- rewriting ------------------------------------------------------------------

    def tenant(self, tenant: str) -> str:
        """The run's name for ``tenant``."""
        return f"{self.prefix}/{tenant}"

    def id(self, local_id: str) -> str:
        """The run's name for a record or intention id."""
        return f"{self.prefix}:{local_id}"

    def local(self, run_id: str) -> str:
        """The fixture's id back from the run's (ids from elsewhere pass unchanged)."""
        return run_id.removeprefix(f"{self.prefix}:")

    def scope(self, scope: Mapping[str, str]) -> dict[str, str]:
        """``scope`` with its tenant renamed."""
        return {**scope, "tenant": self.tenant(scope["tenant"])}

    def principal(self, principal: Principal) -> Principal:
        """``principal`` with every tenant renamed."""
        return Principal(tenants=frozenset(self.tenant(t) for t in principal.tenants),
                         clearance=principal.clearance)

    def record(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """A record (or proposal) as a dict, with its id, scope and references renamed."""
        out = dict(obj)
        out["id"] = self.id(obj["id"])
        out["scope"] = self.scope(obj["scope"])
        for ref in ("supersedes", "derived_from", "evidence_ids"):
            if obj.get(ref):
                out[ref] = [self.id(i) for i in obj[ref]]
        return out

    def intention(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """An intention as a dict, with its id and scope renamed."""
        return {**obj, "id": self.id(obj["id"]), "scope": self.scope(obj["scope"])}

    # -- cleanup --------------------------------------------------------------------

    def cleanup(self, store: Neo4jStore) -> int:
        """Delete everything this namespace (and its children) wrote; returns nodes deleted."""
        ops, total = EvaluationOps(store), 0
        while deleted := ops.cleanup_batch(self.prefix, _CLEANUP_BATCH):
            total += deleted
        return total
