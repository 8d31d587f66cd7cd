"""Redaction terms out of every text a tenant's graph holds, and the proof that they are gone
(docs/spec/deletion.md).

Record content is not the only text a deletion request must clean: retraction and transition
reasons, write-decision reasons, logged retrieval queries, intention actions and cues,
exposure and use action ids, the reasons of earlier deletion requests, provenance and
metadata (values and keys) and any property somebody adds next year can hold the same name.
So both the redaction and the verification go over the tenant's graph generically
(``cypher/deletion/tenant_text.cypher``: every string and list-of-strings property of every node and
relationship, found with ``keys(n)`` and ``n[key]``; nodes of a label added later count when they
hang off the tenant's nodes), and one rule decides what is left alone: :data:`STRUCTURAL_KEYS`, the
identifiers, references, enum values and digests the graph links and explains absence by (a
tombstone keeps its id and scope: docs/spec/deletion.md). A term found there is reported by the
verification (``identifiers_with_terms``) but cannot be redacted: choose ids and scopes that carry
no personal data.

Matching is the request's one term matcher (:mod:`~graphmem.deletion.matcher`: normalised,
whole words, variants of spacing, case and accents), on the Python side. The Cypher scan only
narrows the candidates, and never misses one (:func:`narrowing`): it passes every string that is not
ASCII, holds a backslash (JSON escapes), or holds the ASCII anchor of a clear term; with
digests it passes every string. ``[REDACTED]`` markers are never matched again, so redaction
is idempotent. JSON-encoded properties (``*_json``) are
decoded, redacted in keys and values, and encoded again, so they stay valid JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.db.codec import (
    STAMP_KEYS,
    assertion_group,
    coerce_record,
    record_from_props,
    record_props,
)
from graphmem.db.index_key import cue_digest
from graphmem.db.langgraph_shape import value_facts
from graphmem.db.ops.deletion import DeletionOps, TextSource
from graphmem.db.ops.erasure import ErasureTx
from graphmem.db.ops.intentions import intention_from_props, intention_props
from graphmem.db.reserved import LANGGRAPH
from graphmem.db.store import Neo4jStore
from graphmem.deletion.matcher import TermMatcher
from graphmem.deletion.models import PlanReach
from graphmem.deletion.reach import text_reach
from graphmem.models import MemoryRecord

__all__ = ["INTENTION_TEXT_KEYS", "RECORD_TEXT_KEYS", "STRUCTURAL_KEYS", "TextHit",
           "holds_term", "item_facts", "matcher_of", "narrowing", "redact_intention", "redact_json",
           "redact_record", "redact_tenant_text", "redact_text", "redact_value",
           "scan_tenant_text", "text_problems"]

STRUCTURAL_KEYS: frozenset[str] = frozenset({
    # identifiers and references between nodes
    "id", "record_id", "intention_id", "retrieval_id", "derived_from", "evidence_ids",
    "supersedes", "selected_ids", "ids", "memory_ids", "candidate_ids", "erased_by_request",
    "added_ids", "removed_ids", "base_digests",
    "redacted_by_request",
    # tenant and scope: how eligibility and deletion by subject find nodes
    "tenant", "tenants", "principal_tenants", "scope_json", "subject_json", "key", "pairs",
    # values the code writes from closed sets (an intention's trigger_kind is not one: an
    # event key is free text, {"Jane Roe": "arrived"})
    "kind", "disposition", "state", "status", "ranker", "sensitivity",
    "authority", "clearance", "triggers",
    # digests, tokens and the request's own bookkeeping (ids and counts only)
    "digest", "candidate_digest", "fingerprint", "dedup_key", "epoch", "redact_term_digests",
    "fire_token", "cancel_token", "create_token", "_lock", "counts_json", "dangling_json",
    "retrievals_json", "gkey",
    "redact_key", "redact_terms_json", "written_at", "reach_json", "cue_digest", "thread_key",
}) | STAMP_KEYS  # a record's version stamps
"""Property keys that are never redacted: identifiers, references, tenant and scope, enum
values and digests. Every other string property, present or future, is redacted and checked."""

RECORD_TEXT_KEYS: frozenset[str] = frozenset({
    "content", "asserts", "asserted_value", "provenance_json", "metadata_json", "source",
    "thread"})
"""The text of a live record that its fingerprints derive from: redacted through the record
model (:func:`redact_record`) so fingerprints are recomputed."""

INTENTION_TEXT_KEYS: tuple[str, ...] = ("action", "trigger_kind", "trigger_value")
"""The text of a live intention that its fingerprint and cue digest derive from: redacted
through :func:`redact_intention`, so both follow the redacted text."""

_RECORD_DERIVED = ("content", "asserts", "asserted_value", "provenance_json", "source",
                   "metadata_json", "thread", "thread_key", "fingerprint", "dedup_key")


def matcher_of(terms: TermMatcher | Iterable[str]) -> TermMatcher:
    """``terms`` as a :class:`~graphmem.deletion.matcher.TermMatcher` (clear terms are
    matched as given).

    Raises:
        ValueError: a term holds no letter or digit.
    """
    return terms if isinstance(terms, TermMatcher) else TermMatcher.from_terms(terms)


def narrowing(matcher: TermMatcher) -> str | None:
    """The Java regular expression a Cypher scan narrows candidate strings with (``s =~ it``),
    or None to pass every string (a matcher of digests: no anchor is known).

    A string fails it only when it is ASCII, holds no backslash, no control character the
    matcher reads as an invisible one (docs/deletion-terms.md#control-characters: inside a
    word it is skipped, so ``J\x00ane`` holds ``Jane`` but not its anchor) and no anchor of
    a clear term (any case): such a string normalises to its lower case with nothing
    ignorable, so each piece of a term it holds is a contiguous run of it (the anchor), and
    a JSON string without escapes decodes to runs of itself. The anchor comes from the
    term's skeleton, read with its scheme: with diacritics folded, ``Zoë Müller``'s anchor is
    ``muller``, which ``Zoe Muller`` holds. So the narrowing never drops a string the matcher
    would match (``tests/unit/deletion/test_matcher.py`` checks it on random
    text).
    """
    anchors = matcher.anchors()
    if anchors is None:
        return None
    wanted = [r"[^\x00-\x7F]", r"\\", r"[\x00-\x08\x0E-\x1B\x7F]"]
    if anchors:
        wanted.append("(?i:" + "|".join(anchors) + ")")
    return "(?s).*(?:" + "|".join(wanted) + ").*"


def redact_text(text: str, matcher: TermMatcher) -> str:
    """``text`` with every match of ``matcher`` replaced by ``[REDACTED]``; every other
    character stays as it was (a text without a term comes back unchanged)."""
    return matcher.redact(text)


def _number_text(value: Any) -> str | None:
    """A JSON number as the JSON text holds it (None for anything else, booleans too)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    return None


