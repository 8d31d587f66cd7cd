"""The test suite's own layout: ``tests/unit/`` mirrors the package and needs no database,
``tests/integration/`` holds the tests against the real server, grouped by concern; helpers live
in ``tests/support/``, and no test module imports another (what two test modules share is
support, not a test file); the heavy sizes follow ``--heavy``; how a run is spread over
pytest-xdist workers (tests/support/parallel.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import parallel
from tests.support.sizes import HEAVY_ENV, heavy, size

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
PACKAGE = ROOT / "graphmem"
#: Checks of the whole project rather than of one module, directly in tests/unit/.
PROJECT_WIDE = {"test_docs", "test_layout", "test_public_api", "test_query_boundary", "test_readme",
                "test_suite_layout"}


def imported_modules(path: Path, root: Path = ROOT) -> list[str]:
    """The modules the file at ``path`` imports (relative imports resolved against its package,
    the package path taken relative to ``root``); ``from M import n`` also counts ``M.n``."""
    package = path.relative_to(root).parent.parts
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            out += [module, *(f"{module}.{alias.name}" for alias in node.names)]
    return out


def imported_test_modules(path: Path, root: Path = ROOT) -> list[str]:
    """The test modules (``test_*``) of ``tests`` that the file at ``path`` imports."""
    return [m for m in imported_modules(path, root)
            if m.split(".")[0] == "tests" and m.split(".")[-1].startswith("test_")]


def test_no_test_module_imports_another() -> None:
    offenders = {str(p.relative_to(TESTS)): found for p in sorted(TESTS.rglob("*.py"))
                 if (found := imported_test_modules(p))}
    assert not offenders, f"move what these share to tests/support/: {offenders}"


def test_the_import_check_sees_every_form(tmp_path: Path) -> None:
    scratch = tmp_path / "tests" / "unit" / "read" / "test_scratch.py"
    scratch.parent.mkdir(parents=True)
    scratch.write_text("import tests.integration.read.test_threads\n"
                       "from tests.unit.read.test_tokens import rec\n"
                       "from .test_index import tie_order\n"
                       "from .. import test_docs\n"
                       "from tests.support.writers import rec as other\n", encoding="utf-8")
    assert imported_test_modules(scratch, tmp_path) == [
        "tests.integration.read.test_threads", "tests.unit.read.test_tokens",
        "tests.unit.read.test_index", "tests.unit.test_docs"]


def test_every_test_file_is_in_unit_or_integration() -> None:
    elsewhere = [str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")
                 if p.relative_to(TESTS).parts[0] not in ("unit", "integration")]
    assert not elsewhere, "a test needs no database (tests/unit/) or needs one " \
        f"(tests/integration/): {elsewhere}"


def test_every_test_folder_is_a_package() -> None:
    """Two test files may share a name in different folders (unit/read/test_threads.py and
    integration/read/test_threads.py) only if each folder is a package."""
    folders = {p.parent for p in TESTS.rglob("*.py")} - {TESTS}
    missing = [str(f.relative_to(TESTS)) for f in folders if not (f / "__init__.py").exists()]
    assert not missing


def test_unit_tests_mirror_the_package() -> None:
    """tests/unit/<path>/test_<name>.py tests graphmem/<path>/<module>.py (or a folder there),
    where <name> is the module's name, or starts with it and ``_`` (test_fields_ids.py)."""
    unit = TESTS / "unit"
    astray = []
    for path in unit.rglob("test_*.py"):
        rel = path.relative_to(unit)
        if len(rel.parts) == 1 and path.stem in PROJECT_WIDE:
            continue
        folder = PACKAGE.joinpath(*rel.parts[:-1])
        name = path.stem.removeprefix("test_")
        modules = ({p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir()
                                                            if p.is_dir()}
                   if folder.is_dir() else set())
        if not any(name == m or name.startswith(m + "_") for m in modules):
            astray.append(str(rel))
    assert not astray, f"no module of graphmem/ these test: {sorted(astray)}"


def test_heavy_sizes_follow_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--heavy`` sets GRAPHMEM_HEAVY_TESTS (tests/conftest.py); a test's own variable wins."""
    monkeypatch.delenv(HEAVY_ENV, raising=False)
    monkeypatch.delenv("GRAPHMEM_TEST_SIZE", raising=False)
    assert not heavy() and size(10, 20) == 10 and size(0.5, 2.0) == 0.5
    monkeypatch.setenv(HEAVY_ENV, "1")
    assert heavy() and size(10, 20) == 20
    monkeypatch.setenv("GRAPHMEM_TEST_SIZE", "7")
    assert size(10, 20, env="GRAPHMEM_TEST_SIZE") == 7
    monkeypatch.setenv(HEAVY_ENV, "0")
    assert not heavy() and size(0.5, 2.0, env="GRAPHMEM_NOT_SET_HERE") == 0.5


def test_a_run_of_folders_is_spread_over_workers_a_run_of_files_is_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    unit, one = str(TESTS / "unit"), str(TESTS / "unit" / "test_suite_layout.py")
    assert parallel.auto_workers([unit], 2) == 2
    assert parallel.auto_workers([unit, one], 64) == parallel.MAX_WORKERS
    assert parallel.auto_workers([unit], None) == 1
    assert parallel.auto_workers([one, f"{one}::test_x"], 2) == 0
    everything, integration = str(TESTS), str(TESTS / "integration")
    assert parallel.auto_workers([everything], 1) == 0  # servers would crowd one core
    assert parallel.auto_workers([everything], 2) == 2
    assert parallel.auto_workers([integration], parallel.SERVER_CPUS - 1) == 0
    assert parallel.auto_workers([everything], parallel.SERVER_CPUS) == parallel.SERVER_CPUS
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert parallel.auto_workers([one], 2) is None  # pytest-xdist reads the variable
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS")
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    assert parallel.auto_workers([str(TESTS)], 4) == 0  # one database: one process
    assert parallel.auto_workers([str(TESTS / "integration")], 2) == 0
    assert parallel.auto_workers([unit], 2) == 2  # no database reached


def test_workers_take_whole_modules_and_the_crash_server_modules_together() -> None:
    module = "tests/integration/read/test_threads.py"
    assert parallel.unit_of(f"{module}::test_a[1]") == parallel.unit_of(f"{module}::test_b") \
        == module
    crash = {parallel.unit_of(f"tests/{m}::test_x") for m in parallel.CRASH_MODULES}
    assert crash == {parallel.CRASH_UNIT}
    using = sorted(p.relative_to(TESTS).as_posix() for p in (TESTS / "integration").rglob(
        "test_*.py") if "crash_server" in p.read_text(encoding="utf-8"))
    assert using == sorted(parallel.CRASH_MODULES), "update CRASH_MODULES"


def test_slow_modules_go_out_first_and_unit_ones_last() -> None:
    missing = [m for m in parallel.SLOW_FIRST if not (TESTS / m).is_file()]
    assert not missing, f"tests/support/parallel.py names modules that are gone: {missing}"
    ranks = [parallel.rank(m) for m in (*parallel.SLOW_FIRST, "integration/read/test_threads.py",
                                        "unit/test_cli.py")]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
