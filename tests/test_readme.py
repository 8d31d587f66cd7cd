"""The README and every page of docs/ are walkthroughs that run, top to bottom, in CI.

Every fenced code block of README.md and of each ``docs/**/*.md`` page runs here, page by
page (one test each), in file order, as a reader would run it, against the test session's
throwaway Neo4j (tests/conftest.py; the CLI and ``Memory.connect()`` reach it through
NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE), in a temporary working folder
of the page's own, shared by its blocks. The database is empty at the start of each page:
it holds what the page's own blocks put there (``graphmem scenario load northwind`` for
the walkthroughs). A page with no block to run needs no database.

Why a collector of our own: pytest-examples (the maintained tool for this) runs only Python
blocks, one at a time, found by a regular expression; it neither runs shell blocks, nor
sees a marker before a block, nor lets one block continue another. So the blocks are found
with markdown-it-py (a maintained CommonMark parser, already a dependency of rich), and this
module runs them.

Conventions (an HTML comment on the line just before a block; GitHub does not show it):

- ```` ```python ````: runs in a fresh namespace. ``<!-- continues -->`` before it runs it
  in the namespace the previous Python block left (say so in the prose, too).
- ```` ```bash ```` (or ``sh``, ``shell``): each command (a line, with ``\\`` continuations;
  blank and comment lines skipped) runs with ``bash -c`` in the working folder, one after the
  other; files are the only state they share. A command must exit 0, or the code its
  trailing comment states as ``# exit N`` or ``# exit N: why``.
- ``<!-- not run: REASON -->``: the block is not run, and REASON says why (client
  configuration, a snippet for another framework, set-up that installs or clones, a
  long benchmark, a synopsis with placeholders).
- ``<!-- output -->`` before a block (``text``): what the previous Python block prints;
  the test compares them (trailing spaces ignored), so a shown output stays true.
- Any other block (``json``, ``text``, no language) must carry ``not run``: the test fails
  for an unmarked block it cannot run, so a block added later is either runnable or
  visibly marked.

A failure names the page and the block's line (``docs/guide/privacy-teams.md:LINE``);
Python tracebacks carry the page's line numbers.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from graphmem.client import Memory

from .conftest import Neo4jUnderTest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The pages whose blocks run: the README, then every Markdown page under docs/.
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
PYTHON = ("python", "py", "python3")
SHELL = ("bash", "sh", "shell")
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->", re.S)
CONTINUES = re.compile(r"<!--\s*continues\s*-->")
OUTPUT = re.compile(r"<!--\s*output\s*-->")
EXIT = re.compile(r"\s#\s*exit (?P<code>\d+)(?::|\s*$)")
COMMAND_TIMEOUT_S = 300


@dataclass(frozen=True)
class Block:
    """A fenced block of a Markdown file: its language, first line (1-based, the fence),
    source, what the marker before it says, and the page it is on (relative to the
    repository)."""

    line: int
    lang: str
    source: str
    skip_reason: str | None = None
    continues: bool = False
    output: bool = False
    page: str = "README.md"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def page_name(path: Path) -> str:
    """A page's path relative to the repository, as failures name it."""
    return path.relative_to(ROOT).as_posix()


def blocks(text: str, page: str = "README.md") -> list[Block]:
    """The fenced blocks of ``text`` (the page ``page``) in order, with their markers.

    Raises:
        ValueError: a block that cannot run and is not marked ``not run``, or a malformed
            marker (``not run`` without a reason, ``continues`` on a non-Python block or
            before the first Python block).
    """
    tokens = MarkdownIt("commonmark").parse(text)
    out: list[Block] = []
    seen_python = False
    for i, tok in enumerate(tokens):
        if tok.type != "fence":
            continue
        assert tok.map is not None
        line = tok.map[0] + 1
        lang = tok.info.strip().split(" ")[0].lower()
        marker = tokens[i - 1].content if i and tokens[i - 1].type == "html_block" else ""
        if "not run" in marker and not NOT_RUN.search(marker):
            raise ValueError(f"{page}:{line}: write `<!-- not run: REASON -->` with a reason")
        skip = NOT_RUN.search(marker)
        continues = bool(CONTINUES.search(marker))
        output = bool(OUTPUT.search(marker))
        if output and not seen_python:
            raise ValueError(f"{page}:{line}: `<!-- output -->` needs an earlier Python block")
        if skip is None and not output and lang not in PYTHON + SHELL:
            raise ValueError(
                f"{page}:{line}: a ```{lang or '(no language)'} block cannot run: mark it "
                "`<!-- not run: REASON -->` on the line before, or make it python/bash")
        if continues and (lang not in PYTHON or not seen_python):
            raise ValueError(f"{page}:{line}: `<!-- continues -->` needs a Python block "
                             "after an earlier Python block")
        if skip is None and lang in PYTHON:
            seen_python = True
        out.append(Block(line=line, lang=lang, source=tok.content,
                         skip_reason=skip.group("reason") if skip else None,
                         continues=continues, output=output, page=page))
    return out


def shell_commands(block: Block) -> list[tuple[int, str, int]]:
    """(page line, command, expected exit code) for each command of a shell block."""
    out: list[tuple[int, str, int]] = []
    pending: list[str] = []
    start = 0
    for offset, raw in enumerate(block.source.splitlines()):
        if not pending and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        if not pending:
            start = block.line + 1 + offset
        pending.append(raw)
        if raw.rstrip().endswith("\\"):
            continue
        command = "\n".join(pending)
        pending = []
        match = EXIT.search(command.splitlines()[-1])
        out.append((start, command, int(match.group("code")) if match else 0))
    return out