def _nested(key: Any, value: Any) -> Any:
    """A string under a ``*_json`` key of a decoded JSON value (as the LangGraph store keeps
    an item's value), decoded; None when it is not such a string or does not decode."""
    if not (isinstance(key, str) and key.endswith("_json") and isinstance(value, str)):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def redact_json(value: Any, matcher: TermMatcher) -> Any:
    """A decoded JSON value with terms redacted in every string, object keys included; a
    number whose JSON text holds a term becomes that text redacted (a string), and a string
    under a ``*_json`` key that decodes and holds a term is redacted as JSON and encoded
    again, so it stays JSON (a phone number in a LangGraph item's value left
    ``"phone": [REDACTED]``, which no reader could decode); one holding none is kept as
    written."""
    if isinstance(value, str):
        return matcher.redact(value)
    if (number := _number_text(value)) is not None:
        return matcher.redact(number) if matcher.holds(number) else value
    if isinstance(value, list):
        return [redact_json(v, matcher) for v in value]
    if isinstance(value, dict):
        return {matcher.redact(k): _redact_member(k, v, matcher) for k, v in value.items()}
    return value


def _redact_member(key: Any, value: Any, matcher: TermMatcher) -> Any:
    """One member of a JSON object, redacted: a ``*_json`` string that decodes is redacted as
    JSON and encoded again, or kept as written when its value holds no term (not rounded or
    respaced)."""
    inner = _nested(key, value)
    if inner is None:
        return redact_json(value, matcher)
    redacted = redact_json(inner, matcher)
    return matcher.redact(value) if redacted == inner else json.dumps(redacted,
                                                                      ensure_ascii=False)


