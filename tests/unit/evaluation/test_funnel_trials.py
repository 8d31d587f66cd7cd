"""Funnel trials rebuilt from attribution log rows (no database)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from graphmem.db.ops.evaluation import TrialLog, TrialUse
from graphmem.errors import EvaluationError
from graphmem.evaluation.funnel import Helped, TrialTarget, _trials


def _log(record_id: str, *, exists: bool = True, dispositions: tuple[str, ...] = (),
         retrieval: dict[str, Any] | None = None, candidates: list[str] | None = None,
         exposures: tuple[str, ...] = (), uses: tuple[TrialUse, ...] = ()) -> TrialLog:
    cs = None if candidates is None else {"digest": "d1", "ids": candidates}
    return TrialLog(task_id="t", record_id=record_id, record_exists=exists,
                    dispositions=list(dispositions), retrieval=retrieval, candidate_set=cs,
                    chain=[], exposures=list(exposures), uses=list(uses))


def _never(record_id: str, retrieval: Mapping[str, Any]) -> bool:
    raise AssertionError("explain asked although candidates were logged")


def test_a_record_used_and_helping_reaches_every_stage() -> None:
    logs = [_log("r1", retrieval={"triggered": True, "selected_ids": ["r1"]},
                 candidates=["r0", "r1"], exposures=("a1",),
                 uses=(TrialUse(action_id="a1", helped=None),
                       TrialUse(action_id="a2", helped=True)))]
    [trial] = _trials([TrialTarget("t", "r1", "q1")], logs, _never)
    assert (trial.written, trial.eligible, trial.retrieved, trial.exposed, trial.used,
            trial.helped) == (True, True, True, True, True, Helped.YES)


def test_a_quarantined_proposal_counts_as_written_though_not_stored() -> None:
    logs = [_log("r1", exists=False, dispositions=("QUARANTINE",))]
    [trial] = _trials([TrialTarget("t", "r1", None)], logs, _never)
    assert trial.written and not trial.eligible
    logs = [_log("r1", exists=False, dispositions=("DISCARD",))]
    assert not _trials([TrialTarget("t", "r1", None)], logs, _never)[0].written


def test_without_a_trigger_eligibility_is_asked_of_explain_for_stored_records() -> None:
    asked: list[str] = []

    def explain(record_id: str, retrieval: Mapping[str, Any]) -> bool:
        asked.append(record_id)
        return True

    logs = [_log("r1", retrieval={"triggered": False, "selected_ids": []})]
    [trial] = _trials([TrialTarget("t", "r1", "q1")], logs, explain)
    assert asked == ["r1"] and trial.eligible and not trial.retrieved
    assert trial.helped is Helped.UNMEASURED


def test_a_use_without_an_exposure_is_an_inconsistent_log() -> None:
    logs = [_log("r1", retrieval={"triggered": True, "selected_ids": ["r1"]},
                 candidates=["r1"], uses=(TrialUse(action_id="a1", helped=False),))]
    with pytest.raises(EvaluationError):
        _trials([TrialTarget("t", "r1", "q1")], logs, _never)
