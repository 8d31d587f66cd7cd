"""Rewrite citations of documents the repository does not hold into docs pages it does hold.

Code, Cypher comments, tests, the README and the benchmarks used to cite the product spec by
section number ("SPEC section 4 rule 4", "SPEC 7", "SPEC §3", "SPEC.md section 2") and the
issue tracker by number ("(issue 15)", "issue 12 item 1: ..."). This script rewrites the
first into the page and anchor of ``docs/spec/`` that states the rule
(``docs/spec/status.md#superseded``) and drops or rephrases the second. It is mechanical and
idempotent: run it again after merging other branches and it rewrites only what is new.

Usage, from the repository root::

    python tools/cite_docs.py            # rewrite in place, list what changed
    python tools/cite_docs.py --check    # change nothing; exit 1 if anything would change
                                         # or a citation is left that no rule handles
    python tools/cite_docs.py PATH ...   # only these files or folders

Code and Cypher lines a rewrite makes longer than 100 characters are wrapped: a paragraph of
prose (comments, docstrings and other multi-line strings) is filled again within the limit,
as is a changed paragraph that can lose a line that way; a call's arguments are broken after
a comma. A long line left over is reported. Markdown is not wrapped: only its citations
change.
"""

from __future__ import annotations

import argparse
import difflib
import io
import re
import sys
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("graphmem", "cypher", "tests", "bench", "README.md", ".ci/run")
SUFFIXES = {".py", ".cypher", ".md", ".txt", ".toml", ""}
SKIP = {"tools/cite_docs.py"}
#: copies kept equal to a source outside the repository (tests/unit/demo/test_scenario.py)
SKIP_UNDER = ("graphmem/demo/northwind/",)
LIMIT = 100

# ---------------------------------------------------------------------------------------
# Where each section of the spec now lives: page, and anchors by rule/step number.

PAGES: dict[int, str] = {
    1: "docs/spec/index.md",
    2: "docs/spec/records.md",
    3: "docs/spec/eligibility.md",
    4: "docs/spec/status.md",
    5: "docs/spec/read-path.md",
    6: "docs/spec/write-path.md",
    7: "docs/spec/deletion.md",
    8: "docs/spec/intentions.md",
    9: "docs/spec/evaluation.md",
    10: "docs/spec/scale.md",
}
RULES: dict[int, dict[int, str]] = {
    1: {},
    2: {},
    3: {1: "tenant", 2: "clearance", 3: "scope-match", 4: "admitted"},
    4: {1: "retracted", 2: "not-yet-valid", 3: "expired", 4: "superseded", 5: "active"},
    5: {1: "trigger", 2: "query", 3: "candidates", 4: "conflicts", 5: "rank", 6: "partners",
        7: "budget", 8: "render", 9: "attribution"},
    6: {1: "discard", 2: "quarantine", 3: "persist"},
    7: {1: "walk", 2: "dispositions", 3: "apply", 4: "redaction"},
    8: {1: "firing", 2: "exactly-once", 3: "near-miss"},
    9: {1: "funnel", 2: "paired-effect", 3: "fixtures", 4: "fault-injection"},
    10: {1: "routing"},
}
# "SPEC section 5, rank": a step or topic named by a word after the section number.
WORDS: dict[int, dict[str, str]] = {
    2: {"scope": "scope", "prospective": "intentions", "id": "ids", "ids": "ids",
        "field": "fields", "fields": "fields"},
    3: {"rule": "rules"},
    4: {"order": "precedence", "list": "precedence", "statuses": "precedence"},
    5: {word: word for word in RULES[5].values()} | {"precedence": "precedence"},
    6: {"duplicates": "duplicates", "lifecycle": "lifecycle"},
    7: {"lineage": "walk", "redaction": "redaction"},
    9: {"attribution": "funnel", "faults": "fault-injection"},
}
# Data values naming a section: the fault suite's "from" column.
DATA_ANCHORS = {8: "exactly-once", 9: "fault-injection"}

# ---------------------------------------------------------------------------------------
# Patterns. WS is a space that may break a line inside a comment or a docstring.

