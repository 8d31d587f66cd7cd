"""The northwind scenario ships inside the package: the packaged copy stays
byte-identical to ``../shared/scenarios/northwind`` when that folder exists, every line of it
validates, and `graphmem demo` rejects bad scenario input before any database work."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem.cli import app
from graphmem.client import Memory
from graphmem.db.server import EphemeralServer
from graphmem.demo.scenario import load_scenario, packaged_northwind

# the shared scenario in the nearest ancestor that has one: beside the main checkout
# (/work/shared next to /work/main) and beside a worktree further down (/work/wt/<name>)
SHARED = next((found for parent in Path(__file__).resolve().parents
               if (found := parent / "shared" / "scenarios" / "northwind").is_dir()),
              Path(__file__).resolve().parents[4] / "shared" / "scenarios" / "northwind")
FILES = ("records.jsonl", "operations.jsonl", "intentions.jsonl", "queries.jsonl", "README.md")


def test_packaged_copy_matches_the_shared_scenario() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"no {SHARED} beside this checkout")
    packaged = packaged_northwind()
    assert sorted(p.name for p in SHARED.iterdir() if p.is_file()) == sorted(FILES)
    for name in FILES:
        assert (packaged / name).read_bytes() == (SHARED / name).read_bytes(), (
            f"graphmem/demo/northwind/{name} differs from {SHARED / name}: copy it over")


def test_packaged_scenario_loads_and_validates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_NORTHWIND", raising=False)
    scenario = load_scenario(packaged_northwind())
    assert scenario.name == "northwind"
    raw = {name: [line for line in (scenario.folder / name).read_text("utf-8").splitlines()
                  if line.strip()] for name in FILES[:4]}
    assert len(scenario.records) == len(raw["records.jsonl"]) > 10
    assert len(scenario.operations) == len(raw["operations.jsonl"]) >= 1
    assert len(scenario.intentions) == len(raw["intentions.jsonl"]) >= 1
    assert [q.id for q in scenario.queries] == [json.loads(x)["id"]
                                                for x in raw["queries.jsonl"]]


@pytest.fixture
def no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to start or connect to Neo4j fails the test."""
    for key in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE",
                "GRAPHMEM_NORTHWIND"):
        monkeypatch.delenv(key, raising=False)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the demo touched the database before validating its input")

    monkeypatch.setattr(EphemeralServer, "start", refuse)
    monkeypatch.setattr(Memory, "connect", refuse)


@pytest.mark.usefixtures("no_database")
def test_demo_missing_scenario_exits_2_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    result = CliRunner().invoke(app, ["demo", "--scenario", str(tmp_path / "missing")])
    elapsed = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert "no scenario folder" in result.output
    assert elapsed < 1.0, f"took {elapsed:.2f} s"


@pytest.mark.usefixtures("no_database")
def test_demo_bad_line_anywhere_exits_2_naming_it(tmp_path: Path) -> None:
    packaged = packaged_northwind()
    for broken, bad_line in (("queries.jsonl", '{"id": "q-x", "now": "2026-01-01T00:00:00"}'),
                             ("records.jsonl", '{"id": "r-x", "kind": "semantic"}'),
                             ("operations.jsonl", '{"op": "delete", "id": "x"}'),
                             ("intentions.jsonl", "[1, 2]")):
        folder = tmp_path / broken.split(".")[0] / "northwind"
        folder.mkdir(parents=True)
        for name in FILES[:4]:
            lines = (packaged / name).read_text(encoding="utf-8").splitlines()
            if name == broken:
                lines.insert(1, bad_line)
            (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = CliRunner().invoke(app, ["demo", "--json", "--scenario", str(folder)])
        assert result.exit_code == 2, (broken, result.output)
        assert f"{broken}:2" in result.stderr, (broken, result.stderr)
        assert result.stdout == ""
