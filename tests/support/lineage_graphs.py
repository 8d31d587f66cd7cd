"""Lineage graphs built in memory, shaped as :func:`graphmem.lineage.build_lineage` returns
them (node ``kind``/``status``/flags, edges child -> parent with ``type``/``types``), for the
export and picture tests."""

from __future__ import annotations

import networkx as nx

from graphmem.db.browse import LISTED_STATUSES

EDGE_KINDS = ("derived_from", "supersedes", "evidenced_by")


def every_status() -> nx.DiGraph:
    """One node per status a reachable record can have (``s-<status>``), under a root
    summary, with one edge of each type among them."""
    graph = nx.DiGraph(root="root", direction="up", depth=None)
    graph.add_node("root", kind="semantic", status="ACTIVE")
    for i, status in enumerate(LISTED_STATUSES):
        node = f"s-{status.value.lower()}"
        graph.add_node(node, kind="episodic", status=status.value,
                       erased=status.value == "ERASED", retracted=status.value == "RETRACTED")
        kind = EDGE_KINDS[i % len(EDGE_KINDS)]
        graph.add_edge("root", node, type=kind, types=kind)
    return graph


def summary_of_episodes(size: int) -> nx.DiGraph:
    """A summary derived from ``size - 1`` episodes (the wide single generation that smeared
    at 34 nodes), ids as long as the generated ones."""
    graph = nx.DiGraph(root="sum-northwind-q3", direction="up", depth=None)
    graph.add_node("sum-northwind-q3", kind="semantic", status="ACTIVE")
    for i in range(size - 1):
        node = f"ep-northwind-{i:04d}-support"
        graph.add_node(node, kind="episodic", status="ACTIVE" if i % 5 else "SUPERSEDED")
        graph.add_edge("sum-northwind-q3", node, type="derived_from", types="derived_from")
    return graph


def layered(size: int) -> nx.DiGraph:
    """A three-level derivation DAG of ``size`` records: episodes, summaries of 6-8 episodes,
    and summaries of summaries, every status represented."""
    statuses = [s.value for s in LISTED_STATUSES]
    graph = nx.DiGraph(root="top", direction="up", depth=None)
    episodes = [f"ep-{i:05d}" for i in range(size * 4 // 5)]
    summaries = [f"sum-{i:04d}" for i in range((size - len(episodes) - 1) * 3 // 4)]
    tops = [f"top-{i:03d}" for i in range(size - len(episodes) - len(summaries) - 1)]
    for i, node in enumerate([*episodes, *summaries, *tops, "top"]):
        graph.add_node(node, kind="episodic" if node.startswith("ep") else "semantic",
                       status=statuses[i % len(statuses)])
    for i, summary in enumerate(summaries):
        for episode in episodes[i * 7 % len(episodes):][:7]:
            graph.add_edge(summary, episode, type="derived_from", types="derived_from")
    for i, top in enumerate(tops):
        for summary in summaries[i * 3 % len(summaries):][:3]:
            graph.add_edge(top, summary, type="derived_from", types="derived_from")
        graph.add_edge("top", top, type="supersedes", types="supersedes")
    return graph
