"""Backward reachability (`engines.graph.reaches`, used by `can-end` and the impact analysis)
agrees with networkx's ancestors on random graphs."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.engines.graph import reaches
from tests.test_graph import build, graphs


@settings(max_examples=300, deadline=None)
@given(graphs(), st.lists(st.integers(0, 24), max_size=4))
def test_reaches_matches_networkx(data, goal_draw):
    n, edges, _ = data
    goals = sorted({g % n for g in goal_draw})
    ours = reaches(build(n, edges), goals)
    oracle = nx.DiGraph()
    oracle.add_nodes_from(range(n))
    oracle.add_edges_from(edges)
    expected = set(goals).union(*(nx.ancestors(oracle, g) for g in goals)) if goals else set()
    assert {v for v in range(n) if ours[v]} == expected
