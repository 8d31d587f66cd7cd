"""After an apply, no file under the home of a server graphmem's launcher runs holds the
erased term (transaction logs pruned, freed records zeroed); any other server's report lists
what stays outside graphmem's reach. Through the client's real apply, on a server of its own
(its home is scanned, also after it stopped)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.erasure_residue import counts, load, marker, needles, scan
from graphmem.client import Memory, store_of
from graphmem.db.server import EphemeralServer
from graphmem.deletion import DeletionPlan, apply_deletion
from graphmem.deletion.disk import outside_reach, purge
from graphmem.errors import DatabaseUnavailableError
from tests.support.database import Neo4jUnderTest, unavailable
from tests.support.sizes import size


def _started(home: Path) -> EphemeralServer:
    try:
        return EphemeralServer(home=home, timeout_s=600).start()  # a busy machine starts slowly
    except DatabaseUnavailableError as exc:
        unavailable(str(exc))
        raise


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("erasure-home")


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[EphemeralServer]:
    started = _started(home)
    try:
        yield started
    finally:
        started.close()


def _plan(memory: Memory, term: str, user: str) -> DeletionPlan:
    return memory.plan_deletion(subject={"tenant": "acme", "user": user}, redact_terms=[term],
                                requested_by="dpo", reason="erasure on disk")


#: Random terms and users of the apply test: one by default (each is a load, two applies and
#: two scans of the home's 512 MiB of transaction logs), two under ``--heavy``.
SEEDS = range(1, size(1, 2) + 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_apply_leaves_no_copy_of_the_term_in_the_servers_files(
        server: EphemeralServer, home: Path, seed: int) -> None:
    rng = random.Random(seed)
    kept, erased = marker(rng), marker(rng)
    with Memory.connect(server.settings, start_if_needed=False) as memory:
        # without the purge, Neo4j keeps the term: the scan below can fail
        load(memory, kept, f"u-kept-{seed}", 4, cue=False)
        plan = _plan(memory, kept, f"u-kept-{seed}")
        bare = apply_deletion(store_of(memory), plan, settle_disk=False)
        assert bare.verification.passed and bare.disk is None
        assert scan(home, [kept]), "Neo4j itself keeps a copy (the control)"

        load(memory, erased, f"u-erased-{seed}", 4, cue=False)
        done = memory.apply_deletion(_plan(memory, erased, f"u-erased-{seed}"))
        assert done.verification.passed
        assert done.disk is not None and done.disk.managed and done.disk.zeroed_records > 0
        assert done.disk.log_files == 1
        assert scan(home, [kept, erased]) == {}


def _tails_holding(home: Path, term: str) -> list[int]:
    """The ids of the string store's records in use whose bytes after their data hold
    ``term`` (a dynamic record: a big-endian int, bit 28 in use and the low 24 bits the data's
    length, the next record's id, then the data; 128 bytes each)."""
    data = (home / "data/databases/neo4j/neostore.propertystore.db.strings").read_bytes()
    found = []
    for at in range(0, len(data) - 127, 128):
        head = int.from_bytes(data[at:at + 4], "big")
        if head & 0x10000000 and term.encode() in data[at + 8 + (head & 0xFFFFFF):at + 128]:
            found.append(at // 128)
    return found


def test_a_freed_record_a_shorter_value_reuses_keeps_no_tail(tmp_path: Path) -> None:
    """Neo4j hands a freed string record to a later write without clearing it: a shorter
    value leaves the end of the erased text after its own data, in a record in use (not a
    free one). The control stops the server (its checkpoint writes every page) before any
    purge; the purge, on the same store started again, zeroes that tail too."""
    term = marker(random.Random(17))
    created = "2026-03-02T09:00:00+00:00"

    def row(rid: str, user: str, content: str) -> dict[str, Any]:
        return {"id": rid, "kind": "semantic", "created_at": created, "content": content,
                "scope": {"tenant": "acme", "user": user}, "authority": "human_instruction"}

    own = _started(tmp_path)
    try:
        with Memory.connect(own.settings, start_if_needed=False) as memory:
            # each content one string record (under 120 bytes), the term at its end
            memory.put_many([row(f"tail-{i}", "u-tail", "A long enough note, one string "
                                 f"record, ending in {term}") for i in range(40)])
            bare = apply_deletion(store_of(memory), _plan(memory, term, "u-tail"),
                                  settle_disk=False)
            assert bare.verification.passed
            for round_ in range(6):  # a freed id is handed out after the next id maintenance
                time.sleep(1)
                memory.put_many([row(f"fill-{round_}-{i}", "u-fill",
                                     f"a shorter note, number {i:03d}, in the same store")
                                 for i in range(40)])
    finally:
        own.close()
    assert _tails_holding(tmp_path, term), "the control: a record in use keeps the text"
    own = _started(tmp_path)
    try:
        with Memory.connect(own.settings, start_if_needed=False) as memory:
            done = purge(store_of(memory))
            assert done is not None and done.zeroed_records > 0
    finally:
        own.close()
    assert _tails_holding(tmp_path, term) == []
    assert scan(tmp_path, [term]) == {}


def test_nothing_is_left_after_the_server_stops(tmp_path: Path) -> None:
    """The shutdown checkpoint writes every page: still no copy, of any encoding or case."""
    term = marker(random.Random(7))
    own = _started(tmp_path)
    try:
        with Memory.connect(own.settings, start_if_needed=False) as memory:
            load(memory, term, "u-stop", 3, cue=False)
            memory.apply_deletion(_plan(memory, term, "u-stop"))
    finally:
        own.close()
    assert scan(tmp_path, [term]) == {}


def test_an_erased_intention_cue_leaves_no_copy(server: EphemeralServer, home: Path) -> None:
    term = marker(random.Random(11))
    with Memory.connect(server.settings, start_if_needed=False) as memory:
        load(memory, term, "u-cue", 2, cue=True)
        memory.apply_deletion(_plan(memory, term, "u-cue"))
    assert scan(home, [term]) == {}


def test_erased_asserted_keys_and_threads_leave_no_copy(server: EphemeralServer,
                                                       home: Path) -> None:
    """The other indexed texts an erasure removes or redacts: a subject's asserted key
    (its assertion group's key) and thread, and another user's, which are redacted."""
    rng = random.Random(13)
    terms = [marker(rng) for _ in range(4)]
    created = "2026-03-02T09:00:00+00:00"

    def row(rid: str, user: str, **text: Any) -> dict[str, Any]:
        return {"id": rid, "kind": "semantic", "created_at": created, "content": "noted",
                "scope": {"tenant": "acme", "user": user}, "authority": "human_instruction",
                **text}

    with Memory.connect(server.settings, start_if_needed=False) as memory:
        memory.put_many([
            row("k-1", "u-keys", asserts=f"contact of {terms[0]}", asserted_value="email"),
            row("k-2", "u-keys", thread=f"ticket {terms[1]}", position=0),
            row("k-3", "u-other", asserts=f"contact of {terms[2]}", asserted_value="phone"),
            row("k-4", "u-other", thread=f"ticket {terms[3]}", position=0)])
        plan = memory.plan_deletion(subject={"tenant": "acme", "user": "u-keys"},
                                    redact_terms=terms, requested_by="dpo", reason="keys")
        assert memory.apply_deletion(plan).verification.passed
        assert memory.get("k-4").thread == "ticket [REDACTED]"
    assert scan(home, terms) == {}


def test_the_server_reports_its_retention_settings(memory: Memory,
                                                   neo4j_db: Neo4jUnderTest) -> None:
    """What ``settle`` reads on a server graphmem does not run (here: any test server)."""
    rows = {r["name"]: r["value"] for r in store_of(memory).read("deletion/disk/settings")}
    assert "db.tx_log.rotation.retention_policy" in rows
    if neo4j_db.origin == "launcher":
        assert rows["db.tx_log.rotation.retention_policy"] == "false"


def test_outside_reach_names_the_settings_that_decide_it() -> None:
    notes = outside_reach({"db.tx_log.rotation.retention_policy": "2 days",
                           "db.logs.query.enabled": "VERBOSE",
                           "db.logs.query.parameter_logging_enabled": "true"})
    by_what = {n.what: n for n in notes}
    assert by_what["transaction logs"].value == "2 days"
    assert by_what["query log"].value == "true"
    assert {"freed store records", "backups, dumps and cluster members"} <= set(by_what)
    quiet = outside_reach({"db.logs.query.enabled": "OFF"})
    assert "query log" not in {n.what for n in quiet}
    assert {n.what: n for n in quiet}["transaction logs"].value is None


BYTES = st.binary(max_size=12).map(lambda b: b.replace(b"\1", b"\0"))  # zeros often


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(BYTES, st.sampled_from([b"Ab", b"A\0b\0", b"\0A\0b", b"\0\0"])),
                max_size=8), st.integers(0, 40),
       st.lists(st.one_of(BYTES.filter(bool), st.sampled_from([b"A\0b\0", b"\0A\0b", b"\0",
                                                              b"b\0\0", b"\0\0"])),
                min_size=1, max_size=4))
def test_the_scan_counts_as_a_plain_count(parts: list[bytes], tail: int,
                                          wanted: list[bytes]) -> None:
    """Skipping the zeros that end a file (a preallocated transaction log) loses no
    occurrence: needles that begin or end with zero bytes, or are nothing else, included."""
    data = b"".join(parts) + b"\0" * tail
    labelled = {str(i): needle for i, needle in enumerate(wanted)}
    plain = {label: data.count(needle) for label, needle in labelled.items()}
    assert counts(data, labelled) == {label: n for label, n in plain.items() if n}
    term = needles("Ab")
    assert counts(b"x" + term["utf-16-le as written"] + b"\0" * tail, term) == {
        "utf-16-le as written": 1}
