"""Ids with whitespace, control or invisible format characters, or over
256 characters, are refused with a ValidationError naming the id and the character, and
nothing is written (docs/spec/records.md); the same for intention and deletion request ids."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from graphmem.client import Memory, store_of
from graphmem.deletion.models import DeletionPlan
from graphmem.deletion.plan import plan_deletion
from graphmem.errors import DeletionError, ValidationError
from graphmem.fields import MAX_ID_CHARS
from graphmem.models import DeferredIntention, MemoryRecord
from tests.support.ids import ISSUE_INPUTS, T0, record


def test_nothing_is_written_for_a_bad_id(memory: Memory) -> None:
    for rid, code in ISSUE_INPUTS:
        for write in (memory.put, lambda r: memory.put_many([record("good"), r]),
                      lambda r: memory.write(r, now=T0)):
            with pytest.raises(ValidationError) as err:
                write(record(rid))
            assert code in str(err.value) and repr(rid) in str(err.value)
            assert err.value.record_ids == (rid,)
        with pytest.raises(ValidationError, match=re.escape(code)):
            memory.intend({"id": rid, "action": "call back", "trigger_kind": "entity",
                           "trigger_value": "u1", "scope": {"tenant": "t"},
                           "created_at": T0})
    assert store_of(memory).counts() == {}  # no record, decision, scope or intention


def test_deletion_request_ids(memory: Memory) -> None:
    memory.put(record("r1"))
    for rid, code in ISSUE_INPUTS:
        with pytest.raises(ValidationError, match=re.escape(code)):
            plan_deletion(store_of(memory), roots=["r1"], requested_by="p", reason="r",
                          request_id=rid)
    plan = plan_deletion(store_of(memory), roots=["r1"], requested_by="p", reason="r",
                         request_id="del-ok")
    # a saved plan edited to carry a bad id is refused on load, before anything is applied
    tampered = plan.to_json().replace('"del-ok"', '"del\\u200bok"')
    with pytest.raises(DeletionError, match="malformed"):
        DeletionPlan.from_json(tampered)
    assert store_of(memory).counts().get("DeletionRequest") is None
    assert memory.get("r1").id == "r1"


def _unvalidated(rid: str, how: str) -> MemoryRecord:
    """A record instance carrying a bad id: pydantic builds these without validation."""
    good = MemoryRecord.model_validate(record("good-template"))
    if how == "copy":
        return good.model_copy(update={"id": rid})
    return MemoryRecord.model_construct(**{**dict(good), "id": rid})


WRITE_PATHS: dict[str, Callable[[Memory, MemoryRecord], object]] = {
    "put": lambda m, r: m.put(r),
    "put_many": lambda m, r: m.put_many([r]),
    "put_stream": lambda m, r: list(m.put_stream([[r]])),
    "write": lambda m, r: m.write(r, now=T0),
    "supersede": lambda m, r: m.supersede(["old"], r, by="a", reason="r"),
    "consolidate": lambda m, r: m.consolidate(["old", "old2"], into=r, by="a", reason="r"),
}


@pytest.mark.parametrize("how", ["copy", "construct"])
@pytest.mark.parametrize("path", sorted(WRITE_PATHS))
def test_an_unvalidated_instance_cannot_bypass_the_id_rule(memory: Memory, path: str,
                                                           how: str) -> None:
    """Every write path validates a record instance again, so a bad id slipped in with
    ``model_copy(update=...)`` or ``model_construct`` is refused and nothing is written; the
    same for intentions."""
    memory.put_many([record("old"), {**record("old2"), "content": "d"}])
    before = store_of(memory).counts()
    for rid, code in [*ISSUE_INPUTS, ("x" * (MAX_ID_CHARS + 1), "257 characters")]:
        with pytest.raises(ValidationError, match=re.escape(code)):
            WRITE_PATHS[path](memory, _unvalidated(rid, how))
    assert store_of(memory).counts() == before
    intention = DeferredIntention(id="i1", action="call back", trigger_kind="entity",
                                  trigger_value="u1", scope={"tenant": "t"}, created_at=T0)
    bad = (intention.model_copy(update={"id": "i\u200b1"}) if how == "copy" else
           DeferredIntention.model_construct(**{**dict(intention), "id": "i\u200b1"}))
    with pytest.raises(ValidationError, match="U\\+200B"):
        memory.intend(bad)
    assert store_of(memory).counts() == before
