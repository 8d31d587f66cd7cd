"""An intention's texts leave with a redaction term: its action, its cue's value and its
cue's kind (an event key is free text: ``{"Jane Roe": "arrived"}``), and no digest of what it
said before stays behind (docs/spec/deletion.md#redaction; docs/deletion-terms.md, "Where the
terms are kept")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem import Memory, RecordConflictError
from graphmem.client import store_of
from graphmem.db.ops.intentions import intention_props

pytestmark = pytest.mark.neo4j

TERM = "Jane Roe"
T0 = datetime(2026, 9, 1, 9, tzinfo=UTC)
SCOPE = {"tenant": "acme", "user": "u-17"}


def _intention(iid: str, action: str, kind: str, value: str) -> dict[str, Any]:
    return {"id": iid, "action": action, "trigger_kind": kind, "trigger_value": value,
            "scope": SCOPE, "created_at": T0}


def _stored(memory: Memory, iid: str) -> dict[str, Any]:
    rows, _, _ = store_of(memory).driver.execute_query(
        "MATCH (i:Intention {id: $id}) RETURN properties(i) AS p", id=iid,
        database_=store_of(memory).database)
    return dict(rows[0]["p"])


def _erase(memory: Memory) -> Any:
    memory.write({"id": "root", "kind": "semantic", "content": f"met {TERM}",
                  "created_at": T0, "scope": SCOPE, "authority": "human_instruction"}, now=T0)
    plan = memory.plan_deletion(roots=["root"], redact_terms=[TERM], requested_by="dpo",
                                reason="erasure request")
    return plan, memory.apply_deletion(plan)


def test_a_term_in_a_cue_kind_is_planned_redacted_and_verified(memory: Memory) -> None:
    memory.intend(_intention("by-kind", "greet them", f"visit of {TERM}", "arrived"))
    plan, report = _erase(memory)
    assert "by-kind" in {e.id for e in plan.entries}
    assert report.verification.passed, report.verification.problems
    stored = memory.intentions.get("by-kind")
    assert stored.trigger_kind == "visit of [REDACTED]"
    # the cue's index entry follows its new text
    due = memory.due({"visit of [REDACTED]": "arrived"}, principal=_principal(),
                     scope=SCOPE, now=T0)
    assert [i.id for i in due] == ["by-kind"]
    assert memory.due({f"visit of {TERM}": "arrived"}, principal=_principal(), scope=SCOPE,
                      now=T0) == []


def test_verification_fails_while_a_cue_kind_keeps_the_term(memory: Memory) -> None:
    memory.intend(_intention("kept", "greet them", "visit", "arrived"))
    plan, report = _erase(memory)
    assert report.verification.passed
    store_of(memory).driver.execute_query(
        "MATCH (i:Intention {id: 'kept'}) SET i.trigger_kind = $kind", kind=f"visit {TERM}",
        database_=store_of(memory).database)
    again = memory.verify_deletion(plan.request_id)
    assert not again.verification.passed
    assert any("trigger_kind" in w for w in again.verification.text_with_terms)


@pytest.mark.parametrize("where", ["action", "trigger_kind", "trigger_value"])
def test_a_redacted_intention_keeps_no_fingerprint_of_its_old_text(memory: Memory,
                                                                   where: str) -> None:
    texts = {"action": "greet them", "trigger_kind": "visit", "trigger_value": "arrived"}
    texts[where] = f"{texts[where]} {TERM}"
    original = _intention("i1", texts["action"], texts["trigger_kind"],
                          texts["trigger_value"])
    memory.intend(original)
    _erase(memory)
    stored = _stored(memory, "i1")
    redacted = memory.intentions.get("i1")
    assert TERM not in str(stored)
    # the fingerprint is the redacted definition's, not a digest of the name
    assert stored["fingerprint"] == intention_props(redacted)["fingerprint"]
    # so writing the old definition again is a conflict, not a silent confirmation of it
    with pytest.raises(RecordConflictError):
        memory.intend(original)


def _principal() -> Any:
    from graphmem import Principal
    return Principal(tenants=frozenset({"acme"}), scope={"user": "u-17"})
