"""The fault suite: the catalogue of faults and the run over them (see
:mod:`graphmem.evaluation.faults`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.client import Memory, store_of
from graphmem.errors import GraphmemError
from graphmem.evaluation.baseline import NaiveVectorDump
from graphmem.evaluation.faults.cases import (
    concurrent_duplicate_writes,
    contradictory_pair,
    cross_user_reads,
    deletion_leaves_derived_data,
    duplicates,
    near_match_cue,
    obsolete_procedure,
    poisoned_external,
    redaction_leaves_free_text,
    repeated_cue,
    similar_but_wrong,
    stale_record,
    undeleted_derived_summary,
    update_leaves_old_fact,
    wrong_project,
    wrong_user,
)
from graphmem.evaluation.faults.harness import FaultEnv, FaultResult, FaultSuiteReport, Verdict
from graphmem.evaluation.namespace import Namespace

__all__ = ["FAULTS", "FaultSpec", "run_faults"]


# ---------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class FaultSpec:
    """One injectable fault: its name, a title, where it comes from, and its probe."""

    name: str
    title: str
    origin: str
    probe: Callable[[FaultEnv], tuple[Verdict, Verdict]]


SPEC9 = "docs/spec/evaluation.md#fault-injection"
TRACKERS = "trackers"  # seen in other memory systems' bug trackers

FAULTS: tuple[FaultSpec, ...] = (
    FaultSpec("stale_record", "stale record (expired)", SPEC9, stale_record),
    FaultSpec("similar_but_wrong", "similar-but-wrong record", SPEC9, similar_but_wrong),
    FaultSpec("wrong_project", "wrong-project record", SPEC9, wrong_project),
    FaultSpec("wrong_user", "wrong-user record", SPEC9, wrong_user),
    FaultSpec("contradictory_pair", "contradictory pair", SPEC9, contradictory_pair),
    FaultSpec("duplicates", "duplicates", SPEC9, duplicates),
    FaultSpec("poisoned_external", "poisoned external record", SPEC9, poisoned_external),
    FaultSpec("obsolete_procedure", "obsolete procedure", SPEC9, obsolete_procedure),
    FaultSpec("undeleted_derived_summary", "undeleted derived summary", SPEC9,
              undeleted_derived_summary),
    FaultSpec("near_match_cue", "near-match prospective cue", SPEC9, near_match_cue),
    FaultSpec("update_leaves_old_fact", "update leaves the old fact current", TRACKERS,
              update_leaves_old_fact),
    FaultSpec("deletion_leaves_derived", "deletion leaves derived data", TRACKERS,
              deletion_leaves_derived_data),
    FaultSpec("redaction_leaves_free_text", "redaction leaves free text", TRACKERS,
              redaction_leaves_free_text),
    FaultSpec("concurrent_duplicate_writes", "concurrent duplicate writes", TRACKERS,
              concurrent_duplicate_writes),
    FaultSpec("cross_user_reads", "cross-user (cross-tenant) reads", TRACKERS,
              cross_user_reads),
    FaultSpec("repeated_cue", "one cue fires twice", "docs/spec/intentions.md#exactly-once",
              repeated_cue),
)


def run_faults(
    memory: Memory,
    *,
    k: int = 5,
    only: Sequence[str] | None = None,
    keep: bool = False,
    namespace: Namespace | None = None,
) -> FaultSuiteReport:
    """Run the fault-injection suite against ``memory``'s database and the naive baseline.

    Each fault writes into its own child of one run namespace; everything is deleted at the
    end unless ``keep`` (then the namespace prefix is in the graph for inspection).

    Args:
        memory: a connected client (its database may hold other memory: it is not touched).
        k: how many memories each arm may show per retrieval.
        only: fault names to run (default: all, in :data:`FAULTS` order).
        keep: leave the seeded stores in the database.
        namespace: the run's namespace (default: a fresh one).

    Raises:
        EvaluationError: an unknown fault name.
        GraphmemError: a graphmem call failed unexpectedly (the run is still cleaned up).
    """
    from graphmem.errors import EvaluationError

    chosen = list(FAULTS)
    if only:
        unknown = sorted(set(only) - {f.name for f in FAULTS})
        if unknown:
            raise EvaluationError(f"unknown faults {unknown}; choose from "
                                  f"{[f.name for f in FAULTS]}")
        chosen = [f for f in FAULTS if f.name in set(only)]
    ns = namespace or Namespace.fresh()
    results = []
    try:
        for spec in chosen:
            env = FaultEnv(memory=memory, ns=ns.child(spec.name), naive=NaiveVectorDump(k=k), k=k)
            try:
                graphmem, naive = spec.probe(env)
            except GraphmemError as exc:
                raise type(exc)(f"fault {spec.name}: {exc}", record_ids=exc.record_ids
                                ) from exc
            results.append(FaultResult(spec.name, spec.title, spec.origin, graphmem, naive))
    finally:
        if not keep:
            ns.cleanup(store_of(memory))
    return FaultSuiteReport(tuple(results), k=k,
                            deletion_api=getattr(memory, "plan_deletion", None) is not None)
