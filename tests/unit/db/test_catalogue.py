"""The Cypher catalogue (graphmem.db.catalogue): each name used exists, no file is unused, no
Cypher outside it, parts exist and are used, version bumps lock and stamp, parameters come in
one map, and lookups by an indexed key say SEEK. Parsing and planning on the server:
tests/integration/db/test_catalogue.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graphmem.db import catalogue
from graphmem.db import catalogue as cypher
from graphmem.db.codec import STAMP_KEYS, TOMBSTONE_KEYS
from graphmem.deletion.redaction import STRUCTURAL_KEYS
from graphmem.errors import StoreError

ROOT = Path(__file__).resolve().parents[3]
CALLS = {"read", "write", "run", "query", "text", "statement", "arguments", "statements", "_run",
         "_read", "_write"}
#: A catalogue name: a file's path in cypher/ without the suffix ("candidates", "deletion/walk").
NAME = r"[a-z][a-z0-9_]+(?:/[a-z][a-z0-9_]+)*"


def _python_files() -> list[Path]:
    return [*ROOT.joinpath("graphmem").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py"),
            *ROOT.joinpath("bench").rglob("*.py")]


def _string_constants() -> set[str]:
    found: set[str] = set()
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


def _names_passed_to_loaders() -> set[str]:
    """First string argument (after an optional tx) of calls like store.read("name", ...)."""
    names: set[str] = set()
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if attr not in CALLS:
                continue
            for arg in node.args[:2]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and re.fullmatch(
                        NAME, arg.value):
                    names.add(arg.value)
                    break
    return names


def test_every_file_is_used_somewhere() -> None:
    strings = _string_constants()
    unused = sorted(n for n in cypher.names() if n not in strings)
    assert not unused, f"cypher files never referenced: {unused}"


def test_every_name_used_exists() -> None:
    candidates = _names_passed_to_loaders()
    # only names that look like catalogue lookups: those matching a cypher-ish call site
    missing = sorted(n for n in candidates if n not in cypher.names()
                     and ("/" in n or n.startswith(("record", "deletion", "intention", "retrieval"))
                          or n.endswith(("_log", "_get"))))
    assert not missing, f"names used but not in cypher/: {missing}"
    with pytest.raises(KeyError):
        cypher.text("no_such_query")


def test_no_cypher_outside_the_catalogue() -> None:
    """A string holding a Cypher clause and a $parameter is a query living in Python.

    (Docstrings that draw the graph model name clauses but carry no parameters.)"""
    clause = re.compile(r"\b(MATCH|MERGE|DETACH DELETE|UNWIND|CREATE \()")
    offenders = [
        f"{path.name}: {node.value[:60]!r}"
        for path in ROOT.joinpath("graphmem").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and clause.search(node.value) and re.search(r"\$[a-z_]", node.value)
    ]
    assert not offenders, offenders


def _bumps(body: str, v: str) -> bool:
    """Query text ``body`` increments the rev of ScopeVersion variable ``v``: in one SET, or
    (the locking form, see test_version_bumps_lock_before_they_read) read into ``rev`` and
    then set."""
    return (f"{v}.rev = coalesce({v}.rev, 0) + 1" in body
            or (f"coalesce({v}.rev, 0) + 1 AS rev" in body and f"{v}.rev = rev" in body))


def test_version_bumps_lock_before_they_read() -> None:
    """``SET sv.rev = coalesce(sv.rev, 0) + 1`` in a later statement of a transaction that
    already holds the ScopeVersion's lock is a deadlock with any transaction waiting for that
    lock (Neo4j 5.26; a deletion's erase then mark statements,
    tests/integration/concurrency/test_lifecycle.py):
    every bump outside the benchmarks and the evaluation cleanup first locks the node with a
    write that reads nothing, then reads the rev, then sets it."""
    offenders = []
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        if name.startswith("bench/") or name == "eval_cleanup" or not _bumps(body, "sv"):
            continue
        lock = body.find("SET sv.locked = true")
        read = body.find("coalesce(sv.rev, 0) + 1 AS rev")
        if "sv.rev = coalesce(sv.rev, 0) + 1" in body or not 0 <= lock < read:
            offenders.append(name)
    assert not offenders, offenders


def test_every_query_that_changes_a_record_bumps_its_rev() -> None:
    """The store caches records by (fingerprint, rev): a SET on a Record without a rev bump
    would let it serve a stale record. Full replacements (``SET r = ...``, with whatever
    else the same SET clause adds) are creations or tombstones and carry their own version."""
    clause = re.compile(r"\bSET\b(.*?)(?=\b(?:MATCH|WITH|RETURN|CALL|UNWIND|CREATE|MERGE|WHERE|"
                        r"OPTIONAL|DELETE|DETACH|FOREACH|REMOVE)\b|\}|$)", re.S)
    offenders = []
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        for var in set(re.findall(r"\((\w+):Record\b", body)):
            for match in clause.finditer(body):
                assigns = re.findall(rf"\b{var}\.(\w+)\s*=(?!=)", match.group(1))
                replaced = re.match(rf"\s*{var}\s*=(?!=)", match.group(1))
                # bookkeeping, not the record
                assigns = [a for a in assigns if a not in STAMP_KEYS]
                if assigns and "rev" not in assigns and not replaced:
                    offenders.append(f"{name}: SET {var}.{assigns[0]} without {var}.rev")
    assert not offenders, offenders


def _bumps_slot(body: str) -> bool:
    """``body`` bumps WriteSlot ``l``'s seq the locking way (lock, then read, then set)."""
    lock, read = body.find("SET l.locked = true\nWITH"), body.find("coalesce(l.seq, 0) + 1 AS wseq")
    return 0 <= lock < read < body.find("SET l.seq = wseq")


