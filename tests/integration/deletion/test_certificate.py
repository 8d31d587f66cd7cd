"""Erasure certificates: issued for an applied request, chained per tenant, and checked for
alteration and for agreement with the store, through the client and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.deletion.certificate import ErasureCertificate, load
from graphmem.errors import CertificateError, DeletionError

CREATED = "2026-03-02T09:00:00+00:00"


def _subject(memory: Memory, user: str, n: int = 3) -> None:
    memory.put_many([{"id": f"{user}-r{i}", "kind": "semantic", "created_at": CREATED,
                      "content": f"Note {i} about the customer {user}.",
                      "scope": {"tenant": "acme", "user": user},
                      "provenance": {"source": "crm"}, "authority": "human_instruction"}
                     for i in range(n)])
    memory.put({"id": f"{user}-derived", "kind": "semantic", "created_at": CREATED,
                "content": f"Summary derived from the notes of {user}.",
                "scope": {"tenant": "acme", "user": user}, "derived_from": [f"{user}-r0"],
                "provenance": {"source": "summariser"}, "authority": "model_inferred"})


def _erase(memory: Memory, user: str, request_id: str) -> None:
    plan = memory.plan_deletion(subject={"tenant": "acme", "user": user}, requested_by="dpo",
                                reason="GDPR art. 17", request_id=request_id)
    assert memory.apply_deletion(plan).verification.passed


def test_a_certificate_states_the_erasure_and_checks_out(memory: Memory) -> None:
    _subject(memory, "u-1")
    _erase(memory, "u-1", "del-cert-1")
    cert = memory.deletion_certificate("del-cert-1")
    assert cert.request_id == "del-cert-1" and cert.requested_by == "dpo"
    assert cert.reason == "GDPR art. 17" and cert.tenants == ("acme",)
    assert cert.counts["DELETE"] == 4 and cert.disposed == 4
    assert cert.previous == {"acme": None} and cert.position == {"acme": 1}
    assert cert.checks and all(c.passed for c in cert.checks)
    assert {"deleted_with_content", "every_planned_node_disposed"} <= {c.name for c in cert.checks}
    assert cert.outside_reach, "what stays outside graphmem's reach is listed"
    assert cert.digest == cert.compute_digest()
    again = memory.deletion_certificate("del-cert-1")
    assert again.digest == cert.digest, "issuing again returns the certificate issued"
    verdict = memory.check_certificate(cert.to_json())
    assert verdict.passed and verdict.problems == ()


@pytest.mark.parametrize(("field", "value"), [
    ("reason", "routine clean-up"), ("requested_by", "someone else"),
    ("counts", {"DELETE": 3, "RECOMPUTE": 0, "REDACT": 0, "QUARANTINE": 0}),
    ("previous", {"acme": "0" * 64}), ("finished_at", "2020-01-01T00:00:00+00:00"),
])
def test_an_altered_field_is_detected(memory: Memory, field: str, value: Any) -> None:
    _subject(memory, "u-2")
    _erase(memory, "u-2", "del-cert-2")
    data = json.loads(memory.deletion_certificate("del-cert-2").to_json())
    data[field] = value
    verdict = memory.check_certificate(data)
    assert not verdict.intact and not verdict.passed
    assert any("altered" in p for p in verdict.problems)


def test_two_certificates_of_a_tenant_form_a_chain(memory: Memory) -> None:
    for user in ("u-3", "u-4"):
        _subject(memory, user)
    _erase(memory, "u-3", "del-chain-1")
    first = memory.deletion_certificate("del-chain-1")
    _erase(memory, "u-4", "del-chain-2")
    second = memory.deletion_certificate("del-chain-2")
    assert second.previous == {"acme": first.digest} and second.position == {"acme": 2}
    assert memory.check_certificate(first).passed and memory.check_certificate(second).passed
    forged = second.model_copy(update={"previous": {"acme": "f" * 64}})
    forged = forged.model_copy(update={"digest": forged.compute_digest()})  # re-sealed
    verdict = memory.check_certificate(forged)
    assert verdict.intact and not verdict.agrees
    assert any("previous certificate" in p for p in verdict.problems)


def test_the_store_disagreeing_is_detected(memory: Memory) -> None:
    _subject(memory, "u-5")
    _erase(memory, "u-5", "del-cert-5")
    cert = memory.deletion_certificate("del-cert-5")
    # someone removes the tombstone and writes a record under the erased id again
    store_of(memory).driver.execute_query("MATCH (r:Record {id: $id}) DETACH DELETE r",
                                      id="u-5-r1", database_=store_of(memory).database)
    memory.put({"id": "u-5-r1", "kind": "semantic", "created_at": CREATED,
                "content": "Note 1 about the customer u-5, written again.",
                "scope": {"tenant": "acme", "user": "u-5"}, "provenance": {"source": "crm"},
                "authority": "human_instruction"})
    verdict = memory.check_certificate(cert)
    assert verdict.intact and not verdict.agrees
    assert any("disposed" in p for p in verdict.problems)


def test_a_record_refilled_after_erasure_is_detected(memory: Memory) -> None:
    _subject(memory, "u-6")
    _erase(memory, "u-6", "del-cert-6")
    cert = memory.deletion_certificate("del-cert-6")
    store = store_of(memory)
    store.driver.execute_query("MATCH (r:Record {id: $id}) SET r.content = $c",
                               id="u-6-r2", c="restored", database_=store.database)
    verdict = memory.check_certificate(cert)
    assert not verdict.agrees
    assert any("deleted_with_content" in p for p in verdict.problems)


def test_bad_input_raises_typed_errors(memory: Memory) -> None:
    with pytest.raises(CertificateError):
        load("not json at all")
    with pytest.raises(CertificateError):
        load({"format": "graphmem-erasure-certificate", "request_id": "x"})
    with pytest.raises(DeletionError):
        memory.deletion_certificate("del-no-such-request")


def test_cli_issues_and_checks_with_the_readme_exit_codes(cli: Memory, tmp_path: Path) -> None:
    _subject(cli, "u-7")
    _erase(cli, "u-7", "del-cli-7")
    runner = CliRunner()
    out = tmp_path / "cert.json"
    result = runner.invoke(app, ["delete", "certificate", "del-cli-7", "-o", str(out)])
    assert result.exit_code == 0, result.output
    cert = ErasureCertificate.model_validate_json(out.read_text(encoding="utf-8"))
    assert cert.request_id == "del-cli-7"
    ok = runner.invoke(app, ["delete", "check-certificate", str(out), "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["intact"] is True
    data = json.loads(out.read_text(encoding="utf-8"))
    data["counts"]["DELETE"] += 1
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data), encoding="utf-8")
    assert runner.invoke(app, ["delete", "check-certificate", str(altered)]).exit_code == 1
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{\"hello\": 1}", encoding="utf-8")
    assert runner.invoke(app, ["delete", "check-certificate", str(garbage)]).exit_code == 2
    assert runner.invoke(app, ["delete", "certificate", "del-no-such"]).exit_code == 2
