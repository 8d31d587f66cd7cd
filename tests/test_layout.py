"""The layout shows the architecture (issue 10): domain subpackages, every module readable in
one sitting, no file name repeating its package's name, few modules at the root."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "graphmem"
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


def test_no_prefix_repeats_across_sibling_modules() -> None:
    """A prefix shared by three or more sibling modules (``eval_a``, ``eval_b``, ``eval_c``)
    is a folder trying to get out."""
    for folder in {p.parent for p in _modules()}:
        prefixes: dict[str, int] = {}
        for p in folder.glob("*.py"):
            if "_" in p.stem.strip("_"):
                prefix = p.stem.strip("_").split("_")[0]
                prefixes[prefix] = prefixes.get(prefix, 0) + 1
        crowded = {k: v for k, v in prefixes.items() if v >= 3}
        assert not crowded, (folder, crowded)