def _slot_stamped(body: str) -> bool:
    """``body`` creates its Record ``r`` stamped with WriteSlot ``l``'s index and seq, and sets
    no property of a record it matched (a slot stamp marks new records only)."""
    # (write/new's probe also matches records as `r`, inside subqueries of their own)
    matched = set(re.findall(r"MATCH \((\w+):Record\b", body)) - {"r"}
    # (parts/record_store reads the write from its map `w`)
    return (re.search(r"MATCH \(l:WriteSlot \{key: w\.slot\}\)", body) is not None
            and "r.wseq = wseq" in body and _bumps_slot(body)
            and re.search(r"r\.wslot = w\.slot_index\b", body) is not None
            and "CREATE (r:Record)" in body
            and not any(re.search(rf"\b{v}\.\w+\s*=(?!=)", body) for v in matched))


def test_every_query_that_changes_a_record_bumps_its_scope() -> None:
    """Neo4jStore.candidates reuses an answer while the visible Scopes keep their versions: a query
    that sets, creates or deletes a Record must bump the rev of its ScopeVersion node (the record's
    own), or, a policy write, create its record stamped with the sequence of a write slot that the
    transaction locked and bumped (write/check.cypher); candidates reads those slots' versions too.
    Queries that only add edges (edges/*, assertions_link) run in the same transaction as
    records/create or records/recompute, which bump it."""
    clause = re.compile(r"\bSET\b(.*?)(?=\b(?:MATCH|WITH|RETURN|CALL|UNWIND|CREATE|MERGE|WHERE|"
                        r"OPTIONAL|DELETE|DETACH|FOREACH|REMOVE)\b|\}|$)", re.S)
    offenders, checked = [], []
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        records = set(re.findall(r"\((\w+):Record\b", body))
        changes = any(
            re.search(rf"\b{var}(?:\.\w+)?\s*=(?!=)", m.group(1))
            for var in records for m in clause.finditer(body)
        ) or re.search(r"\bCREATE\s*\(\w+:Record\b", body) or any(
            re.search(rf"\bDELETE\s+{var}\b", body) for var in records)
        if not changes:
            continue
        checked.append(name)
        scopes = set(re.findall(r"\((\w+):ScopeVersion\b", body))
        if not any(_bumps(body, v) for v in scopes) and not _slot_stamped(body):
            offenders.append(name)
    assert not offenders, offenders
    assert [n for n in checked if _slot_stamped(cypher.text(n))] == [
        "records/write", "write/new", "write/new_batch"]
    # the slot is locked before anything is read: by write/check in records/write's
    # transaction, by write/new itself; a write that stores nothing changes no version
    for name in ("write/check", "write/new", "write/new_batch"):
        body = cypher.text(name)
        assert 0 <= body.find("SET l.locked = true\n  REMOVE l.locked") < body.find(
            "RETURN count(l) AS locked") < body.find("AS existing"), name
        assert "l.seq" not in body.split("AS duplicates")[0], name
    for name in ("candidates", "candidates_delta"):
        assert cypher.part("write_slot_versions") in cypher.text(name), name
    # the rule did look at the queries it is about
    assert {"records/create", "records/retract", "records/expire", "records/set_quarantine",
            "records/recompute", "deletion/erase_records", "deletion/redact/records",
            "bench/records_bulk", "bench/records_wipe"} <= set(checked), checked


