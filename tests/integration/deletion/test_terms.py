"""Erasure that finds every way a name is written, touches nothing else, proves it without
being told the terms again, and says what happened (docs/spec/deletion.md), against Neo4j."""

from __future__ import annotations

import json
import re
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.deletion import DeletionPlan
from graphmem.errors import DeletionError
from graphmem.models import Principal

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
U17 = {"tenant": "acme", "user": "u-17"}
TEAM = {"tenant": "acme", "team": "ops"}
ACME = Principal(tenants=frozenset({"acme"}))
VARIANTS = {
    "v-nbsp": "Jane\u00a0Roe called about the invoice",
    "v-line": "ticket from Jane\nRoe",
    "v-two": "Jane  Roe prefers e-mail",
    "v-zwsp": "Jane\u200bRoe asked for a refund",
    "v-upper": "JÜRGEN WEISS signed the order",
    "v-lower": "jürgen weiss is the contact",
    "v-shy": "Ja\u00adne Roe, again",
}
UNTOUCHED = {
    "ann-annual": "annual planning for the Channel team of Joanna",
    "ann-anna": "Anna and Annika from the Ann Arbor office",
}



def _word(piece: str, text: str) -> bool:
    """Whether ``piece`` stands in ``text`` as a word (``zeroed_records`` holds no "roe")."""
    return re.search(rf"(?<![^\W_]){re.escape(piece)}(?![^\W_])", text) is not None

def _rec(rid: str, content: str, scope: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": scope,
            "created_at": "2026-09-01T09:00:00+00:00", "authority": "human_instruction",
            **extra}


def _load(memory: Memory) -> None:
    memory.write(_rec("u17-call", "Call with Jane Roe and Jürgen Weiß about a refund", U17),
                 now=NOW)
    for rid, text in {**VARIANTS, **UNTOUCHED}.items():
        memory.write(_rec(rid, text, TEAM), now=NOW)


def _texts(memory: Memory) -> str:
    """Every string property of the whole database, one per line."""
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (n) UNWIND keys(n) AS k WITH n[k] AS v WHERE v IS :: STRING RETURN v",
        database_=store_of(memory).database)
    return "\n".join(r["v"] for r in rows)


def test_the_issue_variants_end_redacted_and_other_words_untouched(memory: Memory) -> None:
    _load(memory)
    plan = memory.plan_deletion(subject=U17, redact_terms=["Jane Roe", "Jürgen Weiß"],
                                requested_by="dpo", reason="GDPR art. 17")
    assert {e.id for e in plan.entries if e.terms} >= set(VARIANTS)
    assert not {e.id for e in plan.entries} & set(UNTOUCHED)
    report = memory.apply_deletion(plan)
    v = report.verification
    assert v.passed, v.problems
    assert (v.terms_requested, v.terms_checked) == (2, 2)
    for rid in VARIANTS:
        assert "[REDACTED]" in memory.get(rid).content, rid
    assert memory.get("v-nbsp").content == "[REDACTED] called about the invoice"
    assert memory.get("v-shy").content == "[REDACTED], again"
    for rid, text in UNTOUCHED.items():
        assert memory.get(rid).content == text
    left = _texts(memory).lower()
    for piece in ("roe", "weiss", "weiß", "jürgen"):
        assert not _word(piece, left), piece


def test_verify_checks_the_requests_own_terms_unasked(memory: Memory) -> None:
    _load(memory)
    plan = memory.plan_deletion(subject=U17, redact_terms=["Jane Roe", "Jürgen Weiß"],
                                requested_by="dpo", reason="r")
    memory.apply_deletion(plan)
    report = memory.verify_deletion(plan.request_id)
    assert report.verification.passed
    assert (report.verification.terms_requested, report.verification.terms_checked) == (2, 2)
    # the request node holds neither term in clear
    props = store_of(memory).read("deletion/request/get", id=plan.request_id)[0]["request"]
    assert not _word("roe", json.dumps(props, default=str).lower())
    # a variant slipped in afterwards, in a property no code knows: verify finds it unasked
    store_of(memory).driver.execute_query(
        "MATCH (r:Record {id: 'ann-annual'}) SET r.note = 'met JANE\u00a0ROE'",
        database_=store_of(memory).database)
    failed = memory.verify_deletion(plan.request_id).verification
    assert not failed.passed and failed.retrievable_with_terms == ()
    assert failed.text_with_terms == ("Record ann-annual.note",)
    # given again (any spelling), the same terms give the same answer; others are refused
    again = memory.verify_deletion(plan.request_id, redact_terms=["jürgen weiss"]).verification
    assert again.text_with_terms == failed.text_with_terms and again.terms_checked == 2
    with pytest.raises(DeletionError, match="not this request's"):
        memory.verify_deletion(plan.request_id, redact_terms=["Ann"])


