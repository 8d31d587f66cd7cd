"""Redaction terms out of every text a tenant's graph holds, and the proof that they are gone
(SPEC section 7, issue 12 item 1).

Record content is not the only text a deletion request must clean: retraction and transition
reasons, write-decision reasons, logged retrieval queries, intention actions and cues,
exposure and use action ids, the reasons of earlier deletion requests, provenance and
metadata (values and keys) and any property somebody adds next year can hold the same name.
So both the redaction and the verification go over the tenant's graph generically
(``cypher/deletion/tenant_text.cypher``: every string and list-of-strings property of every
node and relationship, found with ``keys(n)`` and ``n[key]``; nodes of a label added later
count when they hang off the tenant's nodes), and one rule decides what is
left alone: :data:`STRUCTURAL_KEYS`, the identifiers, references, enum values and digests the
graph links and explains absence by (a tombstone keeps its id and scope: SPEC 7). A term found
there is reported by the verification (``identifiers_with_terms``) but cannot be redacted:
choose ids and scopes that carry no personal data.

Matching is the one used for record content: case-insensitive and on the NFC form of both
text and term (a name stored decomposed, "Rene\u0301", is the same text as "René"), on the
Python side (:func:`term_pattern`), after a Cypher pre-filter that compares the same way
(``toLower(normalize(...))``); ``[REDACTED]`` markers are never matched again, so redaction is
idempotent. JSON-encoded properties (``*_json``) are
decoded, redacted in keys and values, and encoded again, so they stay valid JSON.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graphmem.db.codec import assertion_group, coerce_record, record_from_props, record_props
from graphmem.db.store import Neo4jStore
from graphmem.deletion.plan import REDACTION
from graphmem.models import MemoryRecord

__all__ = ["RECORD_TEXT_KEYS", "STRUCTURAL_KEYS", "TextHit", "holds_term", "redact_json",
           "redact_record", "redact_tenant_text", "redact_text", "redact_value", "scan_tenant_text",
           "term_pattern", "text_problems"]

STRUCTURAL_KEYS: frozenset[str] = frozenset({
    # identifiers and references between nodes
    "id", "record_id", "intention_id", "retrieval_id", "derived_from", "evidence_ids",
    "supersedes", "selected_ids", "ids", "memory_ids", "candidate_ids", "erased_by_request",
    "added_ids", "removed_ids", "base_digests",
    "redacted_by_request",
    # tenant and scope: how eligibility and deletion by subject find nodes
    "tenant", "tenants", "principal_tenants", "scope_json", "subject_json", "key", "pairs",
    # values the code writes from closed sets
    "kind", "disposition", "state", "status", "trigger_kind", "ranker", "sensitivity",
    "authority", "clearance", "triggers",
    # digests, tokens and the request's own bookkeeping (ids and counts only)
    "digest", "candidate_digest", "fingerprint", "dedup_key", "epoch", "redact_term_digests",
    "fire_token", "_lock", "counts_json", "dangling_json", "retrievals_json", "gkey",
})
"""Property keys that are never redacted: identifiers, references, tenant and scope, enum
values and digests. Every other string property, present or future, is redacted and checked."""

RECORD_TEXT_KEYS: frozenset[str] = frozenset({
    "content", "asserts", "asserted_value", "provenance_json", "metadata_json", "source",
    "thread"})
"""The text of a live record that its fingerprints derive from: redacted through the record
model (:func:`redact_record`) so fingerprints are recomputed."""

_RECORD_DERIVED = ("content", "asserts", "asserted_value", "provenance_json", "source",
                   "metadata_json", "thread", "fingerprint", "dedup_key")


def term_pattern(terms: Sequence[str]) -> re.Pattern[str]:
    """A case-insensitive pattern for ``terms`` (longest first) that also matches existing
    ``[REDACTED]`` markers (group ``keep``), so they are skipped rather than redacted again."""
    alternatives = sorted({unicodedata.normalize("NFC", t) for t in terms}, key=len,
                          reverse=True)
    body = "|".join(re.escape(t) for t in alternatives)
    return re.compile(rf"(?P<keep>{re.escape(REDACTION)})|(?:{body})", re.IGNORECASE)


def _sub(match: re.Match[str]) -> str:
    return match.group(0) if match.group("keep") is not None else REDACTION


def redact_text(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with every term of ``pattern`` (:func:`term_pattern`) replaced by
    ``[REDACTED]``, matched on its NFC form; a text without a term comes back unchanged (a
    text with one comes back in NFC)."""
    nfc = unicodedata.normalize("NFC", text)
    if not any(m.group("keep") is None for m in pattern.finditer(nfc)):
        return text
    return pattern.sub(_sub, nfc)


