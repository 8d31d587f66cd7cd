"""The README and every page of docs/ are walkthroughs that run, top to bottom, in CI
(tests/integration/docs/test_pages_run.py runs them against Neo4j). Checked here without a
database: the marker conventions (tests/support/pages.py), every block runs or says why not,
the README runs Python and shell, and every link between pages resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.support.pages import (
    PAGES,
    PYTHON,
    README,
    SHELL,
    blocks,
    page_name,
    shell_commands,
)

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