# -- the conventions themselves (no database) ---------------------------------------------


def test_the_marker_conventions_are_enforced() -> None:
    good = ("<!-- not run: client configuration -->\n```json\n{}\n```\n\n"
            "```python\nx = 1\n```\n\n<!-- continues -->\n```python\nprint(x)\n```\n\n"
            "<!-- output -->\n```text\n1\n```\n\n"
            "```bash\ngraphmem stats   # exit 3: no database\ngraphmem a \\\n  b\n```\n")
    found = blocks(good)
    assert [(b.lang, b.skip_reason, b.continues) for b in found] == [
        ("json", "client configuration", False), ("python", None, False),
        ("python", None, True), ("text", None, False), ("bash", None, False)]
    assert found[3].output
    assert shell_commands(found[4]) == [(21, "graphmem stats   # exit 3: no database", 3),
                                        (22, "graphmem a \\\n  b", 0)]
    for bad, why in [("```json\n{}\n```\n", "cannot run"),
                     ("```\ndiagram\n```\n", "no language"),
                     ("<!-- not run -->\n```json\n{}\n```\n", "with a reason"),
                     ("<!-- continues -->\n```python\nx\n```\n", "continues")]:
        with pytest.raises(ValueError, match=why):
            blocks(bad)
    with pytest.raises(ValueError, match=r"^some/page\.md:1: "):
        blocks("```json\n{}\n```\n", "some/page.md")


def _runs_something(path: Path) -> bool:
    """Whether a page has a block to run (a page the parser refuses counts: its run fails)."""
    try:
        found = blocks(path.read_text(encoding="utf-8"), page_name(path))
    except ValueError:
        return True
    return any(b.skip_reason is None and not b.output for b in found)


@pytest.mark.parametrize("path", PAGES, ids=page_name)
def test_every_block_runs_or_says_why_not(path: Path) -> None:
    blocks(path.read_text(encoding="utf-8"), page_name(path))


def test_the_readme_runs_python_and_shell() -> None:
    found = blocks(README.read_text(encoding="utf-8"))
    assert any(b.skip_reason is None and b.lang in PYTHON for b in found)
    assert any(b.skip_reason is None and b.lang in SHELL for b in found)


def _anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as MkDocs (Python-Markdown's toc) makes them."""
    tokens = MarkdownIt("commonmark").parse(text)
    out = set()
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            content = tokens[i + 1].content
            explicit = re.search(r"\{#([\w-]+)\}\s*$", content)  # attr_list's {#anchor}
            if explicit:
                out.add(explicit.group(1))
                continue
            title = re.sub(r"[`*_]", "", content)
            title = re.sub(r"[^\w\s-]", "", title).strip().lower()
            out.add(re.sub(r"[-\s]+", "-", title))
    return out


def _links(text: str) -> list[str]:
    """Every link and image target of a page."""
    found: list[str] = []
    for tok in MarkdownIt("commonmark").parse(text):
        for child in tok.children or ():
            target = child.attrGet("href") or child.attrGet("src")
            if isinstance(target, str):
                found.append(target)
    return found


@pytest.mark.parametrize("path", PAGES, ids=page_name)
def test_every_link_between_pages_resolves(path: Path) -> None:
    for target in _links(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        assert dest.exists(), f"{page_name(path)}: {target} does not exist"
        if anchor:
            assert anchor in _anchors(dest.read_text(encoding="utf-8")), \
                f"{page_name(path)}: {target}: no such heading"


# -- the walkthroughs -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [p for p in PAGES if _runs_something(p)], ids=page_name)
def test_the_page_runs_top_to_bottom(path: Path, memory: Memory, neo4j_db: Neo4jUnderTest,
                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = neo4j_db.settings
    env = {"NEO4J_URI": s.uri, "NEO4J_USER": s.user, "NEO4J_PASSWORD": s.password,
           "NEO4J_DATABASE": s.database, "COLUMNS": "120",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GRAPHMEM_NORTHWIND", raising=False)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    printed = ""
    for block in blocks(path.read_text(encoding="utf-8"), page_name(path)):
        if block.skip_reason is not None:
            continue
        if block.output:
            if _lines(printed) != _lines(block.source):
                pytest.fail(f"{block.where}: the page shows an output the block above does "
                            f"not print; it prints:\n{printed}", pytrace=False)
        elif block.lang in PYTHON:
            if not block.continues:
                namespace = {"__name__": "__readme__"}
            printed = _run_python(block, path, namespace)
        else:
            for line, command, expected in shell_commands(block):
                _run_shell(f"{block.page}:{line}", command, expected, tmp_path)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _run_python(block: Block, path: Path, namespace: dict[str, Any]) -> str:
    """Run a Python block of the page at ``path``; what it printed."""
    # padded so that tracebacks show the page's line numbers
    code = compile("\n" * block.line + block.source, str(path), "exec")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
    except Exception:
        pytest.fail(f"{block.where}: the Python block failed:\n{traceback.format_exc()}\n"
                    f"--- printed\n{out.getvalue()}", pytrace=False)
    return out.getvalue()


def _run_shell(where: str, command: str, expected: int, cwd: Path) -> None:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S, check=False)
    if done.returncode != expected:
        pytest.fail(f"{where}: `{command}` exited {done.returncode}, the page says "
                    f"{expected}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n"
                    f"{done.stderr[-4000:]}", pytrace=False)