def test_a_request_without_keyed_digests_never_passes_unchecked(memory: Memory) -> None:
    _load(memory)
    plan = memory.plan_deletion(subject=U17, redact_terms=["Jane Roe"], requested_by="dpo",
                                reason="r")
    memory.apply_deletion(plan)
    # as a request stored before keyed digests: only an unkeyed digest of the lowered term
    store_of(memory).driver.execute_query(
        "MATCH (q:DeletionRequest {id: $id}) REMOVE q.redact_key, q.redact_terms_json "
        "SET q.redact_term_digests = [$legacy]",
        id=plan.request_id,
        legacy="a3b1b1c5d4e7f61fb3e9e3a0a2c18b3f4c5d5d0a5a1e2b8ad7d53d2d7a8b1f1e",
        database_=store_of(memory).database)
    v = memory.verify_deletion(plan.request_id).verification
    assert not v.passed and (v.terms_requested, v.terms_checked) == (1, 0)
    assert any("checked 0 of the request's 1 term(s)" in p for p in v.problems)


def test_an_as_of_read_after_the_erasure_does_not_break_it(memory: Memory) -> None:
    _load(memory)
    plan = memory.plan_deletion(subject=U17, redact_terms=["Jane Roe"], requested_by="dpo",
                                reason="r")
    report = memory.apply_deletion(plan)
    assert report.verification.passed
    # a read as of a day before the erasure, made after it, naming the person
    memory.retrieve({"memory_scope": TEAM, "goal": "what did Jane Roe ask",
                     "needs_prior_context": True}, principal=ACME, now=NOW - timedelta(days=1))
    assert memory.verify_deletion(plan.request_id).verification.passed
    # and the other way: a log node written before the erasure finished, with a `now` far
    # in the future, is residue the verification must see
    store_of(memory).driver.execute_query(
        "MATCH (q:DeletionRequest {id: $id}) "
        "CREATE (:Retrieval {id: 'early', tenant: 'acme', query: 'jane roe again', "
        "at: datetime('2099-01-01T00:00:00Z'), written_at: q.written_at - duration('PT1S')})",
        id=plan.request_id, database_=store_of(memory).database)
    v = memory.verify_deletion(plan.request_id).verification
    assert not v.passed and v.retrievals_with_terms == ("early",)


def test_plan_json_holds_no_term_and_apply_takes_them_again(memory: Memory) -> None:
    _load(memory)
    plan = memory.plan_deletion(subject=U17, redact_terms=["Jane Roe", "Jürgen Weiß"],
                                requested_by="dpo for JÜRGEN  WEISS",
                                reason="Erase JANE ROE (ticket 4711), not Roeder")
    text = plan.to_json().lower()
    for piece in ("jane", "roe", "jürgen", "weiß", "weiss"):
        assert not _word(piece, text), piece
    # the reason and the requester are text the plan carries: redacted as any other
    assert plan.reason == "Erase [REDACTED] (ticket 4711), not Roeder"
    assert plan.requested_by == "dpo for [REDACTED]"
    loaded = DeletionPlan.from_json(plan.to_json())
    assert loaded == plan and loaded.clear_terms == ()
    with pytest.raises(DeletionError, match="give them again"):
        memory.apply_deletion(loaded)
    with pytest.raises(DeletionError, match="not the plan's"):
        memory.apply_deletion(loaded, redact_terms=["Jane Roe"])
    report = memory.apply_deletion(loaded, redact_terms=["JÜRGEN WEISS", "jane  roe"])
    assert report.verification.passed and not report.already_applied
    assert memory.get("v-two").content == "[REDACTED] prefers e-mail"
    assert memory.apply_deletion(loaded).already_applied  # no terms needed to see that


