"""Evaluation arithmetic pinned on hand-worked examples (docs/spec/evaluation.md). No database."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from graphmem.errors import EvaluationError
from graphmem.evaluation.baseline import NaiveVectorDump
from graphmem.evaluation.funnel import (
    Helped,
    MemoryStage,
    MemoryTrial,
    funnel,
    losses,
    memory_effect,
)
from graphmem.evaluation.metrics import (
    ReadOutcome,
    SupersessionOutcome,
    WriteOutcome,
    read_metrics,
    write_metrics,
)
from graphmem.evaluation.reader import read_answer
from graphmem.models import DeferredIntention, MemoryRecord
from graphmem.write.policy import WriteDisposition

S = MemoryStage


def trial(task: str, reached: int, helped: Helped = Helped.UNMEASURED) -> MemoryTrial:
    """A trial that reached the first ``reached`` of written..used."""
    written, eligible, retrieved, exposed, used = (i < reached for i in range(5))
    return MemoryTrial(task, f"r-{task}", written, eligible, retrieved, exposed, used,
                       helped=helped)


# Eight trials, one lost at each stage, one unmeasured, one that helped:
#   t0 never written; t1 written only; t2 eligible; t3 retrieved; t4 exposed;
#   t5 used, help measured: no; t6 used, help measured: yes; t7 used, unmeasured.
TRIALS = [trial("t0", 0), trial("t1", 1), trial("t2", 2), trial("t3", 3), trial("t4", 4),
          trial("t5", 5, Helped.NO), trial("t6", 5, Helped.YES), trial("t7", 5)]


def test_funnel_counts_rates_and_step_rates() -> None:
    report = funnel(TRIALS)
    assert report.trials == 8
    assert report.counts == {S.WRITTEN: 7, S.ELIGIBLE: 6, S.RETRIEVED: 5, S.EXPOSED: 4,
                             S.USED: 3, S.HELPED: 1}
    assert report.rates[S.WRITTEN] == 7 / 8
    assert report.rates[S.USED] == 3 / 8
    # helped: yes over measured (t5, t6), not over all trials, and not counting t7 as "no"
    assert report.measured == 2
    assert report.rates[S.HELPED] == 1 / 2
    assert report.step_rates == {S.WRITTEN: 7 / 8, S.ELIGIBLE: 6 / 7, S.RETRIEVED: 5 / 6,
                                 S.EXPOSED: 4 / 5, S.USED: 3 / 4, S.HELPED: 1 / 2}


def test_losses_by_first_missed_stage() -> None:
    assert [t.lost_at for t in TRIALS] == [S.WRITTEN, S.ELIGIBLE, S.RETRIEVED, S.EXPOSED,
                                           S.USED, S.HELPED, None, None]
    assert losses(TRIALS) == {s: 1 for s in MemoryStage}
    assert funnel(TRIALS).losses == {s: 1 for s in MemoryStage}


def test_help_is_nan_when_never_measured_and_empty_funnel() -> None:
    report = funnel([trial("a", 5), trial("b", 2)])
    assert math.isnan(report.rates[S.HELPED])
    assert report.as_dict()["rates"]["helped"] is None
    assert report.losses[S.RETRIEVED] == 1 and report.losses[S.HELPED] == 0
    empty = funnel([])
    assert empty.trials == 0 and math.isnan(empty.rates[S.WRITTEN])


@pytest.mark.parametrize("flags", [
    (True, False, True, False, False),   # retrieved without being eligible
    (True, True, True, False, True),     # used without exposure
    (False, True, False, False, False),  # eligible but never written
])
def test_non_monotonic_trials_are_rejected(flags: tuple[bool, bool, bool, bool, bool]) -> None:
    with pytest.raises(EvaluationError, match="monotonic"):
        MemoryTrial("t", "r", *flags)


def test_help_cannot_be_measured_for_unused_memory() -> None:
    with pytest.raises(EvaluationError, match="not used"):
        MemoryTrial("t", "r", True, True, True, True, False, helped=Helped.NO)


def test_paired_effect_reports_all_four_and_net() -> None:
    with_memory = {"a": True, "b": True, "c": False, "d": False, "e": True}
    without = {"a": False, "b": True, "c": True, "d": False, "f": True}
    effect = memory_effect(with_memory, without)
    # shared a-d; a rescued, c regretted, b and d unchanged; e and f are unpaired
    assert effect.as_dict() == {"shared": 4, "rescue": 1, "regret": 1, "unchanged": 2,
                                "net": 0}


def test_the_chapter_example_net_hides_instability() -> None:
    treatment = {f"t{i}": i < 60 for i in range(200)} | {f"u{i}": False for i in range(55)}
    control = {f"t{i}": False for i in range(200)} | {f"u{i}": True for i in range(55)}
    effect = memory_effect(treatment, control)
    assert (effect.rescue, effect.regret, effect.net) == (60, 55, 5)
    assert effect.unchanged == 140 and effect.shared == 255


def test_write_metrics_hand_worked() -> None:
    P, Q, D = WriteDisposition.PERSIST, WriteDisposition.QUARANTINE, WriteDisposition.DISCARD
    outcomes = [
        WriteOutcome("a", P, P, scope_expected=True, scope_correct=True),
        WriteOutcome("b", P, P, scope_expected=True, scope_correct=False),
        WriteOutcome("c", Q, P),                      # a quarantine missed
        WriteOutcome("d", Q, Q),
        WriteOutcome("e", D, D, duplicate=True),
        WriteOutcome("f", D, P, duplicate=True, duplicate_created=True),
    ]
    supersessions = [SupersessionOutcome("a", "b", True, True),
                     SupersessionOutcome("c", "d", False, True)]
    m = write_metrics(outcomes, supersessions)
    assert m.precision == {P: 2 / 4, Q: 1.0, D: 1.0}
    assert m.recall == {P: 1.0, Q: 1 / 2, D: 1 / 2}
    assert m.support == {P: 2, Q: 2, D: 2}
    assert m.accuracy == 4 / 6
    assert m.duplicate_creation_rate == 1 / 2
    assert m.scope_accuracy == 1 / 2
    assert m.supersession_accuracy == 1 / 2


def test_read_metrics_hand_worked() -> None:
    rows = [
        # relevant a, b; stale s; the arm considered a, s, x and returned s, a, x (k=2: s, a)
        ReadOutcome("q1", frozenset("ab"), frozenset("s"), frozenset("asx"), ("s", "a", "x")),
        # relevant c; returned c and v, v breaks scope
        ReadOutcome("q2", frozenset("c"), frozenset(), frozenset("cv"), ("c", "v"),
                    violations=frozenset("v")),
        # nothing returned (e.g. no trigger)
        ReadOutcome("q3", frozenset(), frozenset("t"), frozenset(), ()),
    ]
    m = read_metrics(rows, k=2)
    assert m.returned == 4
    assert m.eligible_recall == 2 / 3          # a and c among candidates, b not
    assert m.recall_at_k == 2 / 3              # a and c in the top 2
    assert m.precision_at_k == 2 / 4
    assert m.stale_retrieval_rate == 1 / 2     # s returned, t not
    assert m.scope_violation_rate == 1 / 4
    with pytest.raises(EvaluationError):
        read_metrics(rows, k=0)


# -- the reader and the baseline -------------------------------------------------------


def rec(rid: str, value: str, **extra: object) -> MemoryRecord:
    return MemoryRecord.model_validate({
        "id": rid, "kind": "semantic", "content": f"{rid} says {value}",
        "created_at": extra.pop("created_at", "2026-01-01T00:00:00+00:00"),
        "scope": {"tenant": "acme"}, "asserts": "k", "asserted_value": value, **extra})


def test_reader_applies_precedence_and_abstains_on_ambiguity() -> None:
    weak = rec("weak", "750", authority="model_inferred")
    strong = rec("strong", "1000", authority="authoritative_source")
    assert read_answer("k", [weak, strong]).value == "1000"
    assert read_answer("k", [weak, strong]).decided_by == "authority"
    assert read_answer("k", [weak, strong], observed="900").value == "900"
    twin = rec("twin", "2000", authority="authoritative_source")
    answer = read_answer("k", [strong, twin], prior="500")
    assert answer.value is None and answer.source == "ambiguous"   # never guessed
    assert read_answer("k", [], prior="500").source == "prior"
    assert read_answer("other", [strong]).source == "nothing"


def test_reader_reads_goal_outcomes_of_episodes() -> None:
    episode = MemoryRecord.model_validate({
        "id": "ep", "kind": "episodic", "content": "restart succeeded, outage went on",
        "created_at": "2026-01-01T00:00:00+00:00", "scope": {"tenant": "acme"},
        "metadata": {"action": "restart_service", "action_result": "success",
                     "goal_result": "failure"}})
    assert read_answer("outcome:restart_service", [episode], prior="success").value == "failure"


def test_naive_baseline_fires_near_misses_and_repeats() -> None:
    naive = NaiveVectorDump()
    naive.intend(DeferredIntention(id="i", action="a", trigger_kind="migration_completed",
                                   trigger_value="014", scope={"tenant": "acme"},
                                   created_at=datetime(2026, 1, 1, tzinfo=UTC)))
    assert [i.id for i in naive.process_event({"migration_completed": "0141"})] == ["i"]
    assert [i.id for i in naive.process_event({"migration_completed": "014"})] == ["i"]
    assert naive.process_event({"unrelated": "x"}) == []
