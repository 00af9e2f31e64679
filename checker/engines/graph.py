"""Graph algorithms over the reachable state graph, stored compactly.

The explicit engine stores edges in compressed sparse row form (two `array('i')`), which costs
4 bytes an edge; networkx would cost several hundred bytes a node and edge, too much for the
millions of states a model can have. Tarjan's algorithm here is iterative (no recursion limit)
and emits strongly connected components sinks first, which the termination and leads-to checks
use directly as a reverse topological order.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Iterator

# Who moves along a recorded edge, besides a player (their member number): chance, or the rules.
CHANCE = -1
RULES = -2


class CSRGraph:
    """Successor lists of nodes 0..n-1; node i's successors are edges[starts[i]:starts[i+1]]."""

    def __init__(self) -> None:
        self.starts = array("i", [0])
        self.edges = array("i")

    def close_node(self) -> None:
        self.starts.append(len(self.edges))

    @property
    def size(self) -> int:
        return len(self.starts) - 1

    def successors(self, node: int) -> array:
        return self.edges[self.starts[node] : self.starts[node + 1]]

    def out_degree(self, node: int) -> int:
        return self.starts[node + 1] - self.starts[node]


def strongly_connected(graph: CSRGraph, keep: Callable[[int], object]) -> Iterator[list[int]]:
    """Tarjan's SCCs of the subgraph induced by nodes with keep(node), sinks first."""
    n = graph.size
    index = array("i", [-1]) * n
    low = array("i", [0]) * n
    on_stack = bytearray(n)
    stack: list[int] = []
    counter = 0
    starts, edges = graph.starts, graph.edges
    for root in range(n):
        if index[root] != -1 or not keep(root):
            continue
        work = [(root, starts[root])]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        while work:
            node, pos = work[-1]
            end = starts[node + 1]
            advanced = False
            while pos < end:
                succ = edges[pos]
                pos += 1
                if not keep(succ):
                    continue
                if index[succ] == -1:
                    work[-1] = (node, pos)
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack[succ] = 1
                    work.append((succ, starts[succ]))
                    advanced = True
                    break
                if on_stack[succ] and index[succ] < low[node]:
                    low[node] = index[succ]
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = 0
                    component.append(member)
                    if member == node:
                        break
                yield component


def postorder_if_acyclic(graph: CSRGraph, keep: Callable[[int], bool]) -> array | None:
    """The nodes with keep(node), each after every kept node it has an edge to (a reverse
    topological order), when the subgraph they induce has no cycle; None as soon as one is met.

    One depth-first sweep with three colours: much cheaper than Tarjan's components, and most
    games' graphs are acyclic, so the component search only runs when a cycle exists."""
    n = graph.size
    starts, edges = graph.starts, graph.edges
    colour = bytearray(n)  # 0 unseen, 1 on the current path, 2 finished
    order = array("i")
    for root in range(n):
        if colour[root] or not keep(root):
            continue
        colour[root] = 1
        work = [(root, starts[root])]
        while work:
            node, pos = work[-1]
            end = starts[node + 1]
            while pos < end:
                succ = edges[pos]
                pos += 1
                if not colour[succ] and keep(succ):
                    work[-1] = (node, pos)
                    colour[succ] = 1
                    work.append((succ, starts[succ]))
                    break
                if colour[succ] == 1:
                    return None  # an edge back to the current path closes a cycle
            else:
                work.pop()
                colour[node] = 2
                order.append(node)
    return order


def longest_paths(graph: CSRGraph, order: array) -> array:
    """Per node, the most steps a path from it can take, given `postorder_if_acyclic`'s order
    of an acyclic subgraph (a path may leave it by one last step; other nodes count 0)."""
    starts, edges = graph.starts, graph.edges
    longest = array("i", [0]) * graph.size
    for node in order:
        best = 0
        for succ in edges[starts[node] : starts[node + 1]]:
            if longest[succ] >= best:
                best = longest[succ] + 1
        longest[node] = best
    return longest


def is_cyclic(graph: CSRGraph, component: list[int]) -> bool:
    """Whether a component holds a cycle (several nodes, or one node with a self-loop)."""
    if len(component) > 1:
        return True
    node = component[0]
    return node in graph.successors(node)


def shortest_path_within(graph: CSRGraph, source: int, goal: Callable[[int], bool], allowed: Callable[[int], bool], include_source: bool = False) -> list[int] | None:
    """Breadth-first path from source to a node satisfying goal, through allowed nodes.

    With include_source False the path has at least one step (so a cycle back to the source is
    found when goal(source) holds)."""
    if include_source and goal(source):
        return [source]
    parents: dict[int, int] = {}
    queue = deque([source])
    seen = {source}
    while queue:
        node = queue.popleft()
        for succ in graph.successors(node):
            if not allowed(succ):
                continue
            if goal(succ):
                path = [succ, node]
                while path[-1] != source:
                    path.append(parents[path[-1]])
                return path[::-1]
            if succ not in seen:
                seen.add(succ)
                parents[succ] = node
                queue.append(succ)
    return None


def reaches(graph: CSRGraph, goals: list[int]) -> bytearray:
    """Per node, 1 when some path leads from it to a goal node: one breadth-first search of the
    reversed graph (scipy.sparse.csgraph) from a virtual node joined to every goal."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    n = graph.size
    out = bytearray(n)
    if not goals:
        return out
    edges = np.frombuffer(graph.edges, dtype=np.int32)[: graph.starts[n]]
    sources = np.repeat(np.arange(n, dtype=np.int32), np.diff(np.frombuffer(graph.starts, dtype=np.int32)[: n + 1]))
    goal_array = np.asarray(goals, dtype=np.int32)
    rows = np.concatenate([edges, np.full(goal_array.size, n, dtype=np.int32)])
    cols = np.concatenate([sources, goal_array])
    reverse = csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n + 1, n + 1))
    order = breadth_first_order(reverse, n, directed=True, return_predecessors=False)
    reached = np.zeros(n + 1, dtype=np.uint8)
    reached[order] = 1
    return bytearray(reached[:n].tobytes())
