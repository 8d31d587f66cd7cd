r"""The fenced code blocks of README.md and of every ``docs/**/*.md`` page, and the markers
before them: what tests/unit/test_readme.py checks and tests/integration/docs/test_pages_run.py
runs.

Why a collector of our own: pytest-examples (the maintained tool for this) runs only Python
blocks, one at a time, found by a regular expression; it neither runs shell blocks, nor
sees a marker before a block, nor lets one block continue another. So the blocks are found
with markdown-it-py (a maintained CommonMark parser, already a dependency of rich), and this
tests/integration/docs/test_pages_run.py runs them.

Conventions (an HTML comment on the line just before a block; GitHub does not show it):

- ```` ```python ````: runs in a fresh namespace. ``<!-- continues -->`` before it runs it
  in the namespace the previous Python block left (say so in the prose, too).
- ```` ```bash ```` (or ``sh``, ``shell``): each command (a line, with ``\`` continuations;
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

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: The pages whose blocks run: the README, then every Markdown page under docs/.
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
PYTHON = ("python", "py", "python3")
SHELL = ("bash", "sh", "shell")
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->", re.S)
CONTINUES = re.compile(r"<!--\s*continues\s*-->")
OUTPUT = re.compile(r"<!--\s*output\s*-->")
EXIT = re.compile(r"\s#\s*exit (?P<code>\d+)(?::|\s*$)")


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
