"""Redaction terms as a deletion plan holds them (docs/spec/deletion.md): cleaned, checked against
the plan's salted digests, never kept in clear (``docs/deletion-terms.md``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from graphmem.deletion.fold import SCHEME
from graphmem.deletion.matcher import term_spec
from graphmem.deletion.models import DeletionPlan
from graphmem.errors import DeletionError, ValidationError

__all__ = ["check_terms", "check_text", "clean_terms", "term_check"]


def clean_terms(terms: Iterable[str], scheme: int = SCHEME) -> tuple[str, ...]:
    """Redaction terms as given, trimmed, without repeats (two spellings the matcher reads
    the same with ``scheme``, "Jane Roe" and "JANE  ROE", or with the current scheme "Zoë"
    and "Zoe", "O'Brien" and "O\u2019Brien", are one term: the first is kept).

    Args:
        terms: the terms as given. scheme: how to read them (:mod:`graphmem.deletion.fold`).

    Raises:
        ValidationError: a term is not a string, or holds no letter or digit.
    """
    out: list[str] = []
    seen: set[object] = set()
    for term in terms:
        if not isinstance(term, str) or not term.strip():
            raise ValidationError("redaction terms must be non-empty strings")
        check_text(term)
        try:
            spec = term_spec(term, scheme)
        except ValueError as exc:
            raise ValidationError(f"redaction term {term!r}: {exc}") from None
        if spec not in seen:
            seen.add(spec)
            out.append(term.strip())
    return tuple(out)


def term_check(term: str, salt: str, scheme: int = SCHEME) -> str:
    """The plan's digest of ``term``: scrypt (N=2^14, r=8, p=1) of its normalised form (the
    matcher's skeleton, read with ``scheme``, and breaks) salted with ``salt`` (hex), so a plan
    file holds no term in clear and a guess costs a slow hash. Spellings the matcher reads the
    same give the same check (a plan's scheme: :attr:`DeletionPlan.term_scheme`).

    Raises:
        ValueError: the term holds no letter or digit; ``salt`` is not hex.
    """
    spec = term_spec(term, scheme)
    canonical = spec.key + "\x00" + ",".join(str(b) for b in spec.breaks)
    return hashlib.scrypt(canonical.encode("utf-8"), salt=bytes.fromhex(salt), n=2 ** 14,
                          r=8, p=1, dklen=32).hex()


def check_terms(plan: DeletionPlan, terms: Iterable[str] | None) -> tuple[str, ...]:
    """The clear terms to apply ``plan`` with: ``terms`` when given (they must be exactly the
    plan's, in any spelling the matcher reads the same), else the ones the plan keeps in
    memory. They are checked with the scheme the plan's checks were made with (a version 2
    plan: accents count; a version 3 plan: apostrophes, hyphens and tatweel as written), and
    applied with the current matcher (``docs/deletion-terms.md``).

    Raises:
        DeletionError: the plan names terms and none were given (a plan loaded from a file:
            pass them again), or the terms given are not the plan's.
        ValidationError: a term is empty or holds no letter or digit.
    """
    scheme = plan.term_scheme
    given = clean_terms(terms, scheme) if terms is not None else plan.clear_terms
    if not plan.term_checks:
        if given:
            raise DeletionError("this plan names no redaction term; plan again with the "
                                "terms", record_ids=[plan.request_id])
        return ()
    if not given:
        raise DeletionError(
            f"this plan redacts {plan.term_count} term(s), which it keeps only as digests: "
            "give them again (`graphmem delete apply PLAN --redact TERM`, or "
            "apply_deletion(plan, redact_terms=[...]))", record_ids=[plan.request_id])
    checks = [term_check(t, plan.term_salt, scheme) for t in given]
    if sorted(checks) != sorted(plan.term_checks):
        raise DeletionError(
            f"the {len(given)} term(s) given are not the plan's {plan.term_count}: give "
            "exactly the terms it was planned with", record_ids=[plan.request_id])
    by_check = dict(zip(checks, given, strict=True))
    return tuple(by_check[c] for c in plan.term_checks)


def check_text(text: object) -> None:
    """Reject what the plan's JSON digest cannot encode (else pydantic's serialization error
    would escape raw): non-strings and strings with lone surrogates.

    Raises:
        ValidationError: ``text`` is not a string, or holds a lone surrogate.
    """
    if not isinstance(text, str):
        raise ValidationError(f"expected a string, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValidationError("a string is not valid Unicode (it holds a lone surrogate)"
                              ) from None
