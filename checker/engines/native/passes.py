"""The graph properties decided by the compiled passes, on any engine's edge arrays.

The passes in `runtime` (Tarjan's components, the termination and leads-to sweeps, the backward
search of `can-end`) depend on no model: they are compiled once per machine and read only the
compressed-sparse-row edges, a terminal mask and the predicates' masks. So they serve both the
native engine's explorations and the Python engine's (whose `array`s are viewed as numpy arrays
without a copy of the edges): on a large graph, the compiled sweep costs a fraction of the Python
one. Each function here builds the `Finding` exactly as its pure-Python counterpart in
`checker.engines.explicit` does (the same component, entry, paths and wording: the passes mirror
the Python ones step for step), which the differential tests hold them to.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.sparse import csr_matrix

from checker.engines.finding import Finding, trapped_finding
from checker.engines.native import runtime
from checker.engines.native.compile_lock import first_call_locked


@first_call_locked("runtime")
def terminates(starts: np.ndarray, edges: np.ndarray, term: np.ndarray, layer_ends: list[int], path_to: Callable[[int], list[int]], within: int | None) -> Finding:
    """`explicit.terminates`: a shallowest lasso, else the longest play against `within`."""
    n = starts.shape[0] - 1
    keep = (term == 0).astype(np.uint8)
    members, bounds = runtime.tarjan(starts, edges, keep)
    best, entry, longest = runtime.termination_pass(starts, edges, members, bounds, np.array(layer_ends, np.int64))
    if best >= 0:
        lo, hi = int(bounds[best]), int(bounds[best + 1])
        inside = np.zeros(n, np.uint8)
        inside[members[lo:hi]] = 1
        goal = np.zeros(n, np.uint8)
        goal[entry] = 1
        cycle = [int(x) for x in runtime.shortest_path_within(starts, edges, int(entry), goal, inside, False)]
        prefix = path_to(int(entry))
        exits = bool(runtime.has_exit(starts, edges, members, lo, hi, inside))
        return Finding("fails", prefix + cycle[1:], shape="lasso", loop_start=len(prefix) - 1, loop_exits=exits)
    initial = layer_ends[0]
    if not initial:
        return Finding("holds", detail="no initial state")
    first = longest[:initial]
    if within is not None:
        worst = int(np.argmax(first))
        if longest[worst] > within:
            path = [worst]
            while len(path) <= within + 1:
                succs = edges[starts[path[-1]] : starts[path[-1] + 1]]
                path.append(int(succs[int(np.argmax(longest[succs]))]))
            return Finding("fails", path, note=f"A play lasts longer than {within} steps (the longest lasts {int(longest[worst])}).")
    return Finding("holds", detail=f"longest play: {int(first.max())} steps")


@first_call_locked("runtime")
def leads_to(starts: np.ndarray, edges: np.ndarray, source: np.ndarray, target: np.ndarray, term: np.ndarray, path_to: Callable[[int], list[int]]) -> Finding:
    """`explicit.leads_to`, given the nodes where `from` holds (`source`) and where `to` holds
    (`target`) as byte masks."""
    n = starts.shape[0] - 1
    avoid = (target == 0).astype(np.uint8)
    members, bounds = runtime.tarjan(starts, edges, avoid)
    bad, ends = runtime.leads_to_pass(starts, edges, members, bounds, avoid)
    candidates = np.flatnonzero((bad == 1) & (source == 1))
    if candidates.size == 0:
        return Finding("holds")
    start = int(candidates[0])
    prefix = path_to(start)
    allowed = (avoid & bad).astype(np.uint8)
    tail = [int(x) for x in runtime.shortest_path_within(starts, edges, start, ends, allowed, True)]
    end = tail[-1]
    path = prefix + tail[1:]
    if starts[end + 1] == starts[end]:
        reason = "the game ends" if term[end] else "the game is stuck"
        return Finding("fails", path, shape="path", note=f"From a state where `from` holds, {reason} without `to` ever holding.")
    goal = np.zeros(n, np.uint8)
    goal[end] = 1
    cycle = [int(x) for x in runtime.shortest_path_within(starts, edges, end, goal, allowed, False)]
    return Finding("fails", path + cycle[1:], shape="lasso", loop_start=len(path) - 1, note="From a state where `from` holds, play can cycle forever without `to` ever holding.")


@first_call_locked("runtime")
def longest_play(starts: np.ndarray, edges: np.ndarray, term: np.ndarray, initial: list[int]) -> tuple[int | None, bool]:
    """`checker.analysis.outcomes.longest_play`: (the most steps a play from an initial node
    takes, whether some play never ends), from the termination pass."""
    keep = (term == 0).astype(np.uint8)
    members, bounds = runtime.tarjan(starts, edges, keep)
    best, _, longest = runtime.termination_pass(starts, edges, members, bounds, np.zeros(1, np.int64))
    if best >= 0:
        return None, True
    return (max(int(longest[n]) for n in initial) if initial else 0), False


@first_call_locked("runtime")
def can_end(starts: np.ndarray, edges: np.ndarray, term: np.ndarray, path_to: Callable[[int], list[int]]) -> Finding:
    """`explicit.can_end`: the shallowest state (nodes are numbered breadth first) from which
    no terminal state can be reached."""
    ends = runtime.can_reach(starts, edges, (term != 0).astype(np.uint8))
    trapped = np.flatnonzero(ends == 0)
    if trapped.size == 0:
        return Finding("holds")
    node = int(trapped[0])
    closed = int(runtime.reachable_count(starts, edges, node))
    return trapped_finding(path_to(node), closed, bool(starts[node + 1] == starts[node]))


def csr_arrays(starts: object, edges: object) -> tuple[np.ndarray, np.ndarray]:
    """A graph's edge lists (the Python engine's `array('i')`s or the native engine's arrays)
    as the passes' arrays: the edges viewed in place, the row starts as 64-bit integers (the
    type the native engine stores, so the passes compiled for it serve unchanged)."""
    return np.asarray(starts).astype(np.int64, copy=False), np.asarray(edges, np.int32)


@first_call_locked("runtime")
def acyclic_layers(q: csr_matrix, absorb: np.ndarray, x: np.ndarray, self_loops: np.ndarray, order: np.ndarray, bounds: np.ndarray, first: int, last: int) -> None:
    """`outcomes.absorbed`'s layers `first` to `last` - 1 (none holding a cycle) solved into
    `x`, with the same values as its numpy loop (`runtime.acyclic_layers`): a game's hundreds
    of layers cost a sparse row selection and product each there."""
    runtime.acyclic_layers(q.indptr.astype(np.int64, copy=False), q.indices.astype(np.int64, copy=False), q.data, absorb, x, self_loops, order, bounds, first, last)


@first_call_locked("runtime")
def won_nodes(source: np.ndarray, into: np.ndarray, into_starts: np.ndarray, friendly: np.ndarray, has_moves: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """`outcomes.won_nodes`'s set, compiled (`runtime.won_nodes`)."""
    won = goal.astype(np.uint8)
    runtime.won_nodes(source, into.astype(np.int64, copy=False), into_starts.astype(np.int64, copy=False), friendly.astype(np.uint8), has_moves.astype(np.uint8), won)
    return won.astype(bool)


@first_call_locked("runtime")
def component_layers(pred: csr_matrix, left: np.ndarray, layer: np.ndarray) -> tuple[int, int]:
    """`outcomes.absorbed`'s layering of the components' graph, compiled
    (`runtime.component_layers`): numpy's loop sorted each layer's predecessors."""
    depth, placed = runtime.component_layers(pred.indptr.astype(np.int64, copy=False), pred.indices.astype(np.int64, copy=False), left, layer)
    return int(depth), int(placed)