def redact_record(record: MemoryRecord, terms: TermMatcher | Sequence[str]) -> MemoryRecord:
    """``record`` with every term (matched by :mod:`~graphmem.deletion.matcher`) replaced by
    ``[REDACTED]`` in its content, asserted key and value, thread, provenance (keys and
    values) and metadata (keys and strings).

    Raises:
        ValueError: a term holds no letter or digit.
    """
    pattern = matcher_of(terms)
    data = record.model_dump()
    data["content"] = redact_text(record.content, pattern)
    for field in ("asserts", "asserted_value", "thread"):
        if data[field] is not None:
            data[field] = redact_text(data[field], pattern)
    data["provenance"] = redact_json(record.provenance, pattern)
    data["metadata"] = redact_json(record.metadata, pattern)
    return coerce_record(data)


def item_facts(stored: Mapping[str, Any], redacted: MemoryRecord) -> dict[str, Any]:
    """The filter facts of a LangGraph item (``lg_facts``, ``lg_num_paths``, ``lg_nums``:
    :func:`graphmem.db.langgraph_shape.value_facts`) as its redacted value makes them, for a
    record stored with facts; ``{}`` for any other record. Kept as they were, a filter on the
    erased value (``{"name": "Jane Roe"}``) still found the item, and ``lg_nums`` held an
    erased number in clear.

    Args:
        stored: the record's stored properties. redacted: the record after
            :func:`redact_record`.
    """
    if stored.get("lg_facts") is None:
        return {}
    meta = redacted.metadata.get(LANGGRAPH)
    try:
        value = json.loads(meta["value_json"]) if isinstance(meta, dict) else None
    except (TypeError, ValueError, KeyError):
        value = None
    return value_facts(value if isinstance(value, dict) else {})


def redact_intention(props: Mapping[str, Any], terms: TermMatcher | Sequence[str],
                     key: bytes) -> dict[str, Any]:
    """The properties a redaction sets on a live intention (``props``: as stored): its
    action, cue kind and cue value with every term replaced by ``[REDACTED]``, and the
    fingerprint and cue digest of the result, so neither keeps a digest of the old text
    (docs/deletion-terms.md, "Where the terms are kept") and the cue's index entry follows.

    Args:
        props: the intention's stored properties (not erased). terms: a matcher or clear
            terms. key: the database's index key (:func:`graphmem.db.index_key.index_key`).

    Raises:
        ValueError: a term holds no letter or digit.
    """
    pattern = matcher_of(terms)
    old = intention_from_props(props)
    texts = {k: redact_text(getattr(old, k), pattern) for k in INTENTION_TEXT_KEYS}
    new = old.model_copy(update=texts)
    return {**texts, "fingerprint": intention_props(new)["fingerprint"],
            "cue_digest": cue_digest(key, new.tenant, new.trigger_kind, new.trigger_value)}


def _json_strings(value: Any) -> Iterable[str]:
    """The texts of a decoded JSON value, as :func:`redact_json` reads them: strings, keys,
    numbers' JSON text, and the texts of a ``*_json`` string that decodes."""
    if isinstance(value, str):
        yield value
    elif (number := _number_text(value)) is not None:
        yield number
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            inner = _nested(k, v)
            yield from _json_strings(v if inner is None else inner)


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


def holds_term(key: str, value: Any, matcher: TermMatcher) -> bool:
    """Whether property ``key`` = ``value`` holds a term outside ``[REDACTED]`` markers."""
    return any(matcher.holds(text) for text in _texts(key, value))


def terms_in(key: str, value: Any, matcher: TermMatcher) -> set[int]:
    """The numbers of the matcher's terms that property ``key`` = ``value`` holds."""
    return {n for text in _texts(key, value) for n in matcher.found(text)}


def redact_value(key: str, value: Any, pattern: TermMatcher) -> Any:
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


