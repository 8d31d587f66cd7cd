"""The documentation site builds, and every citation of a docs page names a page and heading
that exist: the code, the Cypher files, the tests and the README cite a page of ``docs/`` and
a heading anchor, never a document the repository does not hold (the product spec by section
number, the issue tracker by number). No database needed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CITING = [ROOT / "graphmem", ROOT / "cypher", ROOT / "tests", ROOT / "README.md"]
CITATION = re.compile(r"\bdocs/((?:[\w.-]+/)*[\w.-]+\.md)(?:#([\w-]+))?")
# What the rewriting script turns into docs paths; written so that it does not match itself.
SPEC_NUMBER = re.compile(r"\bSPEC(?:\.md)?(?:[ \t]+sections?[ \t]+|[ \t]*§[ \t]*|[ \t]+)\d")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues?[ \t]+#?\d+")
HEADING = re.compile(r"^#{1,6}[ \t]+(?P<text>.*?)(?:[ \t]*\{#(?P<id>[\w-]+)\})?[ \t]*$")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


#: the packaged northwind scenario is a copy of the shared input, kept byte for byte
#: (tests/unit/demo/test_scenario.py); it cites the product spec as its authors wrote it
COPIES = ROOT / "graphmem" / "demo" / "northwind"


def _sources() -> list[Path]:
    out: list[Path] = []
    for path in CITING:
        if path.is_file():
            out.append(path)
        else:
            out.extend(p for p in sorted(path.rglob("*"))
                       if p.suffix in (".py", ".cypher", ".md") and "__pycache__" not in p.parts
                       and not p.is_relative_to(COPIES))
    return out


def _slug(text: str) -> str:
    """The anchor Python-Markdown's ``toc`` extension gives a heading without an explicit id."""
    text = re.sub(r"[`*]", "", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The heading anchors of a Markdown page (outside code fences)."""
    found: set[str] = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            found.add(m["id"] or _slug(m["text"]))
    return found


def test_slug_matches_the_toc_extension() -> None:
    assert _slug("What a twin with a later stamp means") == "what-a-twin-with-a-later-stamp-means"
    assert _slug("Scope keys an adapter reserves") == "scope-keys-an-adapter-reserves"
    assert _slug("The erasure certificate") == "the-erasure-certificate"
    assert _slug("A server graphmem does not run (`NEO4J_URI`)") == (
        "a-server-graphmem-does-not-run-neo4j_uri")


def test_every_cited_docs_page_and_anchor_exists() -> None:
    broken: list[str] = []
    cited = 0
    for source in _sources():
        text = source.read_text(encoding="utf-8")
        for m in CITATION.finditer(text):
            cited += 1
            page = DOCS / m[1]
            where = f"{source.relative_to(ROOT)}: docs/{m[1]}" + (f"#{m[2]}" if m[2] else "")
            if not page.is_file():
                broken.append(f"{where}: no such page")
            elif m[2] and m[2] not in anchors(page):
                broken.append(f"{where}: no such heading")
    assert cited > 100  # the code does cite the docs
    assert broken == []


def test_spec_pages_have_stable_anchors() -> None:
    """Every section heading of the specification sets its anchor, so rewording a heading
    never breaks a citation."""
    loose = [f"{page.name}: {line}" for page in sorted((DOCS / "spec").glob("*.md"))
             for line in page.read_text(encoding="utf-8").splitlines()
             if re.match(r"#{2,6} ", line) and not re.search(r"\{#[\w-]+\}\s*$", line)]
    assert loose == []


def test_nothing_cites_a_document_the_repository_does_not_hold() -> None:
    left = [f"{source.relative_to(ROOT)}:{n}: {line.strip()}"
            for source in [*_sources(), *sorted(DOCS.rglob("*.md"))]
            for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1)
            if SPEC_NUMBER.search(line) or ISSUE_NUMBER.search(line)]
    assert left == []


def _run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "cite_docs.py"), *args],
                          capture_output=True, text=True, check=False, cwd=ROOT)


def test_the_rewriting_script_has_nothing_left_to_do() -> None:
    """Idempotent, and nothing in the repository is left for it (README and bench included)."""
    done = _run_script("--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_rewriting_script_rewrites_each_form(tmp_path: Path) -> None:
    spec, issue, section = "SP" + "EC", "iss" + "ue", "sec" + "tion"
    source = tmp_path / "sample.py"
    source.write_text(
        f'"""One ({spec} {section} 4 rule 4) and ({spec} §3; {issue} 12 item 1).\n\n'
        f'{spec} {section}s 3-4 hold ({issue} 15: the loop); see {spec} 5, step 7.\n"""\n\n'
        f'# {issue.capitalize()} 16: a comment ({spec}.md {section} 2)\n'
        f'X = 1  # kept as an {issue}, not a number ({spec} 8, rule 2)\n',
        encoding="utf-8")
    assert _run_script(str(source)).returncode == 0
    assert source.read_text(encoding="utf-8") == (
        '"""One (docs/spec/status.md#superseded) and (docs/spec/eligibility.md).\n\n'
        "docs/spec/eligibility.md#eligible-and-active hold (the loop); see "
        "docs/spec/read-path.md#budget.\n"
        '"""\n\n'
        "# A comment (docs/spec/records.md)\n"
        f"X = 1  # kept as an {issue}, not a number (docs/spec/intentions.md#exactly-once)\n")
    again = _run_script("--check", str(source))
    assert again.returncode == 0, again.stdout + again.stderr


def test_site_builds_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None:
        if _in_ci():
            pytest.fail("mkdocs is a dev dependency: pip install -e '.[dev]'")
        pytest.skip("mkdocs is not installed (pip install -e '.[dev]')")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
        capture_output=True, text=True, check=False, cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert built.returncode == 0, built.stdout + built.stderr
    page = (tmp_path / "site" / "spec" / "status" / "index.html").read_text(encoding="utf-8")
    assert 'id="superseded"' in page
