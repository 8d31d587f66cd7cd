"""Fault injection: seed a store with one known fault, probe it, and see what gets through.

docs/spec/evaluation.md and chapter section 14 name the faults: a stale record, a similar-but-wrong
record, a wrong-project and a wrong-user record, a contradictory pair, duplicates, a
poisoned external record, an obsolete procedure, an undeleted derived summary and a
near-match prospective cue. Other memory systems' bug trackers add four more: an update
that leaves the old fact current, a deletion that leaves derived data, concurrent
duplicate writes and cross-user reads; and one of our own, a cue that fires twice.

Each fault builds its own small store twice, once in graphmem (through the write path, in
its own :class:`~graphmem.evaluation.namespace.Namespace`) and once in the naive baseline
(:class:`~graphmem.evaluation.baseline.NaiveVectorDump`), probes both the same way, and reports a
:class:`Verdict` per arm: whether the fault got through, with the evidence (ids and
statuses only, never content). "Through" means the bad record reached the context the
agent would act on (unflagged, for similar and contradictory records), the bad write was
kept, or the wrong intention fired.

The suite is self-contained (no scenario files), so ``graphmem eval faults`` runs from a
fresh clone against any graphmem database and cleans up after itself.
"""

from graphmem.evaluation.faults.harness import FaultResult, FaultSuiteReport, Verdict
from graphmem.evaluation.faults.suite import FAULTS, FaultSpec, run_faults

__all__ = ["FAULTS", "FaultResult", "FaultSpec", "FaultSuiteReport", "Verdict", "run_faults"]
