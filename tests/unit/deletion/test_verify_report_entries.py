"""The report's entries built from the verification's columns (docs/spec/deletion.md#verification):
each is the ReportEntry that validating its own values gives, whatever the builder shares
between entries of one shape."""

from __future__ import annotations

import pydantic
import pytest

from graphmem.deletion.models import Disposition, NodeType, ReportEntry
from graphmem.deletion.verify import _report_entries

AT1 = "2026-12-05T14:00:00.123456+00:00"
AT2 = "2026-12-05T14:00:07+00:00"

IDS = ["a", "b", "c", "d", "e", "f", "g"]
NODES = ["record", "record", "intention", "record", "record", "record", "record"]
KINDS = ["episodic", "episodic", "", "semantic", "episodic", "episodic", "procedural"]
DISPOSITIONS = ["DELETE", "DELETE", "DELETE", "RECOMPUTE", "DELETE", "DELETE", "QUARANTINE"]
ATS = [AT1, AT1, AT1, AT2, AT1, AT2, AT2]
CHANGED = [True, True, True, True, False, True, False]
ROOTS = [True, False, False, False, False, False, False]
LATES = [False, False, False, False, False, True, False]


def _built() -> tuple[ReportEntry, ...]:
    return _report_entries(IDS, NODES, KINDS, DISPOSITIONS, ATS, CHANGED, ROOTS, LATES)


def _validated(i: int) -> ReportEntry:
    return ReportEntry.model_validate({
        "id": IDS[i], "node": NODES[i], "kind": KINDS[i] or None,
        "disposition": DISPOSITIONS[i], "at": ATS[i], "changed": CHANGED[i],
        "root": ROOTS[i], "late": LATES[i]})


def test_each_entry_is_the_validated_entry_of_its_own_values() -> None:
    built = _built()
    expected = [_validated(i) for i in range(len(IDS))]
    assert list(built) == expected
    assert [e.model_dump(mode="json") for e in built] == [
        e.model_dump(mode="json") for e in expected]
    assert [e.model_fields_set for e in built] == [e.model_fields_set for e in expected]
    assert [hash(e) for e in built] == [hash(e) for e in expected]
    assert built[1].node is NodeType.RECORD and built[1].disposition is Disposition.DELETE
    assert built[2].kind is None and built[3].disposition is Disposition.RECOMPUTE
    assert built[5].late and not built[1].late


def test_entries_of_one_shape_share_nothing_mutable_and_stay_frozen() -> None:
    twin = _report_entries(ids=["x", "y"], nodes=["record"] * 2, kinds=["episodic"] * 2,
                           dispositions=["DELETE"] * 2, ats=[AT1] * 2, changed=[True] * 2,
                           roots=[False] * 2, lates=[False] * 2)
    assert (twin[0].id, twin[1].id) == ("x", "y")
    assert twin[0].__dict__ is not twin[1].__dict__
    assert twin[0].model_fields_set is not twin[1].model_fields_set
    with pytest.raises(pydantic.ValidationError):
        twin[1].id = "z"
    assert twin[0].id == "x" and twin[1] == twin[0].model_copy(update={"id": "y"})


def test_a_bad_value_is_refused_as_before() -> None:
    with pytest.raises(ValueError):
        _report_entries(ids=["x", "y"], nodes=["record", "shelf"], kinds=["episodic"] * 2,
                        dispositions=["DELETE"] * 2, ats=[AT1] * 2, changed=[True] * 2,
                        roots=[False] * 2, lates=[False] * 2)
    with pytest.raises(ValueError):
        _report_entries(ids=["x"], nodes=["record"], kinds=["episodic"], dispositions=["DELETE"],
                        ats=[AT1], changed=[True], roots=[False], lates=[False, True])