WS = r"(?:[ \t]+|[ \t]*\n[ \t]*(?:#|//|\*)?[ \t]*)"
NUM = r"\d+(?:[ \t]*[-\u2013][ \t]*\d+)?"
NUMS = rf"{NUM}(?:(?:,{WS}|{WS}and{WS}){NUM})*"
SUB = rf"(?:,?{WS}(?P<subkind>rules?|steps?|items?){WS}(?P<subnums>{NUMS}))"
SPEC = re.compile(
    rf"(?:(?P<prekind>rules?|steps?){WS}(?P<prenums>{NUMS}){WS}of{WS})?"
    rf"SPEC(?:\.md)?(?:{WS}sections?{WS}|[ \t]*§[ \t]*|{WS})"
    rf"(?P<nums>{NUMS})(?![\d.]*\d)"
    rf"(?:{SUB}|(?P<poss>'s)[ \t]+(?P<posword>[a-z]+)|,{WS}(?P<word>[a-z]+)\b)?"
)
# "(section 6)", "section 4 rule 4": the same spec, where a nearby citation named it; never
# the memory chapter's sections ("chapter section 14"), never a number the spec does not have
BARE = re.compile(
    rf"(?:(?P<prekind>rules?|steps?){WS}(?P<prenums>{NUMS}){WS}of{WS})?"
    rf"(?<!chapter )(?<![\w/-])sections?{WS}"
    rf"(?P<nums>{NUMS})(?![\d.]*\d)"
    rf"(?:{SUB}|(?P<poss>'s)[ \t]+(?P<posword>[a-z]+)|,{WS}(?P<word>[a-z]+)\b)?"
)
SPEC_DATA = re.compile(r"(?P<q>[\"'])SPEC (?P<num>\d+)(?P=q)")
SECTION_NOTE = re.compile(r"Section numbers refer to SPEC\.md\.")
LEFTOVER_SPEC = re.compile(
    r"SPEC(?:\.md)?(?:[ \t]+sections?[ \t]+|[ \t]*§[ \t]*|[ \t]+)\d|SPEC\.md")

ITEM = rf"(?:(?:{WS}|,{WS})items?{WS}\d+(?:{WS}and{WS}\d+)?)?"
ISSUE = rf"[Ii]ssues?{WS}#?\d+(?:{WS}and{WS}#?\d+)?{ITEM}"
# Whole sentences or phrases that no general rule reads well; checked first.
PHRASES: list[tuple[str, str]] = [
    (rf"{WS}of{WS}issue{WS}6{WS}were{WS}run", " were run"),
    (rf"Against{WS}the{WS}targets{WS}of{WS}issue{WS}6", "Against the scale targets"),
    (rf"Against{WS}the{WS}targets{WS}of{WS}issue{WS}15", "Against the agent-loop targets"),
    (rf"every{WS}target{WS}of{WS}issue{WS}15{WS}met", "every agent-loop target met"),
    (rf"The{WS}figures{WS}of{WS}issue{WS}6", "The scale figures"),
    (rf"issue{WS}6{WS}were{WS}run", "the scale benchmarks were run"),
    (rf"(?<=the targets)(?P<ws>{WS})of{WS}issue{WS}16", r"\g<ws>for retrieval"),
    (rf"issue{WS}6{WS}measures{WS}imports", "bench/scale.py measures imports"),
    (rf"issue{WS}6's{WS}import{WS}benchmark", "the import benchmark (bench/scale.py)"),
    (rf"the{WS}agent{WS}loop{WS}of{WS}issue{WS}15", "the agent loop of bench/agent_loop.py"),
    (rf"\(issue{WS}15's{WS}breaker{WS}found", "(a breaker found"),
    (rf"Issue{WS}12{WS}item{WS}1,{WS}verbatim\.", "A leak of a name in free text."),
]
ISSUE_RULES: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    # "(issue 17)", "(issue 11, item 5)": gone, with the space before it (or the line break
    # before it, when it starts a line)
    (rf"(?:[ \t]*|[ \t]*\n[ \t]*(?:#|//)?[ \t]*)\({ISSUE}\)", ""),
    # "(issue 16: time in the text)", "(issue 2, SPEC ...)": keep what follows
    (rf"\({ISSUE}(?:[:;,]|{WS}-){WS}", "("),
    # "(docs/spec/deletion.md, issue 12 item 1)", "(...; issue 17)": keep what precedes
    (rf"[ \t]*[,;:]{WS}{ISSUE}(?=[ \t]*\))", ""),
    # "...; issue 15: writers ..." inside a parenthesis
    (rf"(?P<sep>[,;]){WS}{ISSUE}[:,]{WS}", r"\g<sep> "),
    # a sentence that starts with "Issue 16: ..." or "Issue 15, write slots: ..."
    (rf"(?P<lead>^|\"\"\"|#[ \t]|//[ \t])[ \t]*{ISSUE}(?:[:,.]|{WS}-)[ \t]*(?P<c>\w)",
     lambda m: m["lead"] + (m["c"] if m.string.startswith("docs/", m.start("c"))
                            else m["c"].upper())),
]
LEFTOVER_ISSUE = re.compile(r"\b[Ii]ssues?[ \t]+#?\d+")