def redact_json(value: Any, pattern: re.Pattern[str]) -> Any:
    """A decoded JSON value with terms redacted in every string, object keys included."""
    if isinstance(value, str):
        return redact_text(value, pattern)
    if isinstance(value, list):
        return [redact_json(v, pattern) for v in value]
    if isinstance(value, dict):
        return {redact_text(k, pattern): redact_json(v, pattern) for k, v in value.items()}
    return value


def redact_record(record: MemoryRecord, terms: Sequence[str]) -> MemoryRecord:
    """``record`` with every term (case-insensitive) replaced by ``[REDACTED]`` in its content,
    asserted key and value, thread, provenance (keys and values) and metadata (keys and
    strings)."""
    pattern = term_pattern(terms)
    data = record.model_dump()
    data["content"] = redact_text(record.content, pattern)
    for field in ("asserts", "asserted_value", "thread"):
        if data[field] is not None:
            data[field] = redact_text(data[field], pattern)
    data["provenance"] = redact_json(record.provenance, pattern)
    data["metadata"] = redact_json(record.metadata, pattern)
    return coerce_record(data)


def _json_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _json_strings(v)


def _texts(key: str, value: Any) -> list[str]:
    """The strings a property holds (a ``*_json`` string: its decoded keys and values)."""
    items = [value] if isinstance(value, str) else (
        [v for v in value if isinstance(v, str)] if isinstance(value, list) else [])
    if key.endswith("_json"):
        out: list[str] = []
        for item in items:
            try:
                out.extend(_json_strings(json.loads(item)))
            except ValueError:
                out.append(item)
        return out
    return items


def holds_term(key: str, value: Any, pattern: re.Pattern[str]) -> bool:
    """Whether property ``key`` = ``value`` holds a term outside ``[REDACTED]`` markers."""
    return any(m.group("keep") is None for text in _texts(key, value)
               for m in pattern.finditer(unicodedata.normalize("NFC", text)))


def redact_value(key: str, value: Any, pattern: re.Pattern[str]) -> Any:
    """Property ``key`` = ``value`` with terms redacted: strings and lists of strings; a
    ``*_json`` string that decodes is redacted inside and encoded again (sorted keys, UTF-8,
    the encoding of ``graphmem.db.codec``). Other values pass unchanged."""
    if isinstance(value, list):
        return [redact_value(key, v, pattern) for v in value]
    if not isinstance(value, str):
        return value
    if key.endswith("_json"):
        try:
            decoded = json.loads(value)
        except ValueError:
            return redact_text(value, pattern)
        return json.dumps(redact_json(decoded, pattern), sort_keys=True, ensure_ascii=False)
    return redact_text(value, pattern)


def _scan_terms(terms: Sequence[str]) -> list[str]:
    """Lower-cased NFC terms plus their JSON-escaped forms, for the Cypher pre-filter."""
    out: list[str] = []
    for term in terms:
        low = unicodedata.normalize("NFC", term).lower()
        for form in (low, json.dumps(low, ensure_ascii=False)[1:-1]):
            if form not in out:
                out.append(form)
    return out


@dataclass(frozen=True)
class TextHit:
    """One property of the tenant's graph that holds a term.

    Attributes:
        eid: the node's or relationship's element id. rel: a relationship.
        labels: the node's labels, or ``[type]`` of the relationship.
        owner: the node's id (or record/intention/retrieval id, digest or scope key; for a
            relationship, its start node's). key, value: the property.
        live_record: on a Record that is not erased. held: quarantined or pending recompute.
    """

    eid: str
    rel: bool
    labels: tuple[str, ...]
    owner: str
    key: str
    value: Any
    live_record: bool
    held: bool

    @property
    def where(self) -> str:
        """``Label owner.key`` (``TYPE from owner.key`` for a relationship)."""
        label = "/".join(self.labels)
        return f"{label} from {self.owner}.{self.key}" if self.rel else \
            f"{label} {self.owner}.{self.key}"


