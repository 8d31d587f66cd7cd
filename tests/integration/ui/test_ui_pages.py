"""The inspector over HTTP against a real Neo4j: pages answer for the principal given at start,
ids out of its reach are 404 whatever the URL, write actions exist only with writes allowed,
and errors are pages, never tracebacks."""

from __future__ import annotations

import re
import urllib.parse
from collections import Counter

import pytest

from graphmem.client import Memory
from graphmem.ui.config import UiConfig

from .serving import CONFINED, ID_PATHS, fetch, record, running, small_store

pytestmark = pytest.mark.neo4j


def confined(**options: object) -> UiConfig:
    return UiConfig.build(tenants=["acme"], scope={"user": CONFINED["user"]}, **options)  # type: ignore[arg-type]


def test_pages_show_what_the_principal_reaches(memory: Memory) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        listing = fetch(f"{base}/records")
        assert listing.status == 200
        for rid in ("ep-1", "pref-1", "pref-2", "wide-1"):
            assert f">{rid}<" in listing.body
        assert "bob-1" not in listing.body and "4411" not in listing.body
        only = fetch(f"{base}/records?kind=episodic")
        assert ">ep-1<" in only.body and ">pref-1<" not in only.body
        page = fetch(f"{base}/records/pref-1")
        assert page.status == 200
        assert "Alice prefers tea" in page.body
        assert "pref-2" in page.body  # its conflict partner
        assert "ep-1" in page.body  # its derivation parent
        assert "ACTIVE" in page.body
        assert "default-src &#39;self&#39;" not in page.body
        assert "default-src 'self'" in page.headers["content-security-policy"]
        graph = fetch(f"{base}/api/lineage/pref-1?direction=both&depth=2").json()
        assert {n["data"]["id"] for n in graph["nodes"]} == {"pref-1", "ep-1"}
        assert [(e["data"]["source"], e["data"]["target"]) for e in graph["edges"]] == [
            ("pref-1", "ep-1")]
        dot = fetch(f"{base}/export/lineage/pref-1?format=dot&direction=both&depth=1"
                    "&view=ep-1:both:1")
        assert dot.status == 200 and "pref-1" in dot.body and "ep-1" in dot.body
        plan = fetch(f"{base}/deletion/plan?roots=ep-1")
        assert plan.status == 200
        expected = memory.plan_deletion(["ep-1"], requested_by="t", reason="t")
        by = Counter(e.disposition.value for e in expected.entries)
        assert by["DELETE"] >= 1
        assert re.findall(r"<h2>(\w+ \(\d+\))</h2>", plan.body) == [
            f"{d} ({by[d]})" for d in ("DELETE", "RECOMPUTE", "REDACT", "QUARANTINE")]
        assert "Apply the deletion" not in plan.body
        retrieval = fetch(f"{base}/retrieval?goal=what+does+alice+drink")
        assert retrieval.status == 200 and "Candidates" in retrieval.body
        assert "pref-1" in retrieval.body and "bob-1" not in retrieval.body


@pytest.mark.parametrize("path", ID_PATHS)
def test_another_users_record_is_not_found_by_editing_the_url(memory: Memory,
                                                              path: str) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        answer = fetch(base + path)
    assert answer.status in (403, 404)
    assert "4411" not in answer.body and "Bob" not in answer.body
    assert "Traceback" not in answer.body
    assert "OutOfReachError" in answer.body or "RecordNotFoundError" in answer.body


def test_another_users_deletion_and_record_stay_out_of_reach_with_writes(
        memory: Memory) -> None:
    """With writes allowed and a valid token, the confined inspector can neither retract
    another user's record nor read the report or certificate of a deletion request made
    beyond its reach (by the operator, of that user's record), nor apply a plan it never
    previewed, whatever id the URL or the form names."""
    small_store(memory)
    memory.put(record("bob-2", "Bob's other note: lunch at noon", user="u-18", minutes=5))
    other = memory.apply_deletion(memory.plan_deletion(
        ["bob-1"], requested_by="operator", reason="erasure request of u-18"))
    request_id = other.request.id
    with running(memory, confined(allow_writes=True)) as base:
        token = fetch(f"{base}/records/pref-2").body.split(
            'name="token" value="')[1].split('"')[0]
        answers = {
            "report": fetch(f"{base}/deletion/requests/{request_id}"),
            "certificate": fetch(f"{base}/deletion/requests/{request_id}/certificate"),
            "apply": fetch(f"{base}/deletion/apply",
                           form={"confirm": "yes", "request_id": request_id, "token": token}),
            "retract": fetch(f"{base}/records/wide-1/retract",
                             form={"confirm": "yes", "reason": "x", "token": token}),
            "retract bob": fetch(f"{base}/records/bob-2/retract",
                                 form={"confirm": "yes", "reason": "x", "token": token}),
            "retract own": fetch(f"{base}/records/ep-1/retract",
                                 form={"confirm": "yes", "reason": "x", "token": token}),
        }
        bob = memory.plan_deletion(["pref-2"], requested_by="operator", reason="no preview")
        answers["apply unpreviewed"] = fetch(
            f"{base}/deletion/apply",
            form={"confirm": "yes", "request_id": bob.request_id, "token": token})
    for name in ("report", "certificate", "apply", "apply unpreviewed"):
        answer = answers[name]
        assert answer.status in (400, 403, 404), (name, answer.status)
        assert "bob-1" not in answer.body and "u-18" not in answer.body, name
        assert "Traceback" not in answer.body, name
    # a tenant-wide record is within reach but not the confined user's to change
    assert answers["retract"].status in (403, 404) and not memory.get("wide-1").retracted
    assert answers["retract bob"].status in (403, 404) and not memory.get("bob-2").retracted
    assert "Bob" not in answers["retract bob"].body
    assert answers["retract own"].status == 303  # the user's own record: allowed
    assert memory.get("pref-2").content == "Alice prefers coffee"  # the plan was not applied


