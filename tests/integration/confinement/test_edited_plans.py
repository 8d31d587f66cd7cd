"""A saved deletion plan edited by a confined caller changes nothing beyond its reach
(docs/spec/deletion.md#plan-format, docs/spec/eligibility.md#confinement).

A plan's digest is a SHA-256 of its content, not a secret: whoever edits a saved plan can
write the digest of the edited one, and :meth:`DeletionPlan.from_json` then loads it. So
every field an apply acts on must be judged against the applying caller's reach, not only
the entries: the tenants whose graph its terms are redacted from, its subject, and the
logged retrievals whose queries it redacts. Each edit here is refused whole with an
``AuthorizationError`` (nothing written), for a user-confined caller and for a tenant-wide
privacy principal alike, through ``Memory`` and ``AsyncMemory``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem import AsyncMemory, AuthorizationError, Memory, Principal
from graphmem.client import store_of
from graphmem.deletion import DeletionPlan
from tests.support.database import Neo4jUnderTest
from tests.support.principals import PRIVACY, T0, U17, U99

pytestmark = pytest.mark.neo4j

TERM = "Jane Roe"
GLOBEX = Principal(tenants=frozenset({"globex"}), scope={"user": "u-17"})


def _rec(rid: str, scope: dict[str, str], content: str) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "created_at": T0,
            "scope": scope, "authority": "human_instruction"}


def _retrieve(memory: Memory, principal: Principal, scope: dict[str, str]) -> str:
    result = memory.retrieve({"memory_scope": scope, "goal": f"who is {TERM}",
                              "needs_prior_context": True}, principal=principal,
                             now=T0 + timedelta(days=1))
    return result.trace.retrieval_id


def _world(memory: Memory) -> dict[str, str]:
    """acme's u-17 root holding the term; the same term in globex (a user of the same
    name) and in acme's u-99; retrievals whose queries hold it, of globex and of u-99."""
    memory.put(_rec("own", {"tenant": "acme", "user": "u-17"}, f"{TERM} lives at 1 Elm St"))
    memory.put(_rec("gx", {"tenant": "globex", "user": "u-17"}, f"{TERM} buys from globex"))
    memory.put(_rec("u99", {"tenant": "acme", "user": "u-99"}, f"{TERM} is u-99's aunt"))
    return {"globex": _retrieve(memory, GLOBEX, {"tenant": "globex", "user": "u-17"}),
            "u99": _retrieve(memory, U99, {"tenant": "acme", "user": "u-99"})}


def _edited(plan: DeletionPlan, **changes: Any) -> DeletionPlan:
    """``plan`` saved, edited and given the digest of the edited content, then loaded."""
    data = json.loads(plan.to_json())
    data.update(changes)
    data["digest"] = DeletionPlan.model_validate(data).compute_digest()
    return DeletionPlan.from_json(json.dumps(data))


def _hit(retrieval_id: str) -> dict[str, Any]:
    return {"retrieval_id": retrieval_id, "selected_ids": [], "query_holds_terms": True}


#: an edit of a saved plan, given the world's retrieval ids and the plan's JSON fields
EDITS: dict[str, Callable[[dict[str, str], dict[str, Any]], dict[str, Any]]] = {
    "another tenant": lambda q, p: {"tenants": [*p["tenants"], "globex"]},
    "another tenant's retrieval": lambda q, p: {
        "retrievals": [*p["retrievals"], _hit(q["globex"])]},
    "a retrieval beyond reach": lambda q, p: {"retrievals": [*p["retrievals"], _hit(q["u99"])]},
    "another tenant's subject": lambda q, p: {
        "subject": {"tenant": "globex", "user": "nobody"}, "tenants": ["globex"]},
}


def _state(memory: Memory, q: dict[str, str]) -> tuple[object, ...]:
    return (store_of(memory).get_props(["gx", "u99"]),
            *(memory.get_retrieval(v)["retrieval"]["query"] for v in q.values()))


#: (edit, who) pairs: u-99's retrieval is within the tenant-wide privacy principal's reach,
#: so that edit is beyond the reach of u-17 only
CASES = [(edit, who) for edit in sorted(EDITS) for who in ("u-17", "privacy")
         if not (edit == "a retrieval beyond reach" and who == "privacy")]


@pytest.mark.parametrize(("edit", "who"), CASES)
def test_an_edited_plan_is_refused_beyond_the_callers_reach(memory: Memory, edit: str,
                                                            who: str) -> None:
    q = _world(memory)
    principal = U17 if who == "u-17" else PRIVACY
    bound = memory.confined(principal)
    plan = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                               reason="r")
    edited = _edited(plan, **EDITS[edit](q, json.loads(plan.to_json())))
    before = _state(memory, q)
    with pytest.raises(AuthorizationError):
        bound.apply_deletion(edited, redact_terms=[TERM])
    assert _state(memory, q) == before
    assert memory.get("own").content.startswith(TERM)  # refused whole: nothing applied


def test_an_edited_plan_is_refused_through_the_async_client(neo4j_db: Neo4jUnderTest,
                                                            memory: Memory) -> None:
    q = _world(memory)

    async def run() -> None:
        async with await AsyncMemory.connect(neo4j_db.settings,
                                             start_if_needed=False) as aio:
            bound = aio.confined(PRIVACY)
            plan = await bound.plan_deletion(roots=["own"], redact_terms=[TERM],
                                             requested_by="a", reason="r")
            edited = _edited(plan, tenants=["acme", "globex"])
            with pytest.raises(AuthorizationError):
                await bound.apply_deletion(edited, redact_terms=[TERM])

    before = _state(memory, q)
    asyncio.run(run())
    assert _state(memory, q) == before


def test_the_unedited_plan_still_applies(memory: Memory) -> None:
    q = _world(memory)
    bound = memory.confined(PRIVACY)
    plan = bound.plan_deletion(roots=["own"], redact_terms=[TERM], requested_by="a",
                               reason="r")
    report = bound.apply_deletion(DeletionPlan.from_json(plan.to_json()), redact_terms=[TERM])
    assert report.verification.passed, report.verification.problems
    assert TERM in memory.get("gx").content  # another tenant's: untouched
    assert TERM in str(memory.get_retrieval(q["globex"])["retrieval"]["query"])


def test_a_plan_made_by_one_user_is_not_applied_by_another(memory: Memory) -> None:
    """Held before the fix too: a plan carries the reach it was made with."""
    _world(memory)
    plan = memory.confined(U17).plan_deletion(roots=["own"], requested_by="a", reason="r")
    with pytest.raises(AuthorizationError):
        memory.confined(U99).apply_deletion(DeletionPlan.from_json(plan.to_json()))
    assert memory.get("own").content.startswith(TERM)
    first = memory.confined(U17).apply_deletion(plan)
    again = memory.confined(U17).apply_deletion(DeletionPlan.from_json(plan.to_json()))
    assert not first.already_applied and again.already_applied