def _numbers(text: str) -> list[int]:
    """``"4-6, 8 and 9"`` -> [4, 5, 6, 8, 9]."""
    out: list[int] = []
    for part in re.split(r"\s*(?:,|\band\b)\s*", re.sub(r"\s+", " ", text)):
        bounds = [int(n) for n in re.findall(r"\d+", part)]
        if len(bounds) == 2:
            out.extend(range(bounds[0], bounds[1] + 1))
        elif bounds:
            out.append(bounds[0])
    return out


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _sections(nums: list[int]) -> str:
    """The page (or pages) of whole sections; sections 3 and 4 together are one rule."""
    if not nums or any(n not in PAGES for n in nums):
        raise ValueError(f"no page for SPEC section(s) {nums}")
    links: list[str] = []
    for n in nums:
        if n == 4 and 3 in nums:
            continue
        links.append(f"{PAGES[3]}#eligible-and-active" if n == 3 and 4 in nums else PAGES[n])
    return _join(links)


def spec_citation(m: re.Match[str]) -> str:
    """The docs path (and anchor) that replaces one SPEC citation."""
    nums = _numbers(m["nums"])
    subnums = _numbers(m["subnums"] or m["prenums"] or "")
    if len(nums) == 1 and len(subnums) == 1 and subnums[0] in RULES[nums[0]]:
        return f"{PAGES[nums[0]]}#{RULES[nums[0]][subnums[0]]}"
    if len(nums) == 1 and m["word"]:
        anchor = WORDS.get(nums[0], {}).get(m["word"])
        if anchor:
            link = f"{PAGES[nums[0]]}#{anchor}"
            # "SPEC section 5, rank": the anchor names the step; other words stay
            return link if anchor == m["word"] else f"{link}, {m['word']}"
    tail = ""
    if m["word"]:
        tail = f", {m['word']}"
    elif m["poss"]:
        tail = f"'s {m['posword']}"
    elif m["subkind"]:
        # several rules or steps: the page, and which of them in words
        which = " ".join(m["subnums"].split())
        tail = f", {m['subkind']} {which}"
    return _sections(nums) + tail


def _spec_column(text: str) -> str:
    """A Markdown table with a "SPEC" column of section numbers: the numbers become pages."""
    lines = text.split("\n")
    column = -1
    for i, line in enumerate(lines):
        cells = line.split("|")
        if not line.startswith("|"):
            column = -1
        elif column < 0 and [c.strip() for c in cells].count("SPEC") == 1:
            column = [c.strip() for c in cells].index("SPEC")
            cells[column] = " spec "
        elif column > 0 and len(cells) > column and re.fullmatch(r"\d[\d\s,\u2013-]*",
                                                                cells[column].strip()):
            cells[column] = f" {_sections(_numbers(cells[column]))} "
        lines[i] = "|".join(cells)
    return "\n".join(lines)


def rewrite_spec(text: str) -> str:
    text = SECTION_NOTE.sub("Citations name pages of docs/spec/.", text)
    text = text.replace("in SPEC order", "in the order of docs/spec/status.md#precedence")
    text = _spec_column(text)
    text = SPEC_DATA.sub(
        lambda m: f"{m['q']}{PAGES[int(m['num'])]}#{DATA_ANCHORS[int(m['num'])]}{m['q']}"
        if int(m["num"]) in DATA_ANCHORS else m[0], text)
    text = re.sub(r"\| SPEC (\d+) \|",
                  lambda m: f"| {PAGES[int(m[1])]}#{DATA_ANCHORS[int(m[1])]} |"
                  if int(m[1]) in DATA_ANCHORS else m[0], text)
    text = SPEC.sub(spec_citation, text)
    return BARE.sub(lambda m: spec_citation(m)
                    if all(n in PAGES for n in _numbers(m["nums"])) else m[0], text)


def rewrite_issues(text: str) -> str:
    for pattern, repl in PHRASES:
        text = re.sub(pattern, repl, text)
    for pattern, rule in ISSUE_RULES:
        text = re.compile(pattern, re.MULTILINE).sub(rule, text)
    return text


# ---------------------------------------------------------------------------------------
# Wrapping prose lines that a rewrite made too long.

@dataclass(frozen=True)
class Prose:
    """A line that is prose: its first-line prefix and the prefix of a continuation."""

    prefix: str
    continuation: str


