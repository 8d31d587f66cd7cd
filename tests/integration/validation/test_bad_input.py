"""Bad input gets a typed error and leaves the store unchanged, on real Neo4j."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory, store_of
from graphmem.errors import (
    ContentTooLargeError,
    DanglingReferenceError,
    LineageCycleError,
    NaiveDatetimeError,
    RecordConflictError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.models import MemoryRecord, Principal, Status

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ACME = Principal(tenants=frozenset({"acme"}))


def rec(rid: str, **over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid, "kind": "semantic", "content": f"content of {rid}",
        "created_at": T0.isoformat(), "scope": {"tenant": "acme"},
        "provenance": {"source": "test"}, "authority": "verified_outcome",
    }
    base.update(over)
    return base


def snapshot(memory: Memory) -> dict[str, int]:
    return store_of(memory).counts()


def test_round_trip_and_identical_rewrite_is_a_no_op(memory: Memory) -> None:
    record = MemoryRecord.model_validate(rec(
        "a", asserts="k", asserted_value=" 1  000 ", metadata={"n": [1, 2]},
        valid_from=(T0 + timedelta(days=1)).isoformat(), scope={"tenant": "acme", "repo": "r"}))
    assert memory.put(record) is True
    assert memory.get("a") == record
    assert memory.get("a").asserted_value == "1 000"  # canonicalised at write time
    before = snapshot(memory)
    assert memory.put(record) is False
    assert snapshot(memory) == before


def test_same_id_other_content_is_a_conflict_and_changes_nothing(memory: Memory) -> None:
    memory.put(rec("a"))
    before = snapshot(memory)
    with pytest.raises(RecordConflictError) as info:
        memory.put(rec("a", content="something else"))
    assert info.value.record_ids == ("a",)
    assert memory.get("a").content == "content of a"
    assert snapshot(memory) == before


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (rec("x", created_at="2026-01-01T00:00:00"), NaiveDatetimeError),
        (rec("x", scope={"repo": "r"}), ValidationError),
        (rec("x", scope={"tenant": ""}), ValidationError),
        (rec("x", supersedes=["missing"]), DanglingReferenceError),
        (rec("x", derived_from=["missing"]), DanglingReferenceError),
        (rec("x", evidence_ids=["missing"]), DanglingReferenceError),
        (rec("x", derived_from=["x"]), ValidationError),
        (rec("x", content="é" * 40_000), ContentTooLargeError),
        (rec("x", content=""), ValidationError),
        (rec("x", asserted_value="v"), ValidationError),
        (rec("x", valid_from=T0.isoformat(), expires_at=T0.isoformat()), ValidationError),
        (rec("x", metadata={"f": float("nan")}), ValidationError),
    ],
)
def test_bad_input_is_typed_and_writes_nothing(
    memory: Memory, bad: dict[str, Any], error: type[Exception]
) -> None:
    memory.put(rec("base"))
    before = snapshot(memory)
    with pytest.raises(error):
        memory.put(bad)
    with pytest.raises(error):
        memory.write(bad)
    assert snapshot(memory) == before
    with pytest.raises(RecordNotFoundError):
        memory.get("x")


def test_a_batch_with_one_bad_reference_writes_nothing(memory: Memory) -> None:
    with pytest.raises(DanglingReferenceError) as info:
        memory.put_many([rec("a"), rec("b", derived_from=["a"]), rec("c", supersedes=["zz"])])
    assert info.value.record_ids == ("zz",)
    assert snapshot(memory) == {}


def test_lineage_cycle_in_a_batch_is_rejected(memory: Memory) -> None:
    with pytest.raises(LineageCycleError):
        memory.put_many([rec("a", derived_from=["c"]), rec("b", derived_from=["a"]),
                         rec("c", derived_from=["b"])])
    assert snapshot(memory) == {}


def test_scope_keys_and_values_with_quotes_and_backticks_are_data(memory: Memory) -> None:
    nasty = {"tenant": "acme", "re`po": "x'}) DETACH DELETE n //", 'k"ey': "`v`"}
    memory.put(rec("a", scope=nasty))
    memory.put(rec("b"))
    principal = ACME
    found = {r.id for r in memory.candidates(principal=principal, scope=nasty, now=T0)}
    assert found == {"a", "b"}
    other = {"tenant": "acme", "re`po": "x"}
    assert {r.id for r in memory.candidates(principal=principal, scope=other, now=T0)} == {"b"}
    assert memory.explain("a", principal=principal, scope=other, now=T0).status is \
        Status.OUT_OF_SCOPE
    assert store_of(memory).counts()["Record"] == 2


def test_naive_now_is_rejected(memory: Memory) -> None:
    with pytest.raises(NaiveDatetimeError):
        memory.candidates(principal=ACME, scope={"tenant": "acme"}, now=datetime(2026, 1, 1))


def test_retraction_is_a_tombstone_with_who_why_when(memory: Memory) -> None:
    memory.put(rec("a"))
    at = T0 + timedelta(hours=3)
    memory.retract("a", by="alice", reason="wrong customer", at=at)
    state = store_of(memory).state("a")
    assert (state.retracted_by, state.retracted_reason, state.retracted_at) == (
        "alice", "wrong customer", at)
    assert memory.get("a").retracted is True
    assert memory.explain("a", principal=ACME, scope={"tenant": "acme"}, now=at).status is \
        Status.RETRACTED
    assert [h["kind"] for h in memory.history("a")] == ["retract"]
    with pytest.raises(RecordNotFoundError):
        memory.retract("nope", by="alice", reason="x")


def test_import_jsonl_batches_and_validates_first(memory: Memory, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    rows = [rec(f"r{i}", derived_from=[f"r{i - 1}"] if i else []) for i in range(25)]
    good.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert len(memory.import_jsonl(good, batch_size=10)) == 25
    assert memory.get("r24").derived_from == ("r23",)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rec("n1")) + "\n" + json.dumps(rec("n2", created_at="2026-01-01"))
                   + "\n")
    with pytest.raises(NaiveDatetimeError, match=r"bad\.jsonl:2"):
        memory.import_jsonl(bad)
    with pytest.raises(RecordNotFoundError):
        memory.get("n1")


def test_boundaries_valid_from_and_expires_at(memory: Memory) -> None:
    memory.put(rec("w", valid_from=T0.isoformat(),
                   expires_at=(T0 + timedelta(days=1)).isoformat()))
    scope = {"tenant": "acme"}

    def status(now: datetime) -> Status:
        return memory.explain("w", principal=ACME, scope=scope, now=now).status

    assert status(T0 - timedelta(microseconds=1)) is Status.NOT_YET_VALID
    assert status(T0) is Status.ACTIVE  # now == valid_from is valid
    assert status(T0 + timedelta(days=1)) is Status.EXPIRED  # now == expires_at is expired


def test_cached_records_follow_every_change(memory: Memory) -> None:
    memory.put(rec("a"))
    scope = {"tenant": "acme"}
    (first,) = memory.candidates(principal=ACME, scope=scope, now=T0)
    assert first.expires_at is None
    memory.expire("a", at=T0 + timedelta(days=3), by="ops", reason="ends")
    (second,) = memory.candidates(principal=ACME, scope=scope, now=T0)
    assert second.expires_at == T0 + timedelta(days=3)
    # a record deleted and written again under the same id with other content
    from tests.support.database import wipe

    wipe(memory)
    store_of(memory).ensure_schema()
    memory.put(rec("a", content="brand new content"))
    (third,) = memory.candidates(principal=ACME, scope=scope, now=T0)
    assert third.content == "brand new content" and third.expires_at is None


def test_new_records_cannot_cite_or_derive_from_an_erased_record(memory: Memory) -> None:
    memory.put(rec("a"))
    plan = memory.plan_deletion(roots=["a"], requested_by="privacy", reason="erasure request")
    memory.apply_deletion(plan)
    for field in ("derived_from", "evidence_ids", "supersedes"):
        with pytest.raises(DanglingReferenceError) as info:
            memory.put(rec(f"b-{field}", **{field: ["a"]}))
        assert info.value.record_ids == ("a",)
    with pytest.raises(RecordConflictError):
        memory.put(rec("a"))  # an erased id cannot be written back


def test_datetimes_round_trip_to_the_microsecond(memory: Memory) -> None:
    record = MemoryRecord.model_validate(rec(
        "t", created_at="2026-01-01T10:11:12.345678+00:00",
        valid_from="2026-01-02T00:00:00.000001+00:00",
        expires_at="2026-03-04T05:06:07.891011+02:00"))
    memory.put(record)
    stored = memory.get("t")
    assert stored == record and stored.expires_at == datetime(2026, 3, 4, 3, 6, 7, 891011,
                                                              tzinfo=UTC)


def test_put_stream_writes_batch_by_batch_and_stops_at_a_bad_one(memory: Memory) -> None:
    batches = [[rec("s1"), rec("s2")], [rec("s3", derived_from=["s1"])],
               [rec("s4"), rec("bad", created_at="2026-01-01T00:00:00")],  # naive datetime
               [rec("s5")]]
    stream = memory.put_stream(batches)
    assert next(stream) == ["s1", "s2"]
    assert next(stream) == ["s3"]
    with pytest.raises(NaiveDatetimeError):
        next(stream)
    assert store_of(memory).get_many(["s1", "s2", "s3", "s4", "s5"]).keys() == {"s1", "s2", "s3"}
    assert list(memory.put_stream([[rec("s1")], [rec("s5")]])) == [[], ["s5"]]


def test_put_stream_rejects_a_none_batch_and_keeps_what_came_before(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        list(memory.put_stream([[rec("n1")], None, [rec("n2")]]))  # type: ignore[list-item]
    assert store_of(memory).get_many(["n1", "n2"]).keys() == {"n1"}

    def producer() -> Any:
        yield [rec("p1")]
        yield [rec("p2")]
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError):
        list(memory.put_stream(producer()))
    assert store_of(memory).get_many(["p1", "p2"]).keys() == {"p1", "p2"}
