"""The write policy as pure functions (docs/spec/write-path.md): the rules in order, and a
clock skew that is not a duration within bounds refused."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graphmem.errors import ValidationError
from graphmem.models import MemoryRecord
from graphmem.write.policy import WriteDisposition, WritePolicy, decide
from tests.support.ranking import rec


@pytest.mark.parametrize("skew", [timedelta(-1), timedelta(days=2), 5])
def test_a_bad_clock_skew_is_a_validation_error(skew: Any) -> None:
    with pytest.raises(ValidationError):
        WritePolicy(clock_skew=skew)


POLICY = WritePolicy(runtime_state_keys=frozenset({"deploy_status"}))


def test_policy_rules_in_order() -> None:
    def d(r: MemoryRecord, **kw: Any) -> WriteDisposition:
        return decide(r, policy=POLICY, **kw).disposition

    assert d(rec("a", content="   \n ")) is WriteDisposition.DISCARD
    assert d(rec("a", asserts="deploy_status", asserted_value="green")) is \
        WriteDisposition.DISCARD
    assert d(rec("a"), duplicate_ids=["z"]) is WriteDisposition.DISCARD
    assert d(rec("a", authority="untrusted")) is WriteDisposition.QUARANTINE
    assert d(rec("a", provenance={"source": "web"})) is WriteDisposition.QUARANTINE
    assert d(rec("a", authority="model_inferred")) is WriteDisposition.QUARANTINE
    assert d(rec("a", authority="model_inferred", evidence_ids=["e"])) is \
        WriteDisposition.PERSIST
    episodes = {f"e{i}": rec(f"e{i}", kind="episodic") for i in range(3)}
    weak = {**episodes, "e2": rec("e2", kind="episodic", authority="model_inferred")}
    proc = rec("p", kind="procedural", authority="model_inferred",
               evidence_ids=["e0", "e1", "e2"])
    assert d(proc, evidence=episodes) is WriteDisposition.PERSIST
    assert d(proc, evidence=weak) is WriteDisposition.QUARANTINE
    assert d(rec("p", kind="procedural", authority="human_instruction")) is \
        WriteDisposition.PERSIST
    strict = WritePolicy(require_future_decision=True)
    assert decide(rec("a"), policy=strict).disposition is WriteDisposition.DISCARD
    assert decide(rec("a", metadata={"future_decision": "refund approvals"}),
                  policy=strict).disposition is WriteDisposition.PERSIST
