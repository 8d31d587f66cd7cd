"""The commands for the people who use graphmem: import, explain, history,
retrieve and stats through the CLI, against the real Neo4j, with their JSON reports and
exit codes (0 ok, 2 bad input)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from tests.support.northwind import lines, load
from tests.support.sizes import size

AT = "2026-09-15T12:00:00+00:00"


def _run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, (args, result.output)
    return json.loads(result.stdout)


def _record(i: int) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": f"bulk-{i:05d}", "kind": "semantic" if i % 3 else "episodic",
        "content": f"Fact number {i} about order A-{i}.",
        "created_at": "2026-01-01T00:00:00+00:00",
        "scope": {"tenant": "bulk", "team": f"t{i % 7}"},
        "provenance": {"source": "generator"},
    }
    if i % 10 == 9:  # every tenth record supersedes the one before it
        rec["supersedes"] = [f"bulk-{i - 1:05d}"]
    return rec


#: Lines of the bulk import, in four batches; 10,000 with ``--heavy`` (tests/support/sizes.py):
#: the same batches, supersessions and re-import, only more of them.
BULK = size(2_000, 10_000)


def test_import_thousands_of_lines(cli: Memory, tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    path.write_text("".join(json.dumps(_record(i)) + "\n" for i in range(BULK)),
                    encoding="utf-8")
    result = CliRunner().invoke(app, ["import", str(path), "--batch-size", str(BULK // 4)])
    assert result.exit_code == 0, result.output
    assert "records/s" in result.stderr  # the progress bar
    assert f"created {BULK}, already present 0" in result.stdout

    again = _run("import", str(path), "--json")
    assert again["records"] == BULK
    assert (again["created"], again["already_present"]) == (0, BULK)

    stats = _run("stats", "--tenant", "bulk", "--json")
    assert stats["records"]["total"] == BULK
    assert stats["records"]["by_status"]["SUPERSEDED"] == BULK // 10  # every tenth supersedes
    assert stats["records"]["by_status"]["ACTIVE"] == BULK - BULK // 10
    kinds = {row["kind"]: 0 for row in stats["records"]["rows"]}
    for row in stats["records"]["rows"]:
        kinds[row["kind"]] += row["n"]
    episodic = (BULK + 2) // 3  # i % 3 == 0
    assert kinds == {"episodic": episodic, "semantic": BULK - episodic}


@pytest.mark.parametrize("bad", [
    # a lone surrogate, which JSON can spell but UTF-8 (and Neo4j) cannot hold
    '{"id": "x-3", "kind": "semantic", "content": "broken \\ud800 text", '
    '"created_at": "2026-01-01T00:00:00+00:00", "scope": {"tenant": "bulk"}}',
    '{"id": "x-3", "kind": "semantic", "content": "no scope", '
    '"created_at": "2026-01-01T00:00:00+00:00"}',
    "not json at all",
])
def test_import_bad_line_writes_nothing(cli: Memory, tmp_path: Path, bad: str) -> None:
    good = [json.dumps(_record(i)) for i in range(4)]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join([*good[:2], bad, *good[2:]]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["import", str(path), "--json"])
    assert result.exit_code == 2, result.output
    assert "records.jsonl:3" in result.stderr
    assert result.stdout == ""
    assert store_of(cli).counts() == {}, "a bad line must leave the store untouched"


def test_import_of_a_file_starting_with_a_byte_order_mark(cli: Memory, tmp_path: Path) -> None:
    """A file a Windows tool wrote starts with a UTF-8 BOM: graphmem import and
    Memory.import_jsonl refused its first line as "not JSON"; a mark on a later line still is
    refused (it is no JSON there)."""
    lines = [json.dumps(_record(i)) for i in range(4)]
    path = tmp_path / "windows.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    imported = _run("import", str(path), "--json")
    assert (imported["records"], imported["created"]) == (4, 4)
    assert cli.import_jsonl(path) == []  # the same file again: already present
    assert cli.get("bulk-00000").content == _record(0)["content"]
    later = tmp_path / "later.jsonl"
    later.write_bytes("\n".join([lines[0], "\ufeff" + json.dumps(_record(9))]).encode())
    result = CliRunner().invoke(app, ["import", str(later), "--json"])
    assert result.exit_code == 2 and "later.jsonl:2" in result.stderr, result.output
    assert store_of(cli).counts()["Record"] == 4


def test_import_usage_errors_exit_2(cli: Memory, tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["import", str(tmp_path / "absent.jsonl")]).exit_code == 2
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(_record(1)) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["import", str(path), "--batch-size", "0"]).exit_code == 2


@pytest.fixture()
def northwind_cli(cli: Memory) -> Memory:
    load(cli)
    for obj in lines("intentions.jsonl"):
        cli.intend(obj)
    return cli


def test_explain_reports_status_and_successors(northwind_cli: Memory, tmp_path: Path) -> None:
    out = tmp_path / "explain.json"
    report = _run("explain", "pol-refund-v1", "--tenant", "acme", "--scope",
                  "project=support-desk", "--at", AT, "--json", "-o", str(out))
    assert report["status"] == "SUPERSEDED"
    assert report["successor_ids"] == ["pol-refund-v2"]
    assert json.loads(out.read_text(encoding="utf-8")) == report
    assert _run("explain", "gx-refund", "--tenant", "acme", "--at", AT,
                "--json")["status"] == "UNAUTHORIZED"
    assert _run("explain", "web-poison", "--tenant", "acme", "--scope", "project=support-desk",
                "--at", AT, "--json")["status"] == "QUARANTINED"
    # the same as the client says
    direct = northwind_cli.explain("pref-u17-email", principal=_acme(), scope={"tenant": "acme"},
                                   now=datetime.fromisoformat(AT))
    text = CliRunner().invoke(app, ["explain", "pref-u17-email", "--tenant", "acme", "--at", AT])
    assert text.exit_code == 0 and direct.status.value in text.stdout

    runner = CliRunner()
    for args in (["explain", "nope", "--tenant", "acme"],
                 ["explain", "pol-refund-v1", "--tenant", "acme", "--at", "2026-09-15"],
                 ["explain", "pol-refund-v1", "--tenant", "acme", "--scope", "project"],
                 ["explain", "pol-refund-v1", "--tenant", "acme", "--clearance", "secret"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)


def _acme() -> Any:
    from graphmem.models import Principal

    return Principal(tenants=frozenset({"acme"}))


def test_history_lists_decisions_and_transitions(northwind_cli: Memory) -> None:
    report = _run("history", "pref-u17-email", "--json")
    kinds = [e["kind"] for e in report["events"]]
    assert kinds[0] == "write:PERSIST"
    assert any("retract" in k for k in kinds[1:]), kinds
    assert [e["at"] for e in report["events"]] == sorted(e["at"] for e in report["events"])
    assert report["events"] == json.loads(json.dumps(
        [{**e, "at": e["at"].isoformat()} for e in northwind_cli.history("pref-u17-email")]))
    assert CliRunner().invoke(app, ["history", "nope"]).exit_code == 2


def test_retrieve_shows_memories_conflicts_and_id(northwind_cli: Memory) -> None:
    report = _run("retrieve", "--tenant", "acme", "--scope", "project=support-desk",
                  "--goal", "Decide whether a EUR 900 refund needs manual approval",
                  "--observation", "Customer asks for a refund of EUR 900", "--at", AT,
                  "--budget", "3000", "--json")
    ids = [m["id"] for m in report["memories"]]
    assert "pol-refund-v2" in ids and "pol-refund-v1" not in ids
    assert [c["key"] for c in report["conflicts"]] == ["refund_manual_approval_threshold_eur"]
    assert report["spent_chars"] <= 3000
    logged = northwind_cli.get_retrieval(report["retrieval_id"])
    assert logged  # the retrieval id names the attribution log entry
    assert "pol-refund-v2" in report["rendered"]
    runner = CliRunner()
    denied = runner.invoke(app, ["retrieve", "--tenant", "acme", "--scope", "tenant=globex",
                                 "--goal", "x"])
    assert denied.exit_code == 2
    assert runner.invoke(app, ["retrieve", "--tenant", "acme", "--goal", "x",
                               "--ranker", "nope"]).exit_code == 2


def test_stats_counts_statuses_intentions_and_requests(northwind_cli: Memory) -> None:
    stats = _run("stats", "--at", AT, "--json")
    records = lines("records.jsonl")
    assert stats["records"]["total"] == len(records)  # none of northwind is discarded
    by_status = stats["records"]["by_status"]
    for status in ("ACTIVE", "SUPERSEDED", "EXPIRED", "RETRACTED", "QUARANTINED",
                   "NOT_YET_VALID"):
        assert by_status[status] >= 1, (status, by_status)
    assert stats["intentions"]["by_status"] == {"pending": len(lines("intentions.jsonl"))}
    assert stats["deletion_requests"] == {"total": 0, "by_state": {}}
    tenants = {row["tenant"] for row in stats["records"]["rows"]}
    assert {"acme", "globex"} <= tenants
    globex = _run("stats", "--tenant", "globex", "--at", AT, "--json")
    assert {row["tenant"] for row in globex["records"]["rows"]} == {"globex"}
    assert globex["records"]["total"] == sum(1 for r in records
                                             if r["scope"]["tenant"] == "globex")
    text = CliRunner().invoke(app, ["stats", "--at", AT])
    assert text.exit_code == 0 and "superseded" in text.stdout and "intentions:" in text.stdout
    # the title on one line, however narrow the table (it wrapped mid-timestamp)
    assert f"Records at {stats['at']}: {len(records)}" in text.stdout.splitlines()
    narrow = CliRunner().invoke(app, ["stats", "--tenant", "nobody", "--at", AT])
    assert f"Records of tenant nobody at {stats['at']}: 0" in narrow.stdout.splitlines()


