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
from typing import Any

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


def _starts(raw: bytes) -> Any:
    """Where each string's piece (``, "id"``) of ``raw`` (a :func:`_joined` text, every string
    written as itself) starts, after the tenant's, and last where the closing bracket is: every
    quote is one around a string, so each piece starts after the closing quote before it."""
    quotes = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == _QUOTE)
    return quotes[1::2] + 1


def _spliced(raw: bytes, starts: Any, removed: Sequence[int], inserted: Sequence[int],
             ids: Sequence[str]) -> tuple[bytes, Any] | None:
    """The text of ``ids``, and its :func:`_starts`, made from ``raw``, the text of the set
    they were made from (every string written as itself), and its ``starts``, by their edit:
    the positions ``removed`` from that set and the positions in ``ids`` of those ``inserted``
    (both sorted). None when an inserted id is not written as itself or the sizes do not
    agree. Copies the kept runs of ``raw`` once, as bytes; the starts are edited in numpy: no
    pass over the ids in Python."""
    added = [b', "' + ids[p].encode("utf-8", "surrogatepass") + b'"' for p in inserted]
    if any(a[3:-1].translate(None, _AS_ITSELF) for a in added):
        return None
    n_old = len(starts) - 1
    if n_old - len(removed) + len(inserted) != len(ids):
        return None
    view = memoryview(raw)
    head = int(starts[0])
    pieces: list[bytes | memoryview] = [view[:head]]
    # the kept pieces, as runs of consecutive old positions, with the inserted ones between
    gone = np.asarray(removed, dtype=np.intp)
    lengths = np.delete(np.diff(starts), gone)
    before = np.asarray(inserted, dtype=np.intp) - np.arange(len(inserted), dtype=np.intp)
    kept_at = np.delete(np.arange(n_old, dtype=np.intp), gone)  # old position of each kept
    at = 0  # kept pieces copied so far
    for b, text in zip(before.tolist(), added, strict=True):
        if b > at:
            pieces.extend(_runs(view, starts, kept_at[at:b]))
            at = b
        pieces.append(text)
    if at < len(kept_at):
        pieces.extend(_runs(view, starts, kept_at[at:]))
    pieces.append(b"]")
    lengths = np.insert(lengths, before, [len(a) for a in added]) if added else lengths
    edited = np.empty(len(lengths) + 1, dtype=np.int64)
    edited[0] = head
    np.cumsum(lengths, out=edited[1:])
    edited[1:] += head
    return b"".join(pieces), edited


def _runs(view: memoryview, starts: Any, positions: Any) -> list[memoryview]:
    """The pieces at ``positions`` (old positions, ascending) of the text ``view`` whose
    :func:`_starts` are ``starts``, as one slice per run of consecutive positions."""
    breaks = (np.flatnonzero(np.diff(positions) != 1) + 1).tolist()
    firsts = positions[[0, *breaks]].tolist()
    lasts = positions[[b - 1 for b in breaks] + [len(positions) - 1]].tolist()
    return [view[int(starts[f]):int(starts[last + 1])]
            for f, last in zip(firsts, lasts, strict=True)]


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
        # token -> (tenant, text as itself, its starts)
        self._texts: dict[int, tuple[str, bytes, Any]] = {}

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
        made = None
        if base is not None and base[0] == tenant:
            assert edit is not None
            made = _spliced(base[1], base[2], edit[1], edit[2], ids)
        if made is not None:
            raw, starts, as_itself = made[0], made[1], True
        else:
            raw, as_itself = _text(tenant, ids)
            starts = None
        digest = hashlib.sha256(raw).hexdigest()
        if token is not None:
            with self._lock:
                if len(self._digests) >= self.KEEP:
                    self._digests.clear()
                self._digests[token] = (tenant, digest)
                if as_itself:
                    while len(self._texts) >= self.KEEP_TEXT:
                        self._texts.pop(next(iter(self._texts)))
                    self._texts[token] = (tenant, raw,
                                          _starts(raw) if starts is None else starts)
        return digest
