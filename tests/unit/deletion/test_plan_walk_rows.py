"""The deletion walk's rows, built from the walk's columns without a database."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.db.ops.deletion import WalkColumns
from graphmem.deletion.lineage import WalkedColumns
from graphmem.deletion.matcher import TermMatcher
from graphmem.deletion.plan import walk, walk_columns
from graphmem.deletion.redaction import narrowing


class _Walker:
    """A WalkSource that answers one walk and remembers what it was asked."""

    def __init__(self, columns: WalkColumns, stored: Sequence[str] = (),
                 erased: Sequence[str] = ()) -> None:
        self.columns = columns
        self.stored, self.erased = set(stored), set(erased)
        self.asked: list[tuple[list[str], str | None]] = []
        self.looked_up: list[list[str]] = []

    def walk(self, roots: Sequence[str], pattern: str | None) -> WalkColumns:
        self.asked.append((list(roots), pattern))
        return self.columns

    def outside_parents(self, ids: Sequence[str]) -> tuple[set[str], set[str]]:
        self.looked_up.append(list(ids))
        return self.stored & set(ids), self.erased & set(ids)


def _columns(**given: list[object]) -> WalkColumns:
    empty: dict[str, list[object]] = {name: [] for name in WalkColumns._fields}
    return WalkColumns(**{**empty, **given})  # type: ignore[arg-type]


def test_rows_keep_depth_and_sorted_parents_and_the_terms_each_holds() -> None:
    columns = _columns(ids=["c1", "c2"], kinds=["semantic", "procedural"], erased=[False, True],
                       depths=[1, 2], parents=[["r2", "r1"], ["c1"]],
                       term_ids=["c1", "c2"],
                       term_texts=[["Jane Roe called", None, None, None, None, None],
                                   ["nothing here", None, None, None, None, None]])
    walker = _Walker(columns, stored=["r1", "r2"])
    walked = walk(walker, ["r1", "r2"], ["jane roe"])
    assert walked.rows == [
        {"id": "c1", "kind": "semantic", "erased": False, "depth": 1, "parents": ["r1", "r2"],
         "terms": (0,)},
        {"id": "c2", "kind": "procedural", "erased": True, "depth": 2, "parents": ["c1"],
         "terms": []},
    ]
    assert walker.asked == [(["r1", "r2"], narrowing(TermMatcher.from_terms(["jane roe"])))]


def test_without_terms_the_walk_is_not_narrowed_and_no_row_holds_one() -> None:
    walker = _Walker(_columns(ids=["c1"], kinds=["episodic"], erased=[False], depths=[1],
                              parents=[["r1"]]), stored=["r1"])
    walked = walk(walker, ["r1"])
    assert walker.asked == [(["r1"], None)]
    assert [row["terms"] for row in walked.rows] == [[]]


def test_selected_edges_are_selections_and_the_others_citations() -> None:
    walker = _Walker(_columns(
        cited=["r1", "r1", "c1"], citer=["p1", "q1", "p2"],
        edge=["EVIDENCED_BY", "SELECTED", "EVIDENCED_BY"],
        citer_kind=["procedural", "", "semantic"], citer_erased=[False, False, True]))
    walked = walk(walker, ["r1"])
    assert walked.selections == [("r1", "q1")]
    assert walked.citations == [("r1", "p1", "procedural", False),
                                ("c1", "p2", "semantic", True)]


def test_a_parent_id_that_names_no_stored_record_is_no_parent() -> None:
    """The walk reads a descendant's ``derived_from``: an id there that names no stored
    record has no DERIVED_FROM edge, so it is left out; the parents outside the walk are
    looked up once, and an erased one that is not a root is reported as such."""
    walker = _Walker(_columns(ids=["c1", "c2"], kinds=["semantic", "semantic"],
                              erased=[False, False], depths=[1, 2],
                              parents=[["r1", "gone", "old"], ["c1", "gone"]]),
                     stored=["r1", "old"], erased=["r1", "old"])
    walked = walk(walker, ["r1"])
    assert [row["parents"] for row in walked.rows] == [["old", "r1"], ["c1"]]
    assert walker.looked_up == [["gone", "old", "r1"]]
    assert walked.erased_parents == {"old"}


def test_a_walk_whose_parents_are_all_walked_looks_nothing_up() -> None:
    walker = _Walker(_columns(ids=["c1", "c2"], kinds=["semantic", "semantic"],
                              erased=[False, False], depths=[1, 2], parents=[[], ["c1"]]))
    walk(walker, ["r1"])
    assert walker.looked_up == []


def test_the_walked_ids_are_hashed_once_and_name_every_walked_record() -> None:
    """The set the walk makes to find the parents outside it is the one the plan asks which
    ids were walked (a root walked below another root among them); columns made without it
    make it when asked."""
    walker = _Walker(_columns(ids=["c1", "r2"], kinds=["semantic", "semantic"],
                              erased=[False, False], depths=[1, 1], parents=[["r1"], ["r1"]]),
                     stored=["r1"])
    walked = walk_columns(walker, ["r1", "r2"])
    assert walked.id_set == {"c1", "r2"}
    assert walked.inside() is walked.id_set
    made = WalkedColumns(ids=["a", "b"], kinds=["semantic"] * 2, erased=[False] * 2,
                         depths=[1, 2], parents=[("r",), ("a",)], terms={})
    assert made.inside() == {"a", "b"}
