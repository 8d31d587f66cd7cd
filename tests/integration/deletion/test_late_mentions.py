"""A record or intention written after a deletion was planned that mentions one of its terms is
redacted by the apply's last scan, and the report, its certificate and the CLI's and MCP's
report output list it (REDACT, changed) as every other node the apply changed
(docs/spec/deletion.md#apply)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from graphmem.deletion import DeletionReport
from graphmem.models import Principal
from tests.support.database import Neo4jUnderTest
from tests.support.mcp_client import ok
from tests.support.mcp_client import serve as _serve

pytestmark = pytest.mark.neo4j

TERM = "Jane Roe"
NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
U17 = {"tenant": "acme", "user": "u-17"}
U18 = {"tenant": "acme", "user": "u-18"}


def _rec(rid: str, content: str, scope: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": scope,
            "created_at": "2026-09-01T09:00:00+00:00", "authority": "human_instruction",
            **extra}


def _intention(iid: str, action: str, scope: dict[str, str]) -> dict[str, Any]:
    return {"id": iid, "action": action, "trigger_kind": "event", "trigger_value": "login",
            "scope": scope, "created_at": "2026-09-01T09:00:00+00:00"}


def _listed(report: DeletionReport) -> dict[str, tuple[str, bool]]:
    return {e.id: (e.disposition.value, e.changed) for e in report.entries}


def _late(memory: Memory, scope: dict[str, str] = U18, prefix: str = "late") -> None:
    """What a colleague writes between the plan and its apply: a record and an intention
    that mention the term, outside the plan's subject, and one that does not."""
    memory.write(_rec(f"{prefix}-note", f"{TERM} called again about the refund", scope),
                 now=NOW)
    memory.write(_rec(f"{prefix}-other", "the lobby printer is out of toner", scope), now=NOW)
    memory.intend(_intention(f"{prefix}-remind", f"call {TERM} back", scope))


@pytest.mark.parametrize("batch_size", [1000, 1])  # one transaction, and batched
def test_report_lists_what_the_last_scan_redacted(memory: Memory, batch_size: int) -> None:
    memory.write(_rec("u17-call", f"Call with {TERM} about a refund", U17), now=NOW)
    memory.write(_rec("u17-sum", f"{TERM} wants a refund", U17, derived_from=["u17-call"]),
                 now=NOW)
    memory.write(_rec("early-note", f"{TERM} is a customer", U18), now=NOW)
    plan = memory.plan_deletion(subject=U17, redact_terms=[TERM], requested_by="dpo",
                                reason="GDPR art. 17")
    assert "late-note" not in plan.columns.ids
    _late(memory)
    report = memory.apply_deletion(plan, batch_size=batch_size)
    assert memory.get("late-note").content == "[REDACTED] called again about the refund"
    listed = _listed(report)
    assert listed["late-note"] == ("REDACT", True)
    assert listed["late-remind"] == ("REDACT", True)
    assert listed["early-note"] == ("REDACT", True)
    assert "late-other" not in listed
    assert report.counts["REDACT"] == 3 and report.counts["DELETE"] == 2
    assert report.changed == len(report.entries) == 5
    assert {e.id for e in report.entries if e.late} == {"late-note", "late-remind"}
    assert report.verification.passed, report.verification.problems
    again = memory.verify_deletion(plan.request_id)
    assert _listed(again) == listed and again.verification.passed
    cert = memory.deletion_certificate(plan.request_id)
    assert cert.disposed == 5 and cert.counts["REDACT"] == 3
    verdict = memory.check_certificate(cert)
    assert verdict.passed, verdict.problems
    reapplied = memory.apply_deletion(plan, batch_size=batch_size)
    assert reapplied.already_applied and _listed(reapplied) == listed


def test_a_confined_apply_lists_only_what_it_changed(memory: Memory) -> None:
    """A confined caller's last scan redacts only within its reach: another user's late
    mention is neither changed nor listed, its own is both."""
    memory.write(_rec("u17-call", f"Call with {TERM} about a refund", U17), now=NOW)
    mine = memory.confined(Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"}))
    plan = mine.plan_deletion(roots=["u17-call"], redact_terms=[TERM], requested_by="dpo",
                              reason="GDPR art. 17")
    _late(memory, U18, "theirs")
    _late(memory, U17, "mine")
    report = mine.apply_deletion(plan)
    listed = _listed(report)
    assert listed == {"u17-call": ("DELETE", True), "mine-note": ("REDACT", True),
                      "mine-remind": ("REDACT", True)}
    assert memory.get("theirs-note").content.startswith(TERM)
    assert report.verification.passed, report.verification.problems
    assert mine.check_certificate(mine.deletion_certificate(plan.request_id)).passed


@pytest.mark.usefixtures("cli")
def test_cli_apply_json_and_table_list_late_mentions(memory: Memory, tmp_path: Path) -> None:
    memory.write(_rec("u17-call", f"Call with {TERM} about a refund", U17), now=NOW)
    runner = CliRunner()
    plan_file = tmp_path / "plan.json"
    result = runner.invoke(app, ["delete", "plan", "--subject", "tenant=acme", "--subject",
                                 "user=u-17", "--redact", TERM, "--request-id", "del-late-1",
                                 "-o", str(plan_file)])
    assert result.exit_code == 0, result.output
    _late(memory)
    result = runner.invoke(app, ["delete", "apply", str(plan_file), "--redact", TERM, "--json"])
    assert result.exit_code == 0, result.output
    entries = {e["id"]: e for e in json.loads(result.stdout)["entries"]}
    assert entries["late-note"]["disposition"] == "REDACT" and entries["late-note"]["changed"]
    assert entries["late-remind"]["disposition"] == "REDACT"
    table = runner.invoke(app, ["delete", "verify", "del-late-1"])
    assert table.exit_code == 0, table.output
    assert "late-note" in table.output and "late-remind" in table.output
    assert "REDACT 2" in table.output
    assert table.output.count("written after planning") == 2


def test_mcp_apply_report_lists_late_mentions(neo4j_db: Neo4jUnderTest,
                                              memory: Memory) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        root = (await ok(client, "remember", {"authority": "human_instruction",
                                              "content": f"{TERM} lives at 1 Elm St"}))["id"]
        planned = await ok(client, "plan_deletion", {"roots": [root], "reason": "GDPR art. 17",
                                                     "redact_terms": [TERM]})
        late = (await ok(client, "remember", {"authority": "human_instruction",
                                              "content": f"{TERM} prefers email"}))["id"]
        seen["late"] = late
        seen["report"] = await ok(client, "apply_deletion", {"digest": planned["digest"],
                                                             "plan": planned["plan"],
                                                             "redact_terms": [TERM]})

    _serve(neo4j_db, body, allow_deletion=True)
    entries = {e["id"]: e for e in seen["report"]["entries"]}
    assert entries[seen["late"]]["disposition"] == "REDACT", entries
    assert entries[seen["late"]]["changed"] is True
    assert seen["report"]["verification"]["passed"] is True
    assert memory.get(seen["late"]).content == "[REDACTED] prefers email"
