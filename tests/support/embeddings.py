"""A small deterministic embedding for semantic-search tests: the same texts give the same
vectors in every store and every run, and texts sharing words are near each other, so a
ranking can be stated in advance.

Each word (lower-cased, letters and digits) adds 1 to the coordinate its SHA-256 digest picks
among :data:`DIMS`; a text without a word is the zero vector's neighbour ``[1, 0, ...]``.
Used by the conformance suite on LangGraph's ``InMemoryStore`` and on ``GraphmemStore`` with
the same vectors (LangGraph ships no deterministic embedding of its own: langchain-core's
``DeterministicFakeEmbedding`` gives random, unrelated vectors).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

__all__ = ["DIMS", "embed", "embed_text"]

#: The dimensions every test index uses.
DIMS = 64
_WORD = re.compile(r"[^\W_]+")


def embed_text(text: str) -> list[float]:
    """The vector of one text (bag of hashed words, not normalised)."""
    vector = [0.0] * DIMS
    for word in _WORD.findall(text.lower()):
        vector[int(hashlib.sha256(word.encode("utf-8")).hexdigest(), 16) % DIMS] += 1.0
    if not any(vector):
        vector[0] = 1.0
    return vector


def embed(texts: Sequence[str]) -> list[list[float]]:
    """LangGraph's ``EmbeddingsFunc``: one vector per text."""
    return [embed_text(t) for t in texts]
