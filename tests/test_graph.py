"""The explicit engine's compact graph algorithms agree with networkx on random graphs.

The engine stores edges in arrays and runs its own iterative Tarjan and subgraph searches,
because networkx costs too much memory per state (docs/architecture.md); networkx serves here as
the oracle those algorithms are held to.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.engines.graph import CSRGraph, is_cyclic, longest_paths, postorder_if_acyclic, shortest_path_within, strongly_connected


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 25))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return n, sorted(set(edges)), keep


def build(n: int, edges: list[tuple[int, int]]) -> CSRGraph:
    graph = CSRGraph()
    for node in range(n):
        graph.edges.extend(b for a, b in edges if a == node)
        graph.close_node()
    return graph


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_strongly_connected_components_match_networkx(data):
    n, edges, keep = data
    ours = list(strongly_connected(build(n, edges), keep.__getitem__))
    oracle = nx.DiGraph()
    oracle.add_nodes_from(v for v in range(n) if keep[v])
    oracle.add_edges_from((a, b) for a, b in edges if keep[a] and keep[b])
    assert {frozenset(c) for c in ours} == {frozenset(c) for c in nx.strongly_connected_components(oracle)}
    # sinks first: no component has an edge into a component emitted after it
    position = {v: i for i, comp in enumerate(ours) for v in comp}
    assert all(position[a] >= position[b] for a, b in oracle.edges)
    graph = build(n, edges)
    for comp in ours:
        assert is_cyclic(graph, comp) == (len(comp) > 1 or oracle.has_edge(comp[0], comp[0]))


@settings(max_examples=400, deadline=None)
@given(graphs(), st.integers(0, 24), st.integers(0, 24))
def test_shortest_paths_within_a_subgraph_match_networkx(data, source, target):
    n, edges, keep = data
    source, target = source % n, target % n
    allowed = keep.__getitem__
    path = shortest_path_within(build(n, edges), source, lambda v: v == target, allowed)
    oracle = nx.DiGraph()
    oracle.add_nodes_from(range(n))
    oracle.add_edges_from((a, b) for a, b in edges if allowed(b))
    if source == target:
        # at least one step: the shortest cycle back to the source
        lengths = [1 + nx.shortest_path_length(oracle, b, source) for a, b in oracle.out_edges(source) if nx.has_path(oracle, b, source)]
        assert (path is None) == (not lengths)
        if path is not None:
            assert len(path) - 1 == min(lengths)
    else:
        reachable = nx.has_path(oracle, source, target)
        assert (path is not None) == reachable
        if reachable:
            assert len(path) - 1 == nx.shortest_path_length(oracle, source, target)
    if path is not None:
        assert all(b in [e for a2, e in edges if a2 == a] for a, b in zip(path, path[1:]))


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_acyclicity_sweep_and_longest_paths_match_networkx(data):
    n, edges, keep = data
    graph = build(n, edges)
    order = postorder_if_acyclic(graph, keep.__getitem__)
    oracle = nx.DiGraph()  # paths leave the kept nodes by one last step, then stop
    oracle.add_nodes_from(range(n))
    oracle.add_edges_from((a, b) for a, b in edges if keep[a])
    assert (order is None) == (not nx.is_directed_acyclic_graph(oracle))
    if order is not None:
        assert sorted(order) == [v for v in range(n) if keep[v]]
        position = {v: i for i, v in enumerate(order)}
        assert all(position[a] > position[b] for a, b in oracle.edges if keep[b])
        longest = longest_paths(graph, order)
        for v in range(n):
            if keep[v]:
                reach = nx.descendants(oracle, v) | {v}
                assert longest[v] == nx.dag_longest_path_length(oracle.subgraph(reach))