def scan_tenant_text(source: Neo4jStore | TextSource, tenants: Sequence[str],
                     terms: TermMatcher | Sequence[str], *,
                     after: datetime | None = None, skip: Iterable[str] = (),
                     reach: PlanReach | None = None) -> list[TextHit]:
    """Every string property of the tenants' graph that holds one of ``terms``.

    Args:
        source: the store (statements of their own), or an erasure's transaction
            (:class:`~graphmem.db.ops.erasure.ErasureTx`) to scan inside it.
        tenants: tenant names. terms: a matcher, or clear terms.
        after: leave out log nodes written (by the server's clock: ``written_at``, else
            ``at``) after this aware time (see the Cypher file).
        skip: property keys not to report.
        reach: a confined deletion's reach: only the part of the graph its principal may
            change is scanned (see the Cypher file); None: the whole of the tenants'.

    Raises:
        ValueError: a term holds no letter or digit.
    """
    pattern = matcher_of(terms)
    if not pattern or not tenants:
        return []
    ops = DeletionOps(source) if isinstance(source, Neo4jStore) else source
    rows = ops.tenant_text(tenants, pattern=narrowing(pattern), after=after, skip=sorted(skip),
                           reach=text_reach(ops, tenants, reach))
    return [TextHit(eid=row.eid, rel=row.rel, labels=tuple(row.labels), owner=str(row.owner),
                    key=row.key, value=row.value, live_record=row.live_record, held=row.held)
            for row in rows if holds_term(row.key, row.value, pattern)]


def redact_tenant_text(tx: ErasureTx, *, tenants: Sequence[str],
                       terms: TermMatcher | Sequence[str], request_id: str, at: datetime,
                       reach: PlanReach | None = None) -> int:
    """Redact ``terms`` from every non-structural text of the tenants' graph, inside erasure
    transaction ``tx`` (with ``reach``, a confined deletion's: only from the part its
    principal may change, see :func:`scan_tenant_text`).

    A live record's content, asserted key and value, thread, provenance and metadata go
    through the record model so its fingerprints follow, and a record whose asserted key
    changed moves to that key's assertion group; an assertion group left with no record whose
    key holds a term is dropped; a LangGraph item whose value changed gets the filter facts
    of its new value (:func:`item_facts`) and loses its embeddings; a live intention's action
    and cue go through
    :func:`redact_intention`, so its fingerprint and cue digest follow (its index entry
    too); every other property is redacted where it is. A changed record or intention the
    request has not disposed of (one written after planning) is disposed of as REDACT, so
    the report lists every node the apply changed (docs/spec/deletion.md#apply). Running it
    again finds nothing to change.

    Returns:
        How many nodes and relationships changed.
    """
    pattern = matcher_of(terms)
    hits = scan_tenant_text(tx, tenants, pattern, skip=STRUCTURAL_KEYS - {"key"}, reach=reach)
    groups = sorted({h.eid for h in hits if h.key == "key" and "Assertion" in h.labels
                     and not h.rel})
    hits = [h for h in hits if h.key != "key"]
    changes: dict[str, dict[str, Any]] = {}
    kinds: dict[str, bool] = {}
    records: list[str] = []
    for hit in hits:
        kinds[hit.eid] = hit.rel
        if hit.live_record and hit.key in RECORD_TEXT_KEYS:
            records.append(hit.eid)
            continue
        changes.setdefault(hit.eid, {})[hit.key] = redact_value(hit.key, hit.value, pattern)
    intentions = sorted({h.eid for h in hits if not h.rel and "Intention" in h.labels
                         and h.key in INTENTION_TEXT_KEYS})
    if intentions:  # a live one's fingerprint and cue digest follow its redacted text
        key = tx.index_key()
        for live in tx.intentions_by_element(intentions):
            changes[live.eid].update(redact_intention(live.intention, pattern, key))
    regroup: list[dict[str, str]] = []
    items: list[str] = []  # LangGraph items whose value changed: their embeddings go
    if records:
        for found in tx.records_by_element(sorted(set(records))):
            old = record_from_props(found.record)
            redacted = redact_record(old, pattern)
            new = record_props(redacted)
            facts = item_facts(found.record, redacted)
            changes.setdefault(found.eid, {}).update({k: new[k] for k in _RECORD_DERIVED},
                                                     **facts)
            if facts and redacted.metadata != old.metadata:
                items.append(old.id)
            if redacted.asserts is not None and redacted.asserts != old.asserts:
                regroup.append({"eid": found.eid, "key": redacted.asserts,
                                "gkey": assertion_group(redacted.tenant, redacted.asserts)})
    rows = [{"eid": eid, "rel": kinds[eid], "props": props} for eid, props in changes.items()]
    if rows:
        tx.redact_text(rows, request_id=request_id, at=at)
        tx.link_late([eid for eid in changes if not kinds[eid]], request_id=request_id, at=at)
    if items:
        tx.drop_vectors(items)
    tx.regroup_assertions(regroup, groups)
    return len(rows)


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
