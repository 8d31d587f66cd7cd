"""Keeping northwind to explore: `graphmem scenario load` is idempotent, also after
a deletion walk changed the data; and a deletion plan whose subject matches nothing is not a
silent success (`graphmem delete plan` exits 1 unless --allow-empty)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.demo.load import load_into
from graphmem.demo.scenario import load_scenario, packaged_northwind
from graphmem.errors import RecordConflictError
from graphmem.models import Principal, Sensitivity


def _load(*extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scenario", "load", "northwind", "--json", *extra])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _outcomes(report: dict[str, Any]) -> dict[str, str]:
    return {row["id"]: row["outcome"] for row in report["rows"]}


def test_load_twice_changes_nothing_the_second_time(cli: Memory) -> None:
    first = _load()
    assert first["changed"] == 27 + 1 + 2  # records, the retraction, intentions
    assert _outcomes(first)["web-poison"] == "written"
    nodes = store_of(cli).counts()
    history = cli.history("pref-u17-email")
    second = _load()
    assert second["changed"] == 0
    assert set(_outcomes(second).values()) == {"present", "already applied"}
    assert store_of(cli).counts() == nodes
    assert cli.history("pref-u17-email") == history  # no second retraction, no new decision
    assert cli.get("pref-u17-email").retracted


def test_load_after_the_u17_erasure_keeps_it_erased(cli: Memory) -> None:
    _load()
    plan = cli.plan_deletion(subject={"tenant": "acme", "user": "u-17"},
                             redact_terms=["Jane Roe"], requested_by="dpo", reason="test")
    assert cli.apply_deletion(plan).verification.passed
    again = _outcomes(_load())
    for rid in ("pref-u17-email", "ep-u17-call", "sum-u17-profile", "intent-u17-callback",
                "retract pref-u17-email"):
        assert again[rid] == "erased", rid
    assert again["sum-duplicate-charges"] == "present"  # redacted since: left alone
    assert cli.explain("ep-u17-call", principal=_acme(), scope={"tenant": "acme",
                                                                 "user": "u-17"}).status == "ERASED"


def _acme() -> Principal:
    return Principal(tenants=frozenset({"acme"}), clearance=Sensitivity.RESTRICTED)


def test_load_refuses_other_content_under_a_scenario_id_and_writes_nothing(
        cli: Memory) -> None:
    cli.put({"id": "pol-refund-v1", "kind": "semantic", "content": "Something else.",
             "created_at": "2026-01-01T00:00:00+00:00", "scope": {"tenant": "acme"}})
    before = store_of(cli).counts()
    with pytest.raises(RecordConflictError) as caught:
        load_into(cli, load_scenario(packaged_northwind()))
    assert list(caught.value.record_ids) == ["pol-refund-v1"]
    assert store_of(cli).counts() == before
    result = CliRunner().invoke(app, ["scenario", "load", "northwind"])
    assert result.exit_code == 2 and "pol-refund-v1" in result.stderr


def test_a_subject_that_matches_nothing_exits_1_unless_allowed(cli: Memory,
                                                                tmp_path: Path) -> None:
    _load()
    typo = ["delete", "plan", "--subject", "tenant=acme", "--subject", "user=u-71",
            "--requested-by", "dpo", "--reason", "GDPR art. 17"]
    result = CliRunner().invoke(app, [*typo, "-o", str(tmp_path / "p.json")])
    assert result.exit_code == 1, result.output
    assert "matched no record or intention" in result.stderr
    assert "--allow-empty" in result.stderr
    allowed = CliRunner().invoke(app, [*typo, "--allow-empty", "--json"])
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.stdout)["roots"] == []
    plan = cli.plan_deletion(subject={"tenant": "acme", "user": "u-71"},
                             requested_by="dpo", reason="typo")
    assert plan.matches_nothing
    real = cli.plan_deletion(subject={"tenant": "acme", "user": "u-17"},
                             requested_by="dpo", reason="x", request_id="del-ticket-1")
    assert not real.matches_nothing and real.request_id == "del-ticket-1"
    ok = CliRunner().invoke(app, ["delete", "plan", "--subject", "tenant=acme",
                                  "--subject", "user=u-17", "--reason", "x", "--json"])
    assert ok.exit_code == 0, ok.output