@pytest.mark.usefixtures("cli")
def test_cli_plan_file_apply_twice_and_roots_matching_nothing(memory: Memory,
                                                              tmp_path: Path) -> None:
    _load(memory)
    runner = CliRunner()
    plan_file = tmp_path / "plan.json"
    plan_file.write_text("old")
    plan_file.chmod(0o644)
    result = runner.invoke(app, ["delete", "plan", "--subject", "tenant=acme", "--subject",
                                 "user=u-17", "--redact", "Jane Roe", "--request-id",
                                 "del-ticket-4711", "-o", str(plan_file)])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(plan_file.stat().st_mode) == 0o600
    assert not _word("roe", plan_file.read_text().lower())
    result = runner.invoke(app, ["delete", "apply", str(plan_file), "--redact", "Jane Roe"])
    assert result.exit_code == 0, result.output
    assert "REDACT 5" in result.output and "changed 6" in result.output
    assert "1 of 1 term(s) checked" in result.output
    result = runner.invoke(app, ["delete", "apply", str(plan_file)])
    assert result.exit_code == 0, result.output
    assert "already applied, nothing changed" in result.output
    assert "yes" not in result.output
    result = runner.invoke(app, ["delete", "verify", "del-ticket-4711"])
    assert result.exit_code == 0, result.output
    assert "1 of 1 term(s) checked" in result.output

    for args, code in ((["--root", "no-such-id", "--allow-empty"], 0),
                       (["--root", "no-such-id"], 1),
                       (["--subject", "tenant=acme", "--subject", "user=u-71"], 1),
                       (["--subject", "tenant=acme", "--subject", "user=u-71",
                         "--allow-empty"], 0),
                       (["--root", "u17-call", "--root", "no-such-id"], 1)):
        result = runner.invoke(app, ["delete", "plan", *args, "--json"])
        assert result.exit_code == code, (args, result.output)
        assert "matched no record or intention" in result.stderr
        assert json.loads(result.stdout)["request_id"]
    result = runner.invoke(app, ["delete", "plan", "--root", "no-such-id", "--allow-empty",
                                 "--json"])
    assert json.loads(result.stdout)["missing_roots"] == ["no-such-id"]
    help_text = runner.invoke(app, ["delete", "plan", "--help"]).output
    assert "match nothing" in help_text and "exit 0 instead of 1" in help_text


@pytest.mark.usefixtures("cli")
def test_cli_apply_and_verify_tables_show_the_disk_report(memory: Memory,
                                                          tmp_path: Path) -> None:
    """What the apply did to the server's files and what stays outside graphmem's reach:
    printed by the tables of apply and verify as the JSON has it (verify shows what the
    apply recorded)."""
    _load(memory)
    runner = CliRunner()
    plan_file = tmp_path / "plan.json"
    result = runner.invoke(app, ["delete", "plan", "--subject", "tenant=acme", "--subject",
                                 "user=u-17", "--redact", "Jane Roe", "--request-id",
                                 "del-disk-1", "-o", str(plan_file)])
    assert result.exit_code == 0, result.output
    applied = runner.invoke(app, ["delete", "apply", str(plan_file), "--redact", "Jane Roe"])
    assert applied.exit_code == 0, applied.output
    result = runner.invoke(app, ["delete", "verify", "del-disk-1", "--json"])
    assert result.exit_code == 0, result.output
    disk = json.loads(result.stdout)["disk"]
    assert disk is not None and disk["outside_reach"]
    verified = runner.invoke(app, ["delete", "verify", "del-disk-1"])
    assert verified.exit_code == 0, verified.output
    for output in (applied.output, verified.output):
        assert "Outside graphmem's reach" in output
        assert all(note["what"] in output for note in disk["outside_reach"])
        if disk["managed"]:
            assert f"{disk['zeroed_records']} free record(s) zeroed" in verified.output
            assert "free record(s) zeroed" in output
        else:
            assert "not run by graphmem, nothing purged" in output
            assert all(note["setting"] in output for note in disk["outside_reach"]
                       if note["setting"])
