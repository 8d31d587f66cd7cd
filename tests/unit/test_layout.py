"""The layout shows the architecture: domain subpackages, every module readable in
one sitting, no file name repeating its package's name, few modules at the root; the Cypher
queries in folders by concern the same way."""

from __future__ import annotations

from pathlib import Path

from graphmem.db import catalogue as cypher

PACKAGE = Path(__file__).resolve().parents[2] / "graphmem"
CYPHER = PACKAGE.parent / "cypher"
#: Parts are named for the queries that share them (``record_live``), not grouped by concern.
CYPHER_PARTS = CYPHER / "parts"
MAX_LINES = 450
MAX_ROOT_MODULES = 10


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_450_lines() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_file_name_repeats_its_package_name() -> None:
    repeats = [str(p.relative_to(PACKAGE)) for p in _modules()
               if p.parent != PACKAGE and p.stem.startswith(p.parent.name + "_")]
    assert not repeats


def test_few_modules_directly_in_the_package() -> None:
    root = [p.name for p in PACKAGE.glob("*.py")]
    assert len(root) <= MAX_ROOT_MODULES, root


def _crowded_prefixes(files: list[Path]) -> dict[str, int]:
    """The name prefixes (up to the first ``_``, a plural counted with its singular: ``record_``
    and ``records_``) that three or more of the sibling ``files`` share."""
    prefixes: dict[str, int] = {}
    for p in files:
        if "_" in p.stem.strip("_"):
            prefix = p.stem.strip("_").split("_")[0].removesuffix("s")
            prefixes[prefix] = prefixes.get(prefix, 0) + 1
    return {k: v for k, v in prefixes.items() if v >= 3}


def test_no_prefix_repeats_across_sibling_modules() -> None:
    """A prefix shared by three or more sibling modules (``eval_a``, ``eval_b``, ``eval_c``)
    is a folder trying to get out."""
    for folder in {p.parent for p in _modules()}:
        crowded = _crowded_prefixes(list(folder.glob("*.py")))
        assert not crowded, (folder, crowded)


def _cypher_folders(root: Path) -> list[Path]:
    """``root`` and every folder in it that holds queries (all but the parts folder)."""
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    return sorted(f for f in folders if f != root / CYPHER_PARTS.name)


def test_no_prefix_repeats_across_sibling_queries() -> None:
    """The same for the query files: ``deletion_walk.cypher``, ``deletion_mark.cypher``, ...
    in one folder are ``cypher/deletion/`` (walk.cypher, mark.cypher, ...)."""
    folders = _cypher_folders(CYPHER)
    queries = [p for folder in folders for p in folder.glob("*.cypher")]
    assert len(queries) == len(cypher.names()), "every query file, and no part, is checked"
    for folder in folders:
        crowded = _crowded_prefixes(list(folder.glob("*.cypher")))
        assert not crowded, (folder, crowded)
