"""Terms stored before diacritics, or before typographic apostrophes, hyphens and tatweel
were folded (docs/deletion-terms.md): a request's digests and a plan's checks are decided
with the scheme they were made with, so an old request neither passes falsely for a term
nor fails for a spelling it never covered, and an old plan is still applied with its own
terms. Pure: no database."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any, Literal

import pytest

from graphmem.deletion.apply import _request_props
from graphmem.deletion.fold import SCHEME, SCHEME_FOLDED, SCHEME_PLAIN, SCHEME_TYPOGRAPHIC
from graphmem.deletion.matcher import REDACTION, TermDigest, digest_terms
from graphmem.deletion.models import PLAN_VERSION, DeletionPlan, Disposition, PlanEntry
from graphmem.deletion.terms import check_terms, term_check
from graphmem.deletion.verify import request_matcher
from graphmem.errors import DeletionError

AT = datetime(2026, 1, 1, tzinfo=UTC)
KEY = b"k" * 32
ROOT = PlanEntry(id="r", disposition=Disposition.DELETE, reason="root", via="root")
TEXT = "Zoe Muller and ZOË MÜLLER"
CURLY = "O'Brien and O\u2019Brien, Jean-Luc and Jean\u2010Luc"
SCHEME_OF = {2: SCHEME_PLAIN, 3: SCHEME_FOLDED, 4: SCHEME_TYPOGRAPHIC, 5: SCHEME_TYPOGRAPHIC}


def _old_request(terms: list[str]) -> dict[str, Any]:
    """A request as the code before folding stored it: digests without a scheme."""
    digests = [{k: v for k, v in d.as_dict().items() if k != "scheme"}
               for d in digest_terms(terms, KEY, SCHEME_PLAIN)]
    return {"id": "del-old", "redact_key": KEY.hex(), "redact_terms_json": json.dumps(digests)}


def _new_request(terms: list[str], scheme: int = SCHEME) -> dict[str, Any]:
    digests = digest_terms(terms, KEY, scheme)
    return {"id": "del-new", "redact_key": KEY.hex(),
            "redact_terms_json": json.dumps([d.as_dict() for d in digests])}


def _plan(terms: list[str], *, version: Literal[2, 3, 4, 5]) -> DeletionPlan:
    salt = secrets.token_hex(16)
    scheme = SCHEME_OF[version]
    plan = DeletionPlan(version=version, request_id="del-1", requested_by="dpo", reason="r",
                        roots=("r",), planned_at=AT, entries=(ROOT,), term_salt=salt,
                        term_checks=tuple(term_check(t, salt, scheme) for t in terms))
    return plan.model_copy(update={"digest": plan.compute_digest()})


def test_a_digest_stored_without_a_scheme_is_read_with_accents_counting() -> None:
    old = TermDigest.from_dict({"digest": "ab", "length": 3, "breaks": []})
    assert old.scheme == SCHEME_PLAIN
    new = digest_terms(["Zoë"], KEY)[0]
    assert new.as_dict()["scheme"] == SCHEME == SCHEME_TYPOGRAPHIC
    assert TermDigest.from_dict(new.as_dict()) == new
    folded = digest_terms(["Zoë"], KEY, SCHEME_FOLDED)[0]
    assert TermDigest.from_dict(folded.as_dict()) == folded
    with pytest.raises(ValueError, match="unknown term scheme"):
        TermDigest.from_dict({"digest": "ab", "length": 3, "scheme": 9})


def test_an_old_request_is_verified_as_it_was_redacted() -> None:
    old = _old_request(["Zoë Müller"])
    from_digests = request_matcher(old)
    assert not from_digests.clear
    assert from_digests.redact(TEXT) == f"Zoe Muller and {REDACTION}"
    # given again, the term decides the same (and narrows the scan)
    given = request_matcher(old, ["zoë  müller"])
    assert given.clear and given.redact(TEXT) == from_digests.redact(TEXT)
    # the accent-free spelling was not this request's term
    with pytest.raises(DeletionError, match="not this request's"):
        request_matcher(old, ["Zoe Muller"])


def test_a_new_request_is_verified_with_accents_folded() -> None:
    new = _new_request(["Zoë Müller"], SCHEME_FOLDED)
    assert request_matcher(new).redact(TEXT) == f"{REDACTION} and {REDACTION}"
    given = request_matcher(new, ["Zoe Muller"])  # the same term now
    assert given.clear and given.redact(TEXT) == f"{REDACTION} and {REDACTION}"


def test_a_version_2_plan_checks_its_terms_with_accents_counting() -> None:
    old = _plan(["Zoë Müller"], version=2)
    assert DeletionPlan.from_json(old.to_json()) == old  # still loads, digest and all
    assert old.term_scheme == SCHEME_PLAIN
    assert check_terms(old, ["ZOË MÜLLER"]) == ("ZOË MÜLLER",)
    with pytest.raises(DeletionError, match="not the plan's"):
        check_terms(old, ["Zoe Muller"])
    # two terms that were two then, and are one now, are still given as two
    both = _plan(["Zoë", "Zoe"], version=2)
    assert check_terms(both, ["Zoe", "Zoë"]) == ("Zoë", "Zoe")


def test_a_version_3_plan_checks_its_terms_with_accents_folded() -> None:
    plan = _plan(["Zoë Müller"], version=3)
    assert plan.term_scheme == SCHEME_FOLDED
    assert check_terms(plan, ["Zoe Muller"]) == ("Zoe Muller",)


def test_an_old_plan_is_applied_with_the_current_matcher() -> None:
    """Its request keeps digests in the current scheme, one per term as read now."""
    props = _request_props(_plan(["Zoë", "Zoe"], version=2), AT, ("Zoë", "Zoe"))
    stored = json.loads(props["redact_terms_json"])
    assert props["redact_term_count"] == len(stored) == 1
    assert stored[0]["scheme"] == SCHEME_TYPOGRAPHIC
    assert request_matcher({"id": "x", **props}).redact("Zoe, ZOË") == \
        f"{REDACTION}, {REDACTION}"


# ------------------------------------- typographic apostrophes, hyphens, tatweel (scheme 3)


def test_a_request_of_scheme_2_is_verified_with_punctuation_as_written() -> None:
    """It was redacted that way: O\u2019Brien was not its term, and does not fail it."""
    old = _new_request(["O'Brien", "Jean-Luc"], SCHEME_FOLDED)
    from_digests = request_matcher(old)
    assert not from_digests.clear
    assert from_digests.redact(CURLY) == \
        f"{REDACTION} and O\u2019Brien, {REDACTION} and Jean\u2010Luc"
    given = request_matcher(old, ["o'brien", "JEAN-LUC"])
    assert given.clear and given.redact(CURLY) == from_digests.redact(CURLY)
    with pytest.raises(DeletionError, match="not this request's"):
        request_matcher(old, ["O\u2019Brien"])
    # stretched Arabic was another word then
    arabic = _new_request(["\u0645\u062d\u0645\u062f"], SCHEME_FOLDED)
    assert not request_matcher(arabic).holds("\u0645\u0640\u062d\u0645\u062f")


def test_a_request_of_scheme_3_is_verified_with_typographic_spellings_folded() -> None:
    new = _new_request(["O'Brien", "Jean-Luc"])
    everything = f"{REDACTION} and {REDACTION}, {REDACTION} and {REDACTION}"
    assert request_matcher(new).redact(CURLY) == everything
    given = request_matcher(new, ["O\u2019Brien", "Jean\u2011Luc"])  # the same terms now
    assert given.clear and given.redact(CURLY) == everything


def test_a_request_mixing_schemes_decides_each_digest_with_its_own() -> None:
    stored = [*digest_terms(["O'Brien"], KEY, SCHEME_FOLDED),
              *digest_terms(["Jean-Luc"], KEY, SCHEME_TYPOGRAPHIC)]
    req = {"id": "mixed", "redact_key": KEY.hex(),
           "redact_terms_json": json.dumps([d.as_dict() for d in stored])}
    assert request_matcher(req).redact(CURLY) == \
        f"{REDACTION} and O\u2019Brien, {REDACTION} and {REDACTION}"


def test_a_version_3_plan_checks_its_terms_with_punctuation_as_written() -> None:
    old = _plan(["O'Brien", "Jean-Luc"], version=3)
    assert DeletionPlan.from_json(old.to_json()) == old
    assert check_terms(old, ["JEAN-LUC", "o'brien"]) == ("o'brien", "JEAN-LUC")
    with pytest.raises(DeletionError, match="not the plan's"):
        check_terms(old, ["O\u2019Brien", "Jean-Luc"])
    # applied now, it redacts with the current matcher and stores scheme 3 digests
    props = _request_props(old, AT, ("O'Brien", "Jean-Luc"))
    assert {d["scheme"] for d in json.loads(props["redact_terms_json"])} == {SCHEME_TYPOGRAPHIC}
    assert REDACTION + " and " + REDACTION in request_matcher({"id": "x", **props}).redact(CURLY)


@pytest.mark.parametrize("version", [4, PLAN_VERSION])
def test_a_current_plan_checks_its_terms_in_any_typographic_spelling(version: Literal[4, 5]
                                                                      ) -> None:
    """Version 5 changed how a plan holds its entries, not how it reads terms."""
    plan = _plan(["O'Brien", "Jean-Luc", "\u0645\u062d\u0645\u062f"], version=version)
    assert PLAN_VERSION == 5 and plan.term_scheme == SCHEME_TYPOGRAPHIC
    assert DeletionPlan.from_json(plan.to_json()) == plan
    given = ["O\u2019Brien", "Jean\u2010Luc", "\u0645\u0640\u062d\u0645\u0640\u062f"]
    assert check_terms(plan, given) == tuple(given)
