"""A lineage graph assembled from stand-in reads (no database): depths, edges, reach."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.db.access import OPERATOR, Access
from graphmem.db.ops.lineage import LineageNode, Reached
from graphmem.errors import OutOfReachError, RecordNotFoundError
from graphmem.lineage.graph import LineageDirection, _graph
from graphmem.models import Principal, Sensitivity

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def _node(rid: str, edges: Sequence[tuple[str, str]] = (), *, user: str = "u1",
          **props: Any) -> LineageNode:
    return LineageNode(props={"id": rid, "kind": "semantic", "tenant": "t1",
                              "sensitivity": "normal", "content": f"text of {rid}",
                              "scope_json": json.dumps({"tenant": "t1", "user": user}),
                              **props},
                       status="ACTIVE", edges=list(edges))


class _Lineage:
    """A LineageSource over fixed answers, remembering the ids whose nodes were read."""

    def __init__(self, up: list[Reached], down: list[Reached], nodes: list[LineageNode]) -> None:
        self.up, self.down, self.all = up, down, nodes
        self.read: list[list[str]] = []

    def ancestors(self, record_id: str, depth: int | None) -> list[Reached]:
        return [r for r in self.up if depth is None or r.depth <= depth]

    def descendants(self, record_id: str, depth: int | None) -> list[Reached]:
        return [r for r in self.down if depth is None or r.depth <= depth]

    def nodes(self, ids: Sequence[str], now: datetime) -> list[LineageNode]:
        self.read.append(list(ids))
        return [n for n in self.all if n.props["id"] in ids]


def _source() -> _Lineage:
    return _Lineage(
        up=[Reached("p1", 1), Reached("g1", 2)],
        down=[Reached("c1", 1), Reached("g1", 1)],  # g1 is also reached going down, closer
        nodes=[_node("root", [("DERIVED_FROM", "p1"), ("EVIDENCED_BY", "p1"),
                              ("SUPERSEDES", "gone")]),
               _node("p1", [("DERIVED_FROM", "g1")]), _node("g1", user="u2"),
               _node("c1", [("DERIVED_FROM", "root")])])


def _build(source: _Lineage, direction: LineageDirection = "both", *, content: bool = False,
           access: Access = OPERATOR) -> Any:
    return _graph(source, "root", direction, None, NOW, content, access)


def test_each_node_keeps_its_shortest_distance_over_both_walks() -> None:
    graph = _build(_source())
    assert {n: graph.nodes[n]["depth"] for n in graph} == {"root": 0, "p1": 1, "g1": 1, "c1": 1}
    assert graph.nodes["root"]["status"] == "ACTIVE"
    up = _source()
    assert set(_build(up, "up")) == {"root", "p1", "g1"}
    assert up.read == [["g1", "p1", "root"]]  # the nodes of one walk only, read once


def test_two_links_between_two_records_are_one_edge_typed_by_the_first_kind() -> None:
    graph = _build(_source())
    assert graph.edges["root", "p1"]["type"] == "derived_from"
    assert graph.edges["root", "p1"]["types"] == "derived_from,evidenced_by"
    assert not graph.has_node("gone")  # an edge to a record not in the graph is dropped


def test_content_only_when_asked() -> None:
    assert "content" not in _build(_source()).nodes["root"]
    assert _build(_source(), content=True).nodes["root"]["content"] == "text of root"


def test_records_out_of_reach_are_left_out_with_their_edges() -> None:
    access = Access(Principal(tenants=frozenset({"t1"}), clearance=Sensitivity.NORMAL,
                              scope={"user": "u1"}))
    graph = _build(_source(), access=access)
    assert set(graph) == {"root", "p1", "c1"}
    assert not graph.has_edge("p1", "g1")


def test_a_root_that_is_not_read_is_unknown_or_out_of_reach() -> None:
    missing = _Lineage(up=[], down=[], nodes=[])
    with pytest.raises(RecordNotFoundError):
        _build(missing)
    other = _Lineage(up=[], down=[], nodes=[_node("root", user="u2")])
    access = Access(Principal(tenants=frozenset({"t1"}), clearance=Sensitivity.NORMAL,
                              scope={"user": "u1"}))
    with pytest.raises(OutOfReachError):
        _build(other, access=access)
