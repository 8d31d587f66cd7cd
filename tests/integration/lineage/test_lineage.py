"""Lineage graphs, their exports, the Browser snippets and the deletion/lineage CLI."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory, store_of
from graphmem.db import catalogue as cypher
from graphmem.db.codec import scope_pairs
from graphmem.errors import RecordNotFoundError, ValidationError
from graphmem.lineage.graph import FORMATS, SNIPPETS, export, render, snippet
from tests.support.northwind import load

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
SUBJECT = {"tenant": "acme", "user": "u-17"}


@pytest.fixture()
def northwind(memory: Memory) -> Memory:
    load(memory)
    return memory


def test_lineage_up_down_both_with_attributes(northwind: Memory) -> None:
    up = northwind.lineage("proc-dup-charge", "up", now=NOW)
    assert set(up.nodes) == {"proc-dup-charge", "fact-retry-bug", "sum-duplicate-charges",
                             "ep-u17-call", "ep-u18-call"}
    assert up.edges["proc-dup-charge", "fact-retry-bug"]["type"] == "derived_from"
    assert up.edges["proc-dup-charge", "fact-retry-bug"]["types"] == "derived_from,evidenced_by"
    assert up.edges["proc-dup-charge", "ep-u17-call"]["type"] == "evidenced_by"
    node = up.nodes["ep-u17-call"]
    assert node["kind"] == "episodic" and node["authority"] == "verified_outcome"
    assert node["status"] == "ACTIVE" and node["scope"] == SUBJECT
    assert node["created_at"] == datetime(2026, 5, 3, 15, 20, tzinfo=UTC)
    assert up.nodes["fact-retry-bug"]["depth"] == 1 and up.nodes["ep-u17-call"]["depth"] == 1
    assert "content" not in node
    assert up.graph["root"] == "proc-dup-charge"

    shallow = northwind.lineage("proc-dup-charge", "up", depth=1, now=NOW)
    assert set(shallow.nodes) == {"proc-dup-charge", "fact-retry-bug", "ep-u17-call",
                                  "ep-u18-call"}
    down = northwind.lineage("ep-u17-call", "down", now=NOW)
    assert set(down.nodes) == {"ep-u17-call", "sum-duplicate-charges", "sum-u17-profile",
                               "fact-retry-bug", "proc-dup-charge"}
    both = northwind.lineage("sum-duplicate-charges", "both", now=NOW)
    assert {"ep-u17-call", "ep-u18-call", "fact-retry-bug", "proc-dup-charge"} < set(both.nodes)
    assert nx.is_directed_acyclic_graph(both)

    versions = northwind.lineage("pol-refund-v2", "up", now=NOW)
    assert versions.edges["pol-refund-v2", "pol-refund-v1"]["type"] == "supersedes"
    assert versions.nodes["pol-refund-v1"]["status"] == "SUPERSEDED"
    email = northwind.lineage("pref-u17-email", "both", now=NOW)
    assert email.nodes["pref-u17-email"]["status"] == "RETRACTED"
    assert email.nodes["pref-u17-email"]["retracted"] is True


def test_lineage_shows_erased_tombstones_and_errors(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    graph = northwind.lineage("fact-retry-bug", "up", now=NOW)
    assert graph.nodes["ep-u17-call"]["status"] == "ERASED"
    assert graph.nodes["ep-u17-call"]["erased"] is True
    assert graph.nodes["ep-u17-call"]["erased_by_request"] == plan.request_id
    assert graph.nodes["fact-retry-bug"]["status"] == "PENDING_RECOMPUTE"
    assert graph.nodes["sum-duplicate-charges"]["status"] == "PENDING_RECOMPUTE"
    with pytest.raises(RecordNotFoundError):
        northwind.lineage("no-such-record")
    with pytest.raises(ValidationError):
        northwind.lineage("fact-retry-bug", "sideways")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        northwind.lineage("fact-retry-bug", depth=-1)


def test_every_export_format(northwind: Memory, tmp_path: Path) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    graph = northwind.lineage("sum-duplicate-charges", "both", now=NOW)
    assert set(FORMATS) == {"graphml", "gexf", "json", "dot", "mermaid", "png", "svg", "html"}

    graphml = export(graph, "graphml")
    assert isinstance(graphml, str)
    back = nx.read_graphml(_write(tmp_path / "g.graphml", graphml))
    assert set(back.nodes) == set(graph.nodes)
    assert back.nodes["ep-u17-call"]["status"] == "ERASED"
    assert json.loads(back.nodes["ep-u18-call"]["scope"]) == {"tenant": "acme", "user": "u-18"}
    assert back.edges["fact-retry-bug", "sum-duplicate-charges"]["type"] == "derived_from"

    gexf = export(graph, "gexf")
    assert isinstance(gexf, str)
    assert set(nx.read_gexf(_write(tmp_path / "g.gexf", gexf)).nodes) == set(graph.nodes)

    data = json.loads(str(export(graph, "json")))
    again = nx.node_link_graph(data, edges="edges")
    assert set(again.edges) == set(graph.edges)

    dot = str(export(graph, "dot"))
    assert dot.startswith("digraph lineage {")
    assert '"fact-retry-bug" -> "sum-duplicate-charges"' in dot
    assert "dashed" in dot  # the erased node

    mermaid = str(export(graph, "mermaid"))
    assert mermaid.startswith("flowchart BT")
    assert "class n0 erased" in mermaid  # ep-u17-call sorts first
    assert "|derived_from,evidenced_by|" in mermaid

    png = export(graph, "png")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
    svg = render(graph, "svg")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert b"erased" in svg and b"evidenced_by" in svg  # legend entries
    with pytest.raises(ValidationError):
        export(graph, "pdf")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_browser_snippets_parse_and_answer(northwind: Memory) -> None:
    plan = northwind.plan_deletion(subject=SUBJECT, requested_by="p", reason="r")
    northwind.apply_deletion(plan)
    params: dict[str, dict[str, Any]] = {
        "record_lineage": {"id": "fact-retry-bug"},
        "subject_footprint": {"tenant": "acme", "subject_pairs": scope_pairs(SUBJECT)},
        "deletion_request": {"request_id": plan.request_id},
    }
    assert set(SNIPPETS) == set(params)
    driver, db = store_of(northwind).driver, store_of(northwind).database
    for name, file_name in SNIPPETS.items():
        assert file_name in cypher.names()
        driver.execute_query("EXPLAIN " + snippet(name), params[name], database_=db)
    rows, _, _ = driver.execute_query(snippet("record_lineage"), params["record_lineage"],
                                      database_=db)
    pairs = {(r["a"]["id"], r["b"]["id"]) for r in rows}
    assert ("fact-retry-bug", "sum-duplicate-charges") in pairs
    assert ("proc-dup-charge", "fact-retry-bug") in pairs
    rows, _, _ = driver.execute_query(snippet("subject_footprint"),
                                      params["subject_footprint"], database_=db)
    footprint = {r["id"]: r for r in rows}
    assert footprint["ep-u17-call"]["erased"] and footprint["ep-u17-call"]["depth"] == 0
    assert footprint["fact-retry-bug"]["depth"] == 2
    assert footprint["fact-retry-bug"]["pending_recompute"]
    rows, _, _ = driver.execute_query(snippet("deletion_request"), params["deletion_request"],
                                      database_=db)
    state = {r["disposition"]: r["nodes"] for r in rows}
    assert state == {"DELETE": 4, "RECOMPUTE": 2, "QUARANTINE": 1}
    assert {r["state"] for r in rows} == {"applied"}


# -- CLI ---------------------------------------------------------------------------------------


@pytest.fixture()
def cli_env(northwind: Memory, neo4j_db: Any, monkeypatch: pytest.MonkeyPatch) -> Memory:
    settings = neo4j_db.settings
    monkeypatch.setenv("NEO4J_URI", settings.uri)
    monkeypatch.setenv("NEO4J_USER", settings.user)
    monkeypatch.setenv("NEO4J_PASSWORD", settings.password)
    monkeypatch.setenv("NEO4J_DATABASE", settings.database)
    monkeypatch.setenv("COLUMNS", "160")
    return northwind


def test_cli_plan_apply_verify(cli_env: Memory, tmp_path: Path) -> None:
    runner = CliRunner()
    plan_file = tmp_path / "plan.json"
    result = runner.invoke(app, ["delete", "plan", "--subject", "tenant=acme", "--subject",
                                 "user=u-17", "--redact", "Jane Roe", "--requested-by", "dpo",
                                 "--reason", "GDPR art. 17", "-o", str(plan_file)])
    assert result.exit_code == 0, result.output
    assert "sum-duplicate-charges" in result.output and "REDACT" in result.output
    assert "proc-dup-charge" in result.output  # also in the dangling citations table
    plan = json.loads(plan_file.read_text())
    assert plan["requested_by"] == "dpo"

    result = runner.invoke(app, ["delete", "plan", "--subject", "tenant=acme", "--subject",
                                 "user=u-17", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["entries"]

    result = runner.invoke(app, ["delete", "apply", str(plan_file), "--batch-size", "3"])
    assert result.exit_code == 2 and "give them again" in result.output  # terms not kept
    result = runner.invoke(app, ["delete", "apply", str(plan_file), "--batch-size", "3",
                                 "--redact", "JANE  ROE"])
    assert result.exit_code == 0, result.output
    assert "verification passed" in result.output
    assert cli_env.get("sum-duplicate-charges").content.count("[REDACTED]") == 1

    result = runner.invoke(app, ["delete", "verify", plan["request_id"], "--redact", "Jane Roe",
                                 "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["verification"]["passed"] and report["verification"]["terms_checked"] == 1
    assert report["counts"] == {"DELETE": 4, "RECOMPUTE": 1, "REDACT": 1, "QUARANTINE": 1}

    # exit codes (docs/cli.md): bad input is 2
    result = runner.invoke(app, ["delete", "verify", "del-unknown"])
    assert result.exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text(plan_file.read_text().replace("GDPR art. 17", "edited"))
    result = runner.invoke(app, ["delete", "apply", str(bad)])
    assert result.exit_code == 2 and "digest" in result.output
    result = runner.invoke(app, ["delete", "plan", "--subject", "user"])
    assert result.exit_code == 2


def test_cli_lineage(cli_env: Memory, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["lineage", "fact-retry-bug", "--format", "mermaid",
                                 "--direction", "up"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("flowchart BT")
    assert "sum-duplicate-charges" in result.output
    for fmt in ("graphml", "gexf", "json", "dot", "png", "svg"):
        out = tmp_path / f"lineage.{fmt}"
        result = runner.invoke(app, ["lineage", "fact-retry-bug", "--format", fmt, "-o",
                                     str(out)])
        assert result.exit_code == 0, result.output
        assert out.stat().st_size > 100
    result = runner.invoke(app, ["lineage", "fact-retry-bug", "--format", "png"])
    assert result.exit_code == 2
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".dot", b"digraph"),
                          (".txt", b"flowchart")):  # no --format: the file's extension says
        out = tmp_path / f"inferred{suffix}"
        result = runner.invoke(app, ["lineage", "fact-retry-bug", "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert out.read_bytes().lstrip().startswith(magic), suffix
    result = runner.invoke(app, ["lineage", "nope", "--format", "dot"])
    assert result.exit_code == 2
    result = runner.invoke(app, ["lineage", "fact-retry-bug", "--json"])
    assert result.exit_code == 0, result.output
    assert "sum-duplicate-charges" in {n["id"] for n in json.loads(result.stdout)["nodes"]}


def test_cli_pictures_without_matplotlib_exit_2_with_the_hint(
        cli_env: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command says what to install and exits 2, like a missing html extra: no
    traceback, no file."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    out = tmp_path / "lineage.png"
    result = CliRunner().invoke(app, ["lineage", "fact-retry-bug", "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert "graphmem[charts]" in result.output and "Traceback" not in result.output
    assert not out.exists()
