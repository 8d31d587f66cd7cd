"""Digests of candidate sets (docs/spec/read-path.md#attribution): the key a candidate set is
logged under, computed once per candidates answer, and for an answer made from another by a
change (:class:`graphmem.db.candidates.CandidateIds`, ``edit``) from that answer's text by the
change, so a read after a write costs the change, not a pass over every candidate id.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence

import numpy as np

__all__ = ["SetDigests", "candidate_set_digest"]

#: the bytes ``json.dumps`` writes as themselves: printable ASCII but quote and backslash
_AS_ITSELF = bytes(b for b in range(0x20, 0x7F) if b not in b'"\\')
_QUOTE = ord('"')


def _joined(tenant: str, ids: Sequence[str]) -> bytes:
    return ('["' + tenant + '", "' + '", "'.join(ids) + '"]' if ids
            else '["' + tenant + '"]').encode("utf-8", "surrogatepass")


def _as_itself(raw: bytes, strings: int) -> bool:
    """Whether ``raw``, ``strings`` strings joined as :func:`_joined` joins them, is the text
    ``json.dumps`` writes: all that is not written as itself is the quotes around each."""
    return raw.translate(None, _AS_ITSELF) == b'"' * (2 * strings)


def candidate_set_digest(tenant: str, ids: Sequence[str]) -> str:
    """The digest a candidate set is stored under: hex SHA-256 of ``json.dumps([tenant,
    *ids])``. Ids that JSON writes as themselves (the usual case) are joined directly, which
    gives the same text without encoding each id."""
    return hashlib.sha256(_text(tenant, ids)[0]).hexdigest()


def _text(tenant: str, ids: Sequence[str]) -> tuple[bytes, bool]:
    """``json.dumps([tenant, *ids])`` as bytes, and whether every string is written as
    itself (then the text is :func:`_joined`'s, which :meth:`SetDigests` can edit)."""
    raw = _joined(tenant, ids)
    if _as_itself(raw, 1 + len(ids)):
        return raw, True
    return json.dumps([tenant, *ids]).encode(), False


def _spliced(raw: bytes, removed: Sequence[int], inserted: Sequence[int],
             ids: Sequence[str]) -> bytes | None:
    """The text of ``ids`` made from ``raw``, the text of the set they were made from (every
    string written as itself), by their edit: the positions ``removed`` from that set and the
    positions in ``ids`` of those ``inserted`` (both sorted). None when an inserted id is not
    written as itself or the sizes do not agree. Copies the kept runs of ``raw`` as bytes:
    no pass over the ids."""
    added = [ids[p].encode("utf-8", "surrogatepass") for p in inserted]
    if any(a.translate(None, _AS_ITSELF) for a in added):
        return None
    # every quote is one around a string: each string's piece (', "id"') starts after the
    # closing quote of the one before it; the last start is the closing bracket's
    quotes = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == _QUOTE)
    starts = (quotes[1::2] + 1).tolist()
    n_old = len(starts) - 1
    if n_old - len(removed) + len(inserted) != len(ids):
        return None
    pieces = [raw[:starts[0]]]
    at = 0  # the next position of the earlier set to copy
    r = 0  # removed[:r] are behind ``at``
    kept = 0  # kept pieces copied so far

    def copy(count: int) -> None:
        nonlocal at, r, kept
        while count > 0:
            while r < len(removed) and removed[r] == at:
                r += 1
                at += 1
            end = removed[r] if r < len(removed) else n_old
            take = min(count, end - at)
            pieces.append(raw[starts[at]:starts[at + take]])
            at += take
            count -= take
            kept += take

    for j, (p, text) in enumerate(zip(inserted, added, strict=True)):
        copy(p - j - kept)
        pieces.append(b', "' + text + b'"')
    copy(n_old - len(removed) - kept)
    pieces.append(b"]")
    return b"".join(pieces)


class SetDigests:
    """:func:`candidate_set_digest` of candidates answers, each computed once (by its ids'
    ``token``), and that of an answer made from a recent one by a change (its ids' ``edit``:
    :class:`graphmem.db.candidates.CandidateIds`) computed from that one's text, edited by the
    change: the same digest, without a pass over the ids (a read after a write in a scope of
    10^5 records joined and encoded every id). Thread-safe."""

    KEEP = 64
    """Digests kept (by token)."""
    KEEP_TEXT = 4
    """Texts kept, the most recent answers' (each is about the size of its ids)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._digests: dict[int, tuple[str, str]] = {}  # token -> (tenant, digest)
        self._texts: dict[int, tuple[str, bytes]] = {}  # token -> (tenant, text as itself)

    def digest(self, tenant: str, ids: Sequence[str]) -> str:
        """:func:`candidate_set_digest` of ``tenant`` and ``ids`` (sorted ids of a candidates
        answer, or any sequence)."""
        token: int | None = getattr(ids, "token", None)
        with self._lock:
            known = None if token is None else self._digests.get(token)
            edit = getattr(ids, "edit", None)
            base = None if edit is None else self._texts.get(edit[0])
        if known is not None and known[0] == tenant:
            return known[1]
        raw = None
        if base is not None and base[0] == tenant:
            assert edit is not None
            raw = _spliced(base[1], edit[1], edit[2], ids)
        as_itself = raw is not None
        if raw is None:
            raw, as_itself = _text(tenant, ids)
        digest = hashlib.sha256(raw).hexdigest()
        if token is not None:
            with self._lock:
                if len(self._digests) >= self.KEEP:
                    self._digests.clear()
                self._digests[token] = (tenant, digest)
                if as_itself:
                    while len(self._texts) >= self.KEEP_TEXT:
                        self._texts.pop(next(iter(self._texts)))
                    self._texts[token] = (tenant, raw)
        return digest