def _python_prose(lines: list[str]) -> dict[int, Prose]:
    out: dict[int, Prose] = {}
    source = "".join(lines)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            line = lines[row - 1]
            if line[:col].strip() == "":
                prefix = line[:col] + "# "
                out[row - 1] = Prose(prefix, prefix)
        elif tok.type == tokenize.STRING and (
                tok.start[0] != tok.end[0]
                or (tok.string.startswith(('"""', "'''"))
                    and lines[tok.start[0] - 1][:tok.start[1]].strip() == "")):
            indent = re.match(r"[ \t]*", lines[tok.start[0] - 1])
            out.setdefault(tok.start[0] - 1, Prose("", indent[0] if indent else ""))
            for row in range(tok.start[0] + 1, tok.end[0] + 1):
                # a continuation lines up with its own line, under a list item's text
                lead = re.match(r"[ \t]*(?:[-*] |\d+\. )?", lines[row - 1])
                out.setdefault(row - 1, Prose("", " " * len(lead[0]) if lead else ""))
    return out


def _comment_prose(lines: list[str], marker: str) -> dict[int, Prose]:
    out: dict[int, Prose] = {}
    for i, line in enumerate(lines):
        m = re.match(rf"([ \t]*{re.escape(marker)}[ \t]?)", line)
        if m:
            out[i] = Prose(m[1], m[1])
    return out


def prose_lines(path: Path, lines: list[str]) -> dict[int, Prose]:
    if path.suffix == ".py":
        return _python_prose(lines)
    if path.suffix == ".cypher":
        return _comment_prose(lines, "//")
    return _comment_prose(lines, "#")


def _starts_paragraph(body: str) -> bool:
    """Whether a line begins something of its own: a list item, a field of an ``Args:`` or
    ``Attributes:`` list (``name: text``, ``name (type): text``), a section, a quote."""
    return (not body.strip() or body.lstrip().startswith(("-", "*", '"""', "'''", ":", ">", "|"))
            or bool(re.match(r"\s*(\d+[.)]|(``[^`]+``|[\w.*]+)( \([^)]*\))?:(\s|$))", body)))


