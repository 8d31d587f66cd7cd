"""Names written without their accents, or with typographic punctuation or tatweel, are
erased and proved gone like the spelling of the term (docs/deletion-terms.md), against Neo4j:
``Zoe Muller`` for ``Zoë Müller``, Greek capitals without tonos, ``Ilker Sahin`` for
``İlker Şahin``, ``O\u2019Brien`` for ``O'Brien``, stretched Arabic for ``محمد``; a request
stored before accents, or before apostrophes, hyphens and tatweel were folded is still
verified as it was redacted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from graphmem.client import Memory, store_of
from graphmem.deletion import DeletionPlan
from graphmem.deletion.fold import SCHEME_FOLDED, SCHEME_PLAIN
from graphmem.deletion.matcher import digest_terms

NOW = datetime(2026, 9, 15, 12, tzinfo=UTC)
U17 = {"tenant": "acme", "user": "u-17"}
TEAM = {"tenant": "acme", "team": "ops"}
TERMS = ["Zoë Müller", "Σοφία Παππά", "İlker Şahin"]
UNACCENTED = ("ΣΟΦΙΑ ΠΑΠΠΑ (passport), Zoe Muller (web form), Ilker Sahin; "
              "also σοφια παππα")
UNTOUCHED = "Zoë Müllerová and Ilkers from the Παππάς office"


def _rec(rid: str, content: str, scope: dict[str, str]) -> dict[str, Any]:
    return {"id": rid, "kind": "semantic", "content": content, "scope": scope,
            "created_at": "2026-09-01T09:00:00+00:00", "authority": "human_instruction"}


def _apply(memory: Memory) -> DeletionPlan:
    memory.write(_rec("u17-call", "Call with Zoë Müller about a refund", U17), now=NOW)
    memory.write(_rec("plain", UNACCENTED, TEAM), now=NOW)
    memory.write(_rec("near", UNTOUCHED, TEAM), now=NOW)
    plan = memory.plan_deletion(subject=U17, redact_terms=TERMS, requested_by="dpo",
                                reason="GDPR art. 17")
    assert "plain" in {e.id for e in plan.entries if e.terms}
    assert "near" not in {e.id for e in plan.entries}
    # from the plan file, with the terms given again in their accent-free spelling
    loaded = DeletionPlan.from_json(plan.to_json())
    report = memory.apply_deletion(loaded, redact_terms=["ZOE MULLER", "ΣΟΦΙΑ ΠΑΠΠΑ",
                                                         "Ilker Sahin"])
    assert report.verification.passed, report.verification.problems
    assert (report.verification.terms_requested, report.verification.terms_checked) == (3, 3)
    return plan


def test_unaccented_spellings_are_redacted_and_verified(memory: Memory) -> None:
    plan = _apply(memory)
    assert memory.get("plain").content == (
        "[REDACTED] (passport), [REDACTED] (web form), [REDACTED]; also [REDACTED]")
    assert memory.get("near").content == UNTOUCHED
    # an accent-free spelling written afterwards is found by the request's own digests
    memory.write(_rec("later", "ticket from zoe muller", TEAM), now=NOW)
    v = memory.verify_deletion(plan.request_id).verification
    assert not v.passed and v.retrievable_with_terms == ("later",)
    given = memory.verify_deletion(plan.request_id, redact_terms=["Zoë Müller"]).verification
    assert not given.passed and given.retrievable_with_terms == ("later",)


def test_a_request_stored_before_folding_is_verified_as_it_was_redacted(
        memory: Memory) -> None:
    plan = _apply(memory)
    store = store_of(memory)
    props = store.read("deletion/request/get", id=plan.request_id)[0]["request"]
    key = bytes.fromhex(props["redact_key"])
    old = [{k: v for k, v in d.as_dict().items() if k != "scheme"}
           for d in digest_terms(TERMS, key, SCHEME_PLAIN)]
    store.driver.execute_query(
        "MATCH (q:DeletionRequest {id: $id}) SET q.redact_terms_json = $old",
        id=plan.request_id, old=json.dumps(old), database_=store.database)
    assert memory.verify_deletion(plan.request_id).verification.passed
    # an accent-free spelling is not what such a request covered ...
    memory.write(_rec("later-plain", "ticket from Ilker Sahin", TEAM), now=NOW)
    assert memory.verify_deletion(plan.request_id).verification.passed
    # ... the accented term is, and never passes unnoticed
    memory.write(_rec("later-accented", "ticket from İLKER ŞAHİN", TEAM), now=NOW)
    v = memory.verify_deletion(plan.request_id).verification
    assert not v.passed and v.retrievable_with_terms == ("later-accented",)
    assert (v.terms_requested, v.terms_checked) == (3, 3)


TYPOGRAPHIC = "Call O\u2019Brien (\u0645\u0640\u062d\u0640\u0645\u0640\u062f), and Jean\u2011Luc"
NEAR = "Obrienne and Jean\u2010Lucas met \u0645\u062d\u0645\u0648\u062f"  # Mahmoud
ERASED = ["O\u2019Brien", "O'Brien", "\u0645\u0640\u062d\u0640\u0645\u0640\u062f",
          "\u0645\u062d\u0645\u062f", "Jean\u2011Luc", "Jean-Luc"]


def _stored_texts(memory: Memory) -> list[str]:
    """Every string (and string in a list) of every node and relationship: a raw scan."""
    store = store_of(memory)
    rows, _, _ = store.driver.execute_query(
        "MATCH (n) RETURN properties(n) AS props UNION ALL "
        "MATCH ()-[e]->() RETURN properties(e) AS props", database_=store.database)
    texts: list[str] = []
    for row in rows:
        for value in row["props"].values():
            items = value if isinstance(value, list) else [value]
            texts.extend(v for v in items if isinstance(v, str))
    return texts


def test_typographic_and_stretched_spellings_are_redacted_and_verified(
        memory: Memory) -> None:
    memory.write(_rec("u17-typo", "Ticket for O\u2019Brien", U17), now=NOW)
    memory.write(_rec("typo", TYPOGRAPHIC, TEAM), now=NOW)
    memory.write(_rec("near", NEAR, TEAM), now=NOW)
    plan = memory.plan_deletion(subject=U17, redact_terms=["O'Brien", "\u0645\u062d\u0645\u062f",
                                                           "Jean-Luc"],
                                requested_by="dpo", reason="GDPR art. 17")
    assert "typo" in {e.id for e in plan.entries if e.terms}
    assert "near" not in {e.id for e in plan.entries}
    # the plan file's checks take the terms again in their typographic spelling
    loaded = DeletionPlan.from_json(plan.to_json())
    report = memory.apply_deletion(loaded, redact_terms=[
        "O\u2019BRIEN", "\u0645\u0640\u062d\u0645\u062f", "Jean\u2010Luc"])
    v = report.verification
    assert v.passed, v.problems
    assert (v.terms_requested, v.terms_checked) == (3, 3)
    assert memory.get("typo").content == "Call [REDACTED] ([REDACTED]), and [REDACTED]"
    assert memory.get("near").content == NEAR
    texts = _stored_texts(memory)
    assert NEAR in texts
    assert not [t for t in texts if any(name in t for name in ERASED)]
    assert memory.verify_deletion(plan.request_id).verification.passed
    # a spelling written afterwards is found by the request's own digests
    memory.write(_rec("later", "ticket from O\u02bcBRIEN", TEAM), now=NOW)
    v = memory.verify_deletion(plan.request_id).verification
    assert not v.passed and v.retrievable_with_terms == ("later",)
    # ... but not by digests made as before (scheme 2): such a request never covered it
    store = store_of(memory)
    props = store.read("deletion/request/get", id=plan.request_id)[0]["request"]
    old = digest_terms(["O'Brien", "\u0645\u062d\u0645\u062f", "Jean-Luc"],
                       bytes.fromhex(props["redact_key"]), SCHEME_FOLDED)
    store.driver.execute_query(
        "MATCH (q:DeletionRequest {id: $id}) SET q.redact_terms_json = $old",
        id=plan.request_id, old=json.dumps([d.as_dict() for d in old]),
        database_=store.database)
    assert memory.verify_deletion(plan.request_id).verification.passed