def test_write_actions_exist_only_with_the_flag(memory: Memory) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        page = fetch(f"{base}/records/pref-2")
        assert "Retract" not in page.body
        refused = fetch(f"{base}/records/pref-2/retract",
                        form={"confirm": "yes", "reason": "wrong", "token": "x"})
        assert refused.status == 403
        assert fetch(f"{base}/deletion/apply", form={"confirm": "yes"}).status == 403
    assert not memory.get("pref-2").retracted
    with running(memory, confined(allow_writes=True)) as base:
        page = fetch(f"{base}/records/pref-2")
        assert "Retract" in page.body
        token = page.body.split('name="token" value="')[1].split('"')[0]
        unconfirmed = fetch(f"{base}/records/pref-2/retract",
                            form={"reason": "wrong", "token": token})
        assert unconfirmed.status == 400
        forged = fetch(f"{base}/records/pref-2/retract",
                       form={"confirm": "yes", "reason": "wrong", "token": token + "x"})
        assert forged.status == 403
        assert not memory.get("pref-2").retracted
        done = fetch(f"{base}/records/pref-2/retract",
                     form={"confirm": "yes", "reason": "wrong", "token": token})
        assert done.status == 303
        assert memory.get("pref-2").retracted
        history = memory.history("pref-2")
        assert any("graphmem-ui[acme;user=u-17]" in str(h["by"]) for h in history)
        plan = fetch(f"{base}/deletion/plan?roots=ep-1&reason=erasure")
        request_id = plan.body.split('name="request_id" value="')[1].split('"')[0]
        applied = fetch(f"{base}/deletion/apply",
                        form={"confirm": "yes", "request_id": request_id, "token": token})
        assert applied.status == 303
        report = fetch(base + applied.headers["location"])
        assert report.status == 200 and "Verification passed" in report.body
        cert = fetch(base + applied.headers["location"] + "/certificate")
        assert cert.status == 200 and request_id in cert.body


def test_bad_input_and_unknown_pages_are_error_pages(memory: Memory) -> None:
    small_store(memory)
    with running(memory, confined()) as base:
        for path, status in (("/records?kind=nonsense", 400), ("/records/pref-1?at=yesterday", 400),
                             ("/nowhere", 404), ("/lineage/pref-1?depth=-3", 400),
                             ("/export/lineage/pref-1?format=exe", 400),
                             ("/retrieval?goal=x&budget=0", 400),
                             # year 10000 at UTC: was a 500 (a raw OverflowError)
                             ("/records/pref-1?at=9999-12-31T23:59-05:00", 400),
                             ("/records?after=9999-12-31T23:59:59-12:00", 400),
                             ("/retrieval?goal=x&at=0001-01-01T00:00%2B14:00", 400),
                             ("/records?tenant=globex", 403)):
            answer = fetch(base + path)
            assert answer.status == status, path
            assert "<h1>" in answer.body and "Traceback" not in answer.body
        assert fetch(base + "/records", headers={"Host": "evil.example"}).status == 400


def test_a_record_id_in_any_script_exports_under_its_own_name(memory: Memory) -> None:
    """The download's file name kept the id's letters in a latin-1 header: an id of
    Cyrillic or CJK letters (ж-1, 記録-1) made every export of its lineage a 500 page."""
    memory.put_many([record("ж-1", "a note in Cyrillic"), record("記録-1", "a note in Japanese"),
                     record('q"uote;1', "a note with a quote")])
    with running(memory, confined()) as base:
        for rid in ("ж-1", "記録-1", 'q"uote;1'):
            path = urllib.parse.quote(rid, safe="")
            for fmt in ("json", "dot"):
                answer = fetch(f"{base}/export/lineage/{path}?format={fmt}")
                assert answer.status == 200, (rid, fmt)
                headers = {k.lower(): v for k, v in answer.headers.items()}
                disposition = headers["content-disposition"]
                assert disposition.isascii() and '"' not in disposition.split('"')[1]
                assert f"filename*=UTF-8''lineage-{path}." in disposition, disposition