def _wrap_call(lines: list[str], i: int) -> bool:
    """Break a long line of Python code after an argument's comma, aligned with the bracket."""
    body = lines[i].rstrip("\n")
    quote = ""
    opened: list[int] = []
    best: tuple[int, int] | None = None
    for col, char in enumerate(body):
        if quote:
            if char == quote and body[col - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "([{":
            opened.append(col)
        elif char in ")]}" and opened:
            opened.pop()
        elif char == "," and opened and col < LIMIT and body[col + 1:col + 2] == " ":
            best = (col + 1, opened[-1] + 1)
    if best is None:
        return False
    cut, indent = best
    lines[i] = body[:cut] + "\n"
    lines.insert(i + 1, " " * indent + body[cut:].lstrip() + "\n")
    return True


def _wrap_line(path: Path, lines: list[str], i: int) -> bool:
    """Wrap ``lines[i]`` in place if it is prose; False if it is not (or cannot be)."""
    body = lines[i].rstrip("\n")
    ruler = re.search(r" ([-=])\1{3,}$", body)
    if ruler and len(body) - LIMIT < len(ruler[0]) - 4:
        lines[i] = body[:LIMIT] + "\n"  # a comment ruler ("# -- read path ----"): shorter
        return True
    prose = prose_lines(path, lines)
    if i not in prose:
        return path.suffix == ".py" and _wrap_call(lines, i)
    return _refill(lines, i, prose)


def _continues(lines: list[str], j: int, prose: dict[int, Prose], cont: str) -> bool:
    """Whether ``lines[j]`` goes on with the paragraph of the line above it."""
    if j not in prose or prose[j].continuation != cont:
        return False
    body = lines[j].rstrip("\n")
    rest = body[len(cont):]
    above = lines[j - 1].rstrip() if j > 0 else ""
    # a sentence the author began on a line of its own (or a "$param: ..." line) stays there
    own_line = rest[:1] == "$" or (above.endswith((".", ":")) and rest[:1].isupper())
    return (body.startswith(cont) and bool(rest.strip()) and not rest[0].isspace()
            and not _starts_paragraph(rest) and not own_line)


RISKY_START = re.compile(r"[-*+>|#]|\d+[.)]$|[A-Z][a-z]+:$|\"\"\"|'''")


def _refill(lines: list[str], i: int, prose: dict[int, Prose], shrink_only: bool = False
            ) -> bool:
    """Fill the paragraph around ``lines[i]`` again, greedily, within LIMIT; with
    ``shrink_only``, only if that makes it shorter."""
    cont = prose[i].continuation
    top = i
    while top > 0 and _continues(lines, top, prose, cont) and top - 1 in prose \
            and prose[top - 1].continuation == cont and re.search(r"\w", lines[top - 1]):
        top -= 1
    end = i
    while end + 1 < len(lines) and _continues(lines, end + 1, prose, cont):
        end += 1
    first = lines[top].rstrip("\n")
    lead = re.match(r"[ \t]*(?:(?:#|//)[ \t]?)?", first)
    prefix = lead[0] if lead else ""
    words = first[len(prefix):].split()
    for j in range(top + 1, end + 1):
        words.extend(lines[j].rstrip("\n")[len(cont):].split())
    filled: list[str] = []
    current = prefix + words[0]
    line_words = 1
    for word in words[1:]:
        if len(current) + 1 + len(word) <= LIMIT:
            current += " " + word
            line_words += 1
            continue
        carry = ""
        if RISKY_START.match(word) and line_words > 1:
            # a line must not start like a list item, a heading or a quote: take one more
            current, _, carry = current.rpartition(" ")
        filled.append(current)
        current = cont + (f"{carry} " if carry else "") + word
        line_words = 2 if carry else 1
    filled.append(current)
    new = [f"{line}\n" for line in filled]
    if new == lines[top:end + 1] or (shrink_only and len(new) >= end + 1 - top):
        return False
    lines[top:end + 1] = new
    return True


def wrap(path: Path, text: str, changed: set[int]) -> str:
    """Wrap changed prose lines over LIMIT (and refill changed paragraphs that can lose a
    line)."""
    lines = text.splitlines(keepends=True)
    # bottom up, so that a line inserted below never shifts a line still to do
    for start in sorted(changed, reverse=True):
        i = start
        if i < len(lines) and len(lines[i].rstrip("\n")) <= LIMIT:
            # a citation that got shorter: fill its paragraph again only if that saves a line
            prose = prose_lines(path, lines)
            if i in prose:
                _refill(lines, i, prose, shrink_only=True)
            continue
        while i < len(lines) and len(lines[i].rstrip("\n")) > LIMIT:
            if not _wrap_line(path, lines, i):
                break
            i += 1
    return "".join(lines)


def changed_lines(old: str, new: str) -> set[int]:
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    out: set[int] = set()
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out.update(range(j1, j2))
    return out


# ---------------------------------------------------------------------------------------

def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it."""
    return (path.relative_to(ROOT) if path.is_relative_to(ROOT) else path).as_posix()


def files(paths: Iterable[Path]) -> Iterable[Path]:
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if (child.is_file() and child.suffix in SUFFIXES
                        and "__pycache__" not in child.parts):
                    yield child
        elif path.is_file():
            yield path


def rewrite_file(path: Path) -> tuple[str, str, list[str]]:
    """``(old, new, problems)`` for one file."""
    try:
        old = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return "", "", []
    new = rewrite_issues(rewrite_spec(old))
    if path.suffix != ".md":  # Markdown has no line limit: its edits stay the citations'
        new = wrap(path, new, changed_lines(old, new))
    rel = _shown(path)
    lines = new.splitlines()
    problems = [f"{rel}:{i + 1}: {len(lines[i])} characters"
                for i in sorted(changed_lines(old, new))
                if len(lines[i]) > LIMIT and path.suffix != ".md"]
    for i, line in enumerate(new.splitlines()):
        for pattern in (LEFTOVER_SPEC, LEFTOVER_ISSUE):
            for m in pattern.finditer(line):
                problems.append(f"{rel}:{i + 1}: no rule rewrites {m[0]!r}: {line.strip()}")
    return old, new, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if a file would change or a citation "
                             "is left that no rule rewrites")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.paths] or [ROOT / t for t in TARGETS]
    would_change: list[str] = []
    problems: list[str] = []
    for path in files(paths):
        rel = _shown(path)
        if rel in SKIP or rel.startswith(SKIP_UNDER):
            continue
        old, new, found = rewrite_file(path)
        problems.extend(found)
        if new != old:
            would_change.append(rel)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "would rewrite" if args.check else "rewrote"
    for rel in would_change:
        print(f"{verb} {rel}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(would_change)} file(s) {verb}; {len(problems)} left for a person",
          file=sys.stderr)
    return 1 if problems or (args.check and would_change) else 0


if __name__ == "__main__":
    sys.exit(main())