def test_a_changed_record_bumps_its_scope_through_the_one_part() -> None:
    """The bump for one changed record is written once, parts/scope_bump: a query that sets
    a ScopeVersion's rev itself is one of those that bump differently (records/create: once
    per Scope for a batch of new records; the benchmarks and the evaluation cleanup: a new
    epoch, as records vanish)."""
    raw = {n: (cypher.cypher_dir() / f"{n}.cypher").read_text(encoding="utf-8")
           for n in cypher.names()}
    assert {n for n, text in raw.items() if "sv.rev =" in text} == {
        "records/create", "bench/records_bulk", "bench/records_wipe", "eval_cleanup"}
    bump = cypher.part("scope_bump")
    users = {n for n, text in raw.items() if "{{scope_bump}}" in text}
    assert users >= {"records/retract", "records/expire", "records/set_quarantine",
                     "records/recompute", "deletion/redact/records", "deletion/redact/text"}
    for name in users:
        assert bump in cypher.text(name) and _bumps(cypher.text(name), "sv"), name
    # a batch of changed records of one Scope: the version written once, a rev per record
    batch = cypher.part("scope_bump_batch")
    batch_users = {n for n, text in raw.items() if "{{scope_bump_batch}}" in text}
    assert batch_users >= {"deletion/erase_records", "deletion/mark"}
    for name in batch_users:
        assert batch in cypher.text(name) and _bumps(cypher.text(name), "sv"), name

def test_every_version_bump_stamps_the_record_or_starts_an_epoch() -> None:
    """Delta reads (candidates_delta.cypher) find what changed by ``r.stamp > rev``: a query
    that bumps a ScopeVersion must stamp the records it changed, or, when it deletes records,
    start a new epoch so cached answers are computed again in full."""
    offenders = []
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        if not _bumps(body, "sv"):
            continue
        stamps = re.search(r"\.stamp = (?:sv\.)?rev\b", body)
        if not stamps and "sv.epoch = randomUUID()  //" not in body:
            offenders.append(name)
    assert not offenders, offenders


def test_every_stamp_names_its_epoch() -> None:
    """Delta reads seek what changed in the indexes on (epoch, stamp): every record stamped
    with a ScopeVersion's rev is stamped with that version's epoch in the same SET, and a
    policy write's slot stamp carries the slot's epoch (a stamp without its epoch would be a
    change no delta finds)."""
    offenders, stamped = [], []
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        for var, value in re.findall(r"\b(\w+)\.stamp = ([\w.]+)", body):
            stamped.append(name)
            # a stamp copied from another record (`m.stamp = r.stamp`) is one no seek finds
            if (value not in ("rev", "sv.rev")
                    or f"{var}.stamp = {value}, {var}.sepoch = coalesce(sv.epoch, '')" not in body):
                offenders.append(name)
        if "r.wseq = wseq" in body and "r.wepoch = wepoch" not in body:
            offenders.append(name)
    assert not offenders, offenders
    assert {"records/create", "records/retract", "bench/records_bulk"} <= set(stamped)


def test_every_part_named_by_a_query_exists_and_every_part_is_used() -> None:
    """Shared conditions (cypher/parts/, catalogue.part) are put into the queries that name
    them as {{name}}; none is left unexpanded, none is missing or unused."""
    raw = {n: (cypher.cypher_dir() / f"{n}.cypher").read_text(encoding="utf-8")
           for n in cypher.names()}
    parts = {p.stem: p.read_text(encoding="utf-8")
             for p in (cypher.cypher_dir() / "parts").glob("*.cypher")}
    # a part is used when a query names it, or a part that is used does
    named = {m for text in raw.values() for m in re.findall(r"\{\{([a-z0-9_]+)\}\}", text)}
    while grown := {m for n in named for m in re.findall(r"\{\{([a-z0-9_]+)\}\}", parts[n])
                    } - named:
        named |= grown
    assert named == set(parts) and {"record_live", "successor_effective"} <= set(parts)
    for name in cypher.names():
        assert "{{" not in cypher.text(name), name
    with pytest.raises(KeyError):
        cypher.part("no_such_part")
    # the conditions of docs/spec/status.md are stated once: no query spells them out again
    for name, text in raw.items():
        assert not re.search(r"coalesce\(\w+\.admitted, false\)", text), name
        assert "NOT r.pending_recompute AND NOT r.erased" not in text or name == "explain", name
        # "eligible and ACTIVE for this caller" is parts/record_active, and whether a
        # successor counts for the caller parts/successor_visible, in every query
        assert "{{record_live}}" not in text, name
        assert "succ.sensitivity_rank" not in text, name


