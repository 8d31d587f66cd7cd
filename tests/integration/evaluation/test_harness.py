"""The evaluation harness on real Neo4j: funnel from the attribution log, fault injection,
write-path fixture and the northwind paired runs (docs/spec/evaluation.md)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.errors import EvaluationError
from graphmem.evaluation.faults import FAULTS, run_faults
from graphmem.evaluation.funnel import Helped, MemoryStage, TrialTarget, trials_from_log
from graphmem.evaluation.northwind import NORTHWIND_TASKS, run_northwind
from graphmem.evaluation.suites import run_write_path
from graphmem.models import Principal
from graphmem.write.policy import WriteDisposition
from tests.support.database import Neo4jUnderTest
from tests.support.northwind import scenario_dir

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))
REPO = {"tenant": "acme", "repo": "checkout-api"}


def _rec(rid: str, content: str, **extra: object) -> dict[str, object]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": REPO,
            "created_at": "2026-08-01T00:00:00+00:00", "authority": "human_instruction",
            **extra}


# -- the funnel is rebuilt from what the client logged --------------------------------------


def test_trials_from_the_attribution_log(memory: Memory) -> None:
    memory.write(_rec("cmd", "Run the unit tests with: pytest -q tests/unit"))
    memory.write(_rec("deploy", "Deploy checkout-api with: make deploy"))
    memory.write(_rec("rumour", "Tests are flaky on Fridays.", authority="untrusted",
                      provenance={"source": "web"}))  # quarantined: written, never eligible
    state = {"memory_scope": REPO, "goal": "Fix checkout", "subtask": "Run the unit tests",
             "last_observation": "tests failed", "new_error": True}
    result = memory.retrieve(state, principal=ACME, now=NOW, k=1)
    rid = result.trace.retrieval_id
    assert result.ids == ["cmd"]
    memory.record_exposure(rid, "a1", ["cmd"], at=NOW)
    memory.record_use(rid, "a1", ["cmd"], helped=True, at=NOW)
    quiet = memory.retrieve({**state, "new_error": False}, principal=ACME, now=NOW)
    assert not quiet.trace.triggered

    trials = trials_from_log(store_of(memory), [
        TrialTarget("t-cmd", "cmd", rid),
        TrialTarget("t-deploy", "deploy", rid),          # eligible, ranked out at k=1
        TrialTarget("t-rumour", "rumour", rid),          # quarantined
        TrialTarget("t-never", "never-written", rid),
        TrialTarget("t-quiet", "cmd", quiet.trace.retrieval_id),  # eligible, no trigger
        TrialTarget("t-refused", "cmd", None),           # no retrieval was logged
    ])
    lost = {t.task_id: t.lost_at for t in trials}
    assert lost == {"t-cmd": None, "t-deploy": MemoryStage.RETRIEVED,
                    "t-rumour": MemoryStage.ELIGIBLE, "t-never": MemoryStage.WRITTEN,
                    "t-quiet": MemoryStage.RETRIEVED, "t-refused": MemoryStage.ELIGIBLE}
    assert trials[0].helped is Helped.YES and trials[0].used and trials[0].exposed
    assert all(t.helped is Helped.UNMEASURED for t in trials[1:])


def test_an_inconsistent_log_is_a_typed_error(memory: Memory) -> None:
    memory.write(_rec("cmd", "Run the unit tests with: pytest -q tests/unit"))
    result = memory.retrieve({"memory_scope": REPO, "subtask": "Run the unit tests",
                              "new_error": True}, principal=ACME, now=NOW)
    # a use logged without any exposure breaks the funnel's monotonicity
    memory.record_use(result.trace.retrieval_id, "a1", ["cmd"], at=NOW)
    with pytest.raises(EvaluationError, match="monotonic"):
        trials_from_log(store_of(memory), [TrialTarget("t", "cmd", result.trace.retrieval_id)])


# -- fault injection -------------------------------------------------------------------------


def test_fault_suite_graphmem_lets_nothing_through(memory: Memory) -> None:
    report = run_faults(memory)
    assert [r.fault for r in report.results] == [f.name for f in FAULTS]
    through = [r.fault for r in report.results if r.graphmem.let_through]
    assert through == [], [(r.fault, r.graphmem.evidence) for r in report.results]
    assert report.naive_through >= 0.8 * len(report.results)
    assert report.deletion_api
    assert store_of(memory).counts() == {}, "the suite must clean up after itself"


def test_eval_faults_command(neo4j_db: Neo4jUnderTest, memory: Memory, tmp_path: Path) -> None:
    out = tmp_path / "faults.json"
    chart = tmp_path / "faults.png"
    result = CliRunner().invoke(
        app, ["eval", "faults", "--json", "-o", str(out), "--chart", str(chart)],
        env={"NEO4J_URI": neo4j_db.settings.uri, "NEO4J_USER": neo4j_db.settings.user,
             "NEO4J_PASSWORD": neo4j_db.settings.password, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)  # --json: only the report on stdout
    assert json.loads(out.read_text(encoding="utf-8")) == payload
    assert payload["faults"] == len(FAULTS)
    assert payload["graphmem_through"] == 0
    assert payload["naive_through"] >= 0.8 * payload["faults"]
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- write path and northwind ------------------------------------------------------------


def test_write_path_fixture(memory: Memory) -> None:
    result = run_write_path(memory)
    g, naive = result.metrics["graphmem"], result.metrics["naive"]
    wrong = {o.case_id for o in result.outcomes["graphmem"] if o.expected is not o.actual}
    # docs/spec/write-path.md: the one-episode verified_outcome procedure is quarantined
    assert not wrong, wrong
    lucky = {o.case_id: o.actual for o in result.outcomes["graphmem"]}["w-proc-lucky"]
    assert lucky is WriteDisposition.QUARANTINE
    assert g.duplicate_creation_rate == 0 and naive.duplicate_creation_rate == 1
    assert g.scope_accuracy == 1 and naive.scope_accuracy == 0
    assert g.supersession_accuracy == 1 and naive.supersession_accuracy < 1
    assert store_of(memory).counts() == {}


def test_northwind_paired_runs_and_funnel(memory: Memory) -> None:
    result = run_northwind(memory, scenario=scenario_dir())
    g, naive = result.read["graphmem"], result.read["naive"]
    assert g.stale_retrieval_rate == 0 and g.scope_violation_rate == 0
    assert naive.stale_retrieval_rate > 0 and naive.scope_violation_rate > 0
    assert g.recall_at_k == 1 and g.eligible_recall == 1

    effects = result.effects
    assert effects["none"].as_dict() == {"shared": len(NORTHWIND_TASKS), "rescue": 0,
                                         "regret": 0, "unchanged": len(NORTHWIND_TASKS),
                                         "net": 0}
    assert effects["graphmem"].regret == 0
    assert effects["graphmem"].rescue > effects["naive"].rescue
    assert effects["naive"].regret >= 1          # the June orders endpoint: v2 not yet valid
    assert effects["graphmem_vs_naive"].regret == 0

    targets = [t for t in NORTHWIND_TASKS if t.target]
    assert result.funnel.trials == len(targets)
    assert result.funnel.measured == len(targets)  # every use is paired
    assert result.funnel.counts[MemoryStage.HELPED] == effects["graphmem"].rescue
    lost = {task: at for task, _, at in result.trials}
    assert lost["t-orders-june"] == "helped"  # right without memory too: memory did not help
    assert store_of(memory).counts() == {}


def test_eval_northwind_command_writes_json_and_chart(neo4j_db: Neo4jUnderTest, memory: Memory,
                                                      tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["eval", "northwind", "--scenario", str(scenario_dir()),
              "-o", str(tmp_path / "nw.json"), "--chart", str(tmp_path / "nw.png")],
        env={"NEO4J_URI": neo4j_db.settings.uri, "NEO4J_USER": neo4j_db.settings.user,
             "NEO4J_PASSWORD": neo4j_db.settings.password, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    payload = json.loads((tmp_path / "nw.json").read_text(encoding="utf-8"))
    assert set(payload) == {"read_path", "paired", "runs", "funnel", "trials"}
    assert set(payload["paired"]["graphmem"]) == {"shared", "rescue", "regret", "unchanged",
                                                  "net"}
    assert (tmp_path / "nw.png").read_bytes()[:4] == b"\x89PNG"
