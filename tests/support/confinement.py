"""The table of every Memory call that names a record, intention, retrieval or deletion request,
each as a confined client would make it against a victim of another user."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from graphmem import (
    Explanation,
    Memory,
    MemoryConflict,
)
from tests.support.principals import T0


@dataclass(frozen=True)
class Victim:
    """Ids a u-17 client of clearance normal must not reach."""

    record: str
    intention: str
    retrieval: str
    request: str


def _proposal(rid: str, **refs: Any) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": "a fresh note", "created_at": T0,
            "scope": {"tenant": "acme"}, "authority": "human_instruction", **refs}


Call = Callable[[Memory, Memory, Victim], object]


#: every public method of Memory that names an id, with the calls that name a victim's
CALLS: dict[str, list[Call]] = {
    "get": [lambda b, m, v: b.get(v.record)],
    "history": [lambda b, m, v: b.history(v.record)],
    "lineage": [lambda b, m, v: b.lineage(v.record, "both")],
    "retract": [lambda b, m, v: b.retract(v.record, by="a", reason="r")],
    "expire": [lambda b, m, v: b.expire(v.record, at=T0 + timedelta(days=2))],
    "promote": [lambda b, m, v: b.promote(v.record, by="a", reason="r")],
    "recompute": [lambda b, m, v: b.recompute(v.record, "new", by="a", reason="r"),
                  lambda b, m, v: b.recompute("own", "new", by="a", reason="r",
                                              derived_from=[v.record])],
    "write": [lambda b, m, v: b.write(_proposal("w1", supersedes=[v.record])),
              lambda b, m, v: b.write(_proposal("w2", derived_from=[v.record])),
              lambda b, m, v: b.write(_proposal("w3", evidence_ids=[v.record]))],
    "supersede": [lambda b, m, v: b.supersede([v.record], _proposal("s1"), by="a",
                                              reason="r")],
    "consolidate": [lambda b, m, v: b.consolidate(["own", v.record], into=_proposal("c1"),
                                                  by="a", reason="r")],
    "promote_procedure": [lambda b, m, v: b.promote_procedure(
        [v.record], {**_proposal("p1"), "kind": "procedural"}, by="a", reason="r")],
    "resolve": [lambda b, m, v: b.resolve(MemoryConflict("plan", ("own", v.record),
                                                         ("own", v.record)))],
    "record_exposure": [lambda b, m, v: b.record_exposure(v.retrieval, "act", [])],
    "record_use": [lambda b, m, v: b.record_use(v.retrieval, "act", [])],
    "get_retrieval": [lambda b, m, v: b.get_retrieval(v.retrieval)],
    "fire": [lambda b, m, v: b.fire(v.intention, by="a")],
    "cancel": [lambda b, m, v: b.cancel(v.intention, by="a", reason="r")],
    "intentions": [lambda b, m, v: b.intentions.get(v.intention),
                   lambda b, m, v: b.intentions.history(v.intention)],
    "plan_deletion": [lambda b, m, v: b.plan_deletion(roots=[v.record], requested_by="a",
                                                      reason="r")],
    "apply_deletion": [lambda b, m, v: b.apply_deletion(m.plan_deletion(
        roots=[v.record], requested_by="ops", reason="r"))],
    "verify_deletion": [lambda b, m, v: b.verify_deletion(v.request)],
    "deletion_certificate": [lambda b, m, v: b.deletion_certificate(v.request)],
    "check_certificate": [lambda b, m, v: b.check_certificate(m.deletion_certificate(
        v.request))],
    # bulk imports bypass the policy: a bound client may not use them at all
    "put": [lambda b, m, v: b.put(_proposal("x1", derived_from=[v.record]))],
    "put_many": [lambda b, m, v: b.put_many([_proposal("x2", supersedes=[v.record])])],
    "put_stream": [lambda b, m, v: b.put_stream([[_proposal("x3", derived_from=[v.record])]])],
    "import_jsonl": [lambda b, m, v: b.import_jsonl("/nonexistent/records.jsonl")],
}


#: id-taking methods that answer rather than refuse: they must say no more than for another
#: tenant's record (docs/spec/status.md: UNAUTHORIZED, without successors)
ANSWERS: dict[str, Callable[[Memory, Memory, Victim], Explanation]] = {
    "explain": lambda b, m, v: b.explain(v.record, scope={"tenant": "acme"}),
}
