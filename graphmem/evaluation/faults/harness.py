"""The fault harness: verdicts, results, the per-fault environment (graphmem and the naive
baseline side by side) and the probes' shared states and helpers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphmem.client import Memory
from graphmem.db.codec import coerce_record
from graphmem.evaluation.baseline import NaiveVectorDump
from graphmem.evaluation.namespace import Namespace
from graphmem.models import MemoryRecord, Principal
from graphmem.read.steps import DecisionState, RetrievedMemory, render_memories
from graphmem.write.policy import WriteDisposition

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
REPO = {"tenant": "acme", "repo": "checkout-api"}
DESK = {"tenant": "acme", "project": "support-desk"}
U17 = {"tenant": "acme", "user": "u-17"}
U18 = {"tenant": "acme", "user": "u-18"}
SUBJECT_TERMS = ("Jane Roe", "+00 555 0100")


@dataclass(frozen=True)
class Verdict:
    """One arm's outcome on one fault.

    Attributes:
        let_through: the fault reached the agent (or the store) unstopped.
        evidence: why, in ids and statuses (no record content).
    """

    let_through: bool
    evidence: str


@dataclass(frozen=True)
class FaultResult:
    """Both arms' verdicts on one fault."""

    fault: str
    title: str
    origin: str
    graphmem: Verdict
    naive: Verdict

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"fault": self.fault, "title": self.title, "origin": self.origin,
                "graphmem": {"let_through": self.graphmem.let_through,
                             "evidence": self.graphmem.evidence},
                "naive": {"let_through": self.naive.let_through,
                          "evidence": self.naive.evidence}}


@dataclass(frozen=True)
class FaultSuiteReport:
    """Every fault's result, with how many got through each arm."""

    results: tuple[FaultResult, ...]
    k: int
    deletion_api: bool

    @property
    def graphmem_through(self) -> int:
        """Faults graphmem let through."""
        return sum(1 for r in self.results if r.graphmem.let_through)

    @property
    def naive_through(self) -> int:
        """Faults the naive baseline let through."""
        return sum(1 for r in self.results if r.naive.let_through)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"k": self.k, "deletion_api": self.deletion_api,
                "faults": len(self.results), "graphmem_through": self.graphmem_through,
                "naive_through": self.naive_through,
                "results": [r.as_dict() for r in self.results]}


# ------------------------------------------------------------------------- environment


@dataclass(frozen=True)
class Shown:
    """What one retrieval put in front of the agent."""

    ids: tuple[str, ...]
    records: tuple[MemoryRecord, ...]
    conflicts: tuple[frozenset[str], ...] = ()
    text: str = ""

    def unflagged(self, rid: str) -> bool:
        """``rid`` was shown and no reported conflict names it."""
        return rid in self.ids and not any(rid in c for c in self.conflicts)


@dataclass
class FaultEnv:
    """One fault's two stores: graphmem in its own namespace, and a fresh naive baseline.

    Fixtures use local ids and tenants; graphmem sees them renamed by ``ns`` and every
    result is renamed back, so both arms are compared on the same ids.
    """

    memory: Memory
    ns: Namespace
    naive: NaiveVectorDump
    k: int
    now: datetime = NOW
    decisions: dict[str, WriteDisposition] = field(default_factory=dict)

    def seed(self, proposals: Iterable[Mapping[str, Any]]) -> None:
        """Write proposals through graphmem's write path (at their ``created_at``) and store
        them all in the naive baseline."""
        for obj in proposals:
            record = coerce_record(dict(obj))
            decision = self.memory.write(self.ns.record(obj), by="fault-injection",
                                         now=record.created_at)
            self.decisions[record.id] = decision.disposition
            self.naive.write(record)

    def ask_graphmem(self, state: Mapping[str, Any], principal: Principal = ACME) -> Shown:
        """graphmem's read path for ``state`` (local scope and principal)."""
        scoped = {**state, "memory_scope": self.ns.scope(state["memory_scope"])}
        result = self.memory.retrieve(scoped, principal=self.ns.principal(principal),
                                      now=self.now, k=self.k)
        return Shown(
            ids=tuple(self.ns.local(i) for i in result.ids),
            records=tuple(m.record for m in result.memories),
            conflicts=tuple(frozenset(self.ns.local(i) for i in c.record_ids)
                            for c in result.conflicts),
            text=result.rendered,
        )

    def ask_naive(self, state: Mapping[str, Any]) -> Shown:
        """The baseline's top-k for ``state``: similarity alone, nothing flagged."""
        records = self.naive.retrieve(DecisionState.model_validate(dict(state)))
        return Shown(ids=tuple(r.id for r in records), records=tuple(records),
                     text=render_memories([RetrievedMemory(r, 0.0, "") for r in records]))

    def status(self, rid: str, scope: Mapping[str, str], principal: Principal = ACME) -> str:
        """graphmem's explanation of a fixture record for a caller in ``scope``."""
        return self.memory.explain(self.ns.id(rid), principal=self.ns.principal(principal),
                                   scope=self.ns.scope(scope), now=self.now).status.value


def rec(rid: str, content: str, scope: Mapping[str, str], created: str, *,
         kind: str = "semantic", authority: str = "human_instruction", **extra: Any
         ) -> dict[str, Any]:
    return {"id": rid, "kind": kind, "content": content, "scope": dict(scope),
            "created_at": f"2026-{created}T09:00:00+00:00", "authority": authority,
            "provenance": {"source": extra.pop("source", "fixture")}, **extra}


def shown_bad(shown: Shown, bad: Iterable[str]) -> list[str]:
    return sorted(set(shown.ids) & set(bad))


def bad_verdict(bad: list[str], clean: str) -> Verdict:
    return Verdict(bool(bad), f"shown: {', '.join(bad)}" if bad else clean)


def race(workers: int, call: Callable[[int], Any]) -> list[Any]:
    barrier = threading.Barrier(workers)
    results: list[Any] = [None] * workers
    errors: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[worker] = call(worker)
        except BaseException as exc:  # re-raised below, in the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


# ------------------------------------------------------------------- retrieval faults

DEPLOY_STATE = {"memory_scope": REPO, "goal": "Deploy checkout-api",
                "subtask": "Decide whether deploys to checkout-api are paused",
                "last_observation": "The release is ready to deploy",
                "entities": ["checkout-api", "deploy"], "needs_prior_context": True}
REFUND_STATE = {"memory_scope": DESK, "goal": "Handle refund request",
                "subtask": "Decide whether a EUR 900 refund needs manual approval",
                "last_observation": "Customer asks for a refund of EUR 900 for order A-2001",
                "entities": ["refund"], "needs_prior_context": True}
TESTS_STATE = {"memory_scope": REPO, "goal": "Fix checkout",
               "subtask": "Run the unit tests after the patch",
               "last_observation": "Tests failed: KeyError 'currency'",
               "entities": ["unit tests"], "new_error": True}
CONTACT_STATE = {"memory_scope": U17, "goal": "Contact the customer",
                 "subtask": "Choose a contact channel for the customer",
                 "last_observation": "Customer u-17 opened a new ticket",
                 "entities": ["customer", "contact"], "returning_entity": True}
REFUND_POLICY = rec("policy", "Refunds over EUR 1000 require manual approval by a team lead.",
                     {"tenant": "acme"}, "08-01", authority="authoritative_source",
                     asserts="refund_threshold_eur", asserted_value="1000")
