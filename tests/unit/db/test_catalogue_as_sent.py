"""What the store sends for a query is its file with its parts pasted in and its parameters read
from the one map: nothing else of the text changes (graphmem.db.catalogue)."""

from __future__ import annotations

from pathlib import Path

from graphmem.db import catalogue

#: A part that starts with one of these is clauses, pasted as it is; any other is a condition,
#: pasted in parentheses.
CLAUSES = ("CALL", "MATCH", "MERGE", "OPTIONAL", "WITH", "UNWIND")


def _without_comments(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//")).strip()


def _pasted(body: str) -> str:
    """``body`` with each ``{{name}}`` replaced by the text of ``cypher/parts/<name>.cypher``,
    as an editor would paste it (and the parts it names in turn)."""
    while (start := body.find("{{")) >= 0:
        end = body.index("}}", start)
        name = body[start + 2:end]
        text = _pasted(_without_comments(catalogue.cypher_dir() / "parts" / f"{name}.cypher"))
        body = body[:start] + (text if text.startswith(CLAUSES) else f"({text})") + body[end + 2:]
    return body


def _as_sent(body: str) -> str:
    """``body`` with each ``$p`` read as ``$args.p``."""
    out, i = [], 0
    while (j := body.find("$", i)) >= 0:
        out.append(body[i:j] + "$args.")
        i = j + 1
    return "".join(out) + body[i:]


def test_the_statement_sent_is_the_file_with_its_parts_pasted_in() -> None:
    names = sorted(catalogue.names())
    assert len(names) > 100
    for name in names:
        body = _without_comments(catalogue.cypher_dir() / f"{name}.cypher")
        assert catalogue.statement(name) == _as_sent(_pasted(body)), name


def test_a_batch_of_writes_runs_the_single_writes_parts_as_written() -> None:
    """The batch and the single write paste the same part texts, unchanged (no row form: a part
    reads the write from ``w``), and every line of the batch's file is in what is sent, in
    order."""
    sent = catalogue.statement("write/new_batch").splitlines()
    lines = iter(sent)
    for line in _without_comments(catalogue.cypher_dir() / "write/new_batch.cypher").splitlines():
        expected = _as_sent(line.split("{{")[0])
        assert any(got.startswith(expected) for got in lines), line
    for name in ("write_probe", "write_fresh", "record_store"):
        text = catalogue.part(name)
        assert text in catalogue.statement("write/new_batch")
        assert text in catalogue.statement("write/new")
        assert text in catalogue.statement("write/check" if name == "write_probe"
                                           else "records/write" if name == "record_store"
                                           else "write/new")
