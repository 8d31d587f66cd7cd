"""A lone surrogate (JSON can spell one; UTF-8, and so Neo4j, cannot hold it) is refused in every
text field of a record, whatever else the record holds (graphmem.models.MemoryRecord,
docs/spec/records.md)."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from graphmem.models import MemoryRecord
from tests.support.ids import T0

BAD = "x\ud800y"


def _base() -> dict[str, Any]:
    return {"id": "r1", "kind": "semantic", "content": "plain ascii", "created_at": T0,
            "scope": {"tenant": "t"}, "provenance": {"source": "chat"}}


CASES: list[tuple[str, dict[str, Any]]] = [
    ("id", {"id": BAD}),
    ("content", {"content": BAD}),
    ("content", {"content": "caf\u00e9 " + BAD}),  # non-ASCII beside it
    ("provenance", {"provenance": {"source": BAD}}),
    ("provenance", {"provenance": {BAD: "chat"}}),
    ("asserts", {"asserts": BAD}),
    ("asserted_value", {"asserts": "k", "asserted_value": BAD}),
    ("supersedes", {"supersedes": ["ok", BAD]}),
    ("evidence_ids", {"evidence_ids": [BAD]}),
    ("derived_from", {"derived_from": [BAD]}),
    ("thread", {"thread": BAD, "position": 0}),
    ("metadata", {"metadata": {"k": [BAD]}}),
    ("metadata", {"metadata": {BAD: 1}}),
    ("scope", {"scope": {"tenant": "t", "user": BAD}}),
]


@pytest.mark.parametrize(("field", "change"), CASES)
def test_a_lone_surrogate_is_refused_in_every_text_field(field: str, change: dict[str, Any]
                                                         ) -> None:
    with pytest.raises(pydantic.ValidationError, match=r"surrogate|U\+D800|unicode") as caught:
        MemoryRecord.model_validate({**_base(), **change})
    assert field in str(caught.value)


def test_non_ascii_text_without_surrogates_is_accepted() -> None:
    rec = MemoryRecord.model_validate({
        **_base(), "id": "r\u00e9", "content": "\u597d\u7684", "asserts": "k\u00fc",
        "asserted_value": "\u00e9t\u00e9", "provenance": {"s\u00f8urce": "ch\u00e6t"},
        "supersedes": ["\u00e9a"], "thread": "th\u00e9", "position": 1})
    assert rec.content == "\u597d\u7684"
