"""Record status precedence is one rule (docs/status.md): the Python statement
(graphmem.models.Status) and the Cypher one (cypher/parts/record_status.cypher) give one
order, and no query spells a status out but through the part. No database."""

from __future__ import annotations

import re

from graphmem.db import catalogue as cypher
from graphmem.db.stats import CALLER_STATUSES
from graphmem.db.stats import RECORD_STATUSES as STATS_STATUSES
from graphmem.models import Status

RECORD_STATUSES = tuple(Status(s) for s in STATS_STATUSES)
#: The statuses a record property of the same name (lower case) decides.
STATUS_FLAGS = {s: s.value.lower() for s in
                (Status.ERASED, Status.QUARANTINED, Status.PENDING_RECOMPUTE, Status.RETRACTED)}

_THEN = re.compile(r"\b(?:THEN|ELSE)\s+'([A-Z_]+)'")
_FLAG = re.compile(r"WHEN\s+r\.([a-z_]+)\s+THEN\s+'([A-Z_]+)'")
_ANY_STATUS = re.compile(r"'(" + "|".join(s.value for s in Status) + r")'")
#: The queries that give a record's status, each through the part.
STATUS_QUERIES = ("explain", "stats/records", "lineage/nodes")


def _raw(name: str) -> str:
    """A query's file text without comment lines, its parts not put in."""
    text = (cypher.cypher_dir() / f"{name}.cypher").read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def test_the_part_states_the_python_order() -> None:
    assert _THEN.findall(cypher.part("record_status")) == [s.value for s in RECORD_STATUSES]


def test_the_flags_come_first_and_read_the_python_properties() -> None:
    flags = _FLAG.findall(cypher.part("record_status"))
    assert [(Status(status), prop) for prop, status in flags] == list(STATUS_FLAGS.items())
    assert list(STATUS_FLAGS) == list(RECORD_STATUSES[:len(STATUS_FLAGS)])


def test_erased_wins_over_every_other_flag() -> None:
    assert RECORD_STATUSES[0] is Status.ERASED


def test_explain_checks_the_caller_first_then_the_part() -> None:
    raw = _raw("explain")
    caller, _, rest = raw.partition("ELSE {{record_status}}")
    assert rest, "explain.cypher gives the record's own status through the part"
    assert _THEN.findall(caller) == [s.value for s in CALLER_STATUSES]
    assert _THEN.findall(cypher.text("explain")) == [
        s.value for s in (*CALLER_STATUSES, *RECORD_STATUSES)]


def test_the_enum_is_declared_in_precedence_order() -> None:
    assert list(Status) == [*CALLER_STATUSES, *RECORD_STATUSES, Status.DISCARDED]


def test_every_status_query_uses_the_part() -> None:
    for name in STATUS_QUERIES:
        assert "{{record_status}}" in _raw(name), name
        assert _THEN.findall(cypher.text(name))[-len(RECORD_STATUSES):] == [
            s.value for s in RECORD_STATUSES], name


def test_no_other_query_spells_a_status_out() -> None:
    """A status literal anywhere else would be a second copy of the rule."""
    spelled = {name for name in cypher.names()
               if name != "explain" and _ANY_STATUS.search(_raw(name))}
    assert spelled == set()
    parts = {path.stem for path in (cypher.cypher_dir() / "parts").glob("*.cypher")
             if path.stem != "record_status" and _ANY_STATUS.search(
                 "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                           if not line.lstrip().startswith("//")))}
    assert parts == set()