def test_the_store_reads_every_parameter_from_one_map() -> None:
    """Every ``$`` of a query is a parameter, so the form the store runs reads each of them
    as ``$args.p`` and names no other parameter; a missing parameter is a StoreError before
    anything runs (in a map it would be read as null), an extra one is ignored."""
    for name in sorted(cypher.names()):
        body = cypher.text(name)
        assert body.count("$") == len(re.findall(r"\$[A-Za-z_]\w*", body)), name
        run = cypher.statement(name)
        assert run.count("$") == run.count("$args.") == body.count("$"), name
        assert cypher.parameters(name) == set(re.findall(r"\$([A-Za-z_]\w*)", body)), name
    assert cypher.arguments("retrieval/get", {"id": "q", "extra": 1}) == {
        "args": {"id": "q", "extra": 1}}
    with pytest.raises(StoreError, match=r"retrieval/log was run without parameters .*'query'"):
        cypher.arguments("retrieval/log", {"id": "q"})


#: ``FOR (r:Record) REQUIRE r.id IS UNIQUE`` and ``FOR (r:Record) ON (r.tenant, r.asserts)``
SCHEMA_RULE = re.compile(r"FOR \(\w+:(\w+)\) (?:REQUIRE (\w+\.\w+) IS|ON \(([^)]*)\))")


#: a line that starts a (possibly OPTIONAL) MATCH at a node looked up by a property map
ANCHOR = re.compile(r"^\s*(?:OPTIONAL )?MATCH \((\w+):(\w+) \{([^}]*)\}\)")


#: a line that holds nothing but a seek hint, on variable group 1
HINT = re.compile(r"^\s*USING INDEX SEEK (\w+):\w+\([\w, ]+\)\s*$")


def indexed_keys() -> set[tuple[str, tuple[str, ...]]]:
    """Each (label, properties) that a constraint or index of ``schema.cypher`` covers."""
    keys = set()
    for statement in catalogue.statements("schema"):
        if match := SCHEMA_RULE.search(statement):
            props = tuple(p.strip().split(".")[1] for p in (match[2] or match[3]).split(","))
            keys.add((match[1], props))
    return keys


def test_every_lookup_by_an_indexed_key_says_seek() -> None:
    """A MATCH that starts at a node looked up by all the properties of one of the schema's
    indexes (an id, a key, a composite) says ``USING INDEX SEEK`` on it, or on another node
    of its pattern (the duplicate check starts at the dedup key, not the scope): whatever
    the statistics say (see the test above), the planner never scans an index instead."""
    indexed = indexed_keys()
    assert ("Record", ("id",)) in indexed and ("Record", ("thread_key", "position")) in indexed
    missing = []
    for path in sorted(catalogue.cypher_dir().rglob("*.cypher")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            anchor = ANCHOR.match(line)
            if anchor is None:
                continue
            var, label, props = anchor[1], anchor[2], tuple(
                kv.split(":")[0].strip() for kv in re.split(r",\s*(?=\w+:)", anchor[3]))
            if (label, props) not in indexed:
                continue
            hint = f"USING INDEX SEEK {var}:{label}({', '.join(props)})"
            following = HINT.match(lines[i + 1]) if i + 1 < len(lines) else None
            # its own hint, on its line or the next, or the next line's on another node of
            # its pattern
            if hint not in line and not (following and (following[0].strip() == hint or (
                    following[1] != var and f"({following[1]}:" in line))):
                missing.append(f"{path.relative_to(catalogue.cypher_dir())}:{i + 1}: "
                               f"{line.strip()}")
    assert missing == []


def test_the_tombstone_and_the_stamps_are_defined_once() -> None:
    """An erased record's tombstone is the map deletion/erase_records sets, whose keys are
    codec.TOMBSTONE_KEYS; the properties a version bump or a policy write's slot stamps on a
    record are codec.STAMP_KEYS. Whatever checks that a tombstone is content-free, or leaves
    bookkeeping unredacted (deletion.redaction.STRUCTURAL_KEYS), uses these two."""
    tomb = re.search(r"SET r = \{(.*?)\}\n", cypher.text("deletion/erase_records"), re.S)
    assert tomb is not None
    assert set(re.findall(r"(\w+): ", tomb.group(1))) == TOMBSTONE_KEYS
    stamps = set(re.findall(r"\br\.(\w+) = ", cypher.part("scope_bump")))
    stamps |= {k for k in re.findall(r"\br\.(\w+) = ", cypher.part("record_store"))
               if k.startswith("w")}
    assert stamps == STAMP_KEYS
    assert STAMP_KEYS <= STRUCTURAL_KEYS and not STAMP_KEYS & TOMBSTONE_KEYS