def scan_tenant_text(store: Neo4jStore, tenants: Sequence[str], terms: Sequence[str], *,
                     after: datetime | None = None, skip: Iterable[str] = (),
                     tx: ManagedTransaction | None = None) -> list[TextHit]:
    """Every string property of the tenants' graph that holds one of ``terms``.

    Args:
        store: the store. tenants: tenant names. terms: redaction terms (any case).
        after: leave out log nodes written after this aware time (see the Cypher file).
        skip: property keys not to report. tx: run inside this transaction.
    """
    if not terms or not tenants:
        return []
    pattern = term_pattern(terms)
    params = {"tenants": list(tenants), "terms": _scan_terms(terms), "after": after,
              "skip": sorted(skip)}
    rows = (store.run(tx, "deletion/tenant_text", **params) if tx is not None
            else store.read("deletion/tenant_text", **params))
    return [TextHit(eid=row["eid"], rel=row["rel"], labels=tuple(row["labels"]),
                    owner=str(row["owner"]), key=row["key"], value=row["value"],
                    live_record=row["live_record"], held=row["held"])
            for row in rows if holds_term(row["key"], row["value"], pattern)]


def redact_tenant_text(store: Neo4jStore, tx: ManagedTransaction, *, tenants: Sequence[str],
                       terms: Sequence[str], request_id: str, at: datetime) -> int:
    """Redact ``terms`` from every non-structural text of the tenants' graph, inside ``tx``.

    A live record's content, asserted key and value, thread, provenance and metadata go
    through the record model so its fingerprints follow, and a record whose asserted key
    changed moves to that key's assertion group; every other property is redacted where it
    is. Running it again finds nothing to change.

    Returns:
        How many nodes and relationships changed.
    """
    hits = scan_tenant_text(store, tenants, terms, skip=STRUCTURAL_KEYS, tx=tx)
    if not hits:
        _regroup_assertions(store, tx, [], tenants, terms)
        return 0
    pattern = term_pattern(terms)
    changes: dict[str, dict[str, Any]] = {}
    kinds: dict[str, bool] = {}
    records: list[str] = []
    for hit in hits:
        kinds[hit.eid] = hit.rel
        if hit.live_record and hit.key in RECORD_TEXT_KEYS:
            records.append(hit.eid)
            continue
        changes.setdefault(hit.eid, {})[hit.key] = redact_value(hit.key, hit.value, pattern)
    regroup: list[dict[str, str]] = []
    if records:
        for row in store.run(tx, "deletion/records_by_element", eids=sorted(set(records))):
            old = record_from_props(row["record"])
            redacted = redact_record(old, terms)
            new = record_props(redacted)
            changes.setdefault(row["eid"], {}).update({k: new[k] for k in _RECORD_DERIVED})
            if redacted.asserts is not None and redacted.asserts != old.asserts:
                regroup.append({"eid": row["eid"], "key": redacted.asserts,
                                "gkey": assertion_group(redacted.tenant, redacted.asserts)})
    rows = [{"eid": eid, "rel": kinds[eid], "props": props} for eid, props in changes.items()]
    store.run(tx, "deletion/redact/text", rows=rows, request_id=request_id, at=at)
    _regroup_assertions(store, tx, regroup, tenants, terms)
    return len(rows)


def _regroup_assertions(store: Neo4jStore, tx: ManagedTransaction, rows: list[dict[str, str]],
                        tenants: Sequence[str], terms: Sequence[str]) -> None:
    """Move redacted records to the group of their redacted key; drop emptied groups whose
    key holds a term (an assertion group's key is the asserted key's text)."""
    store.run(tx, "deletion/regroup_assertions", rows=rows, tenants=list(tenants),
              terms=[t.lower() for t in terms])


def text_problems(hits: Iterable[TextHit]) -> Mapping[str, tuple[str, ...]]:
    """The verification's term findings by category (see :class:`~graphmem.deletion.models.
    Verification`): retrievable / stored record text, intention actions, retrieval queries,
    any other text, and identifiers (reported, never redacted)."""
    found: dict[str, set[str]] = {}
    for hit in hits:
        if hit.key in STRUCTURAL_KEYS:
            place = "identifiers_with_terms"
        elif hit.live_record and hit.key in RECORD_TEXT_KEYS:
            place = "stored_with_terms" if hit.held else "retrievable_with_terms"
        elif not hit.rel and "Intention" in hit.labels and hit.key == "action":
            place = "intentions_with_terms"
        elif not hit.rel and "Retrieval" in hit.labels and hit.key == "query":
            place = "retrievals_with_terms"
        else:
            place = "text_with_terms"
        found.setdefault(place, set()).add(
            hit.where if place in ("text_with_terms", "identifiers_with_terms") else hit.owner)
    return {place: tuple(sorted(ids)) for place, ids in found.items()}
