"""Whether a game ends with probability 1 whatever anyone chooses.

A failing `terminates` property only says that some play never ends. When chance alone keeps
that play going, the game still ends with probability 1, and the finding is not game-breaking
(`checker.report.findings`). That claim is about the whole game, not one loop: an engine shows
one endless loop, and a loop the players could stay in may exist elsewhere. So it is decided on
the whole reachable graph of the configuration, with every choice that is not chance's (a
player's move, a rule among several, which mover goes next) made by an adversary who wants the
game to go on, and chance drawing among its outcomes.

The game ends with probability 1 from every initial state exactly when no reachable non-terminal
state is stuck and no *end component* exists among the non-terminal states: a set of states in
which the adversary can keep play for ever, because from each of them one of its options (a
single non-chance move, or chance's whole set of outcomes) stays in the set, and the set is
strongly connected under those options. Such a set is kept with positive probability, so the
game can fail to end; without one, every strategy leaves the non-terminal states with
probability 1 (the standard maximal end component decomposition of Markov decision processes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checker.lang.compile import CompiledModel

if TYPE_CHECKING:
    from checker.analysis.statespace import StateSpace

Options = dict[int, list[frozenset[int]]]


GRAPH_FACTOR = 4  # the interpreter explores up to this many times the bound before the walk below


def ends_surely(compiled: CompiledModel, max_states: int) -> bool | None:
    """True when the game ends with probability 1 from every initial state whatever the
    players (and the order of movers) do; False when some strategy keeps it going, or a state
    is stuck, with positive probability; None when the reachable graph has more than
    `max_states` states (nothing is claimed then).

    The walk steps through the game's graph; when numba is installed the graph is explored
    first in the bytecode interpreter (no call from Python per state) and the same walk runs
    over its arrays. Where that exploration stops short (past `GRAPH_FACTOR` times the bound,
    or at a modelling error), the walk steps through the game itself, so the answer, and any
    error, is the same either way."""
    chance = {inst.id for inst in compiled.instances if inst.action.by == "chance"}
    space = _whole_graph(compiled, max_states)
    if space is None:
        return _walk(list(dict.fromkeys(compiled.initial)), compiled.terminal, compiled.successors, chance, max_states)
    starts, targets, instances, terminal = space.starts, space.targets, space.instances, space.terminal

    def moves(node: int) -> list[tuple[int, int]]:
        return list(zip(instances[starts[node] : starts[node + 1]], targets[starts[node] : starts[node + 1]]))

    return _walk([space.index[s] for s in dict.fromkeys(compiled.initial)], terminal.__getitem__, moves, chance, max_states)


def _whole_graph(compiled: CompiledModel, max_states: int) -> StateSpace | None:
    """The configuration's whole reachable graph, explored in the interpreter; None without
    numba, past `GRAPH_FACTOR * max_states` states or at a modelling error."""
    from checker.analysis.statespace import explore_space
    from checker.engines.native import unavailable_reason

    if unavailable_reason() is not None:
        return None
    space = explore_space(compiled, GRAPH_FACTOR * max_states, timeout=3600.0)
    return space if space.complete and space.error is None else None


def _walk(initial: list[int], terminal: Callable[[int], Any], successors: Callable[[int], list[tuple[int, int]]], chance: set[int], max_states: int) -> bool | None:
    """`ends_surely` over any numbering of the states (packed states, or a graph's nodes)."""
    options: Options = {}
    stack = list(initial)
    seen = set(stack)
    while stack:
        state = stack.pop()
        if terminal(state):
            continue
        moves = successors(state)
        if not moves:
            return False  # stuck: this play never ends
        drawn = frozenset(post for inst, post in moves if inst in chance)
        options[state] = [*(frozenset((post,)) for inst, post in moves if inst not in chance), *([drawn] if drawn else [])]
        for _, post in moves:
            if post not in seen:
                if len(seen) >= max_states:
                    return None
                seen.add(post)
                stack.append(post)
    return not _has_end_component(options)


def _has_end_component(options: Options) -> bool:
    """Whether some set of the non-terminal states (the keys of `options`) is an end component:
    options are dropped while they leave the candidate set or their state's strongly connected
    component, states with no option left are dropped, until nothing changes."""
    alive = {s: list(opts) for s, opts in options.items()}
    while alive:
        changed = True
        while changed:
            changed = False
            for s in list(alive):
                kept = [o for o in alive[s] if all(t in alive for t in o)]
                if not kept:
                    del alive[s]
                    changed = True
                elif len(kept) != len(alive[s]):
                    alive[s] = kept
        if not alive:
            return False
        component = _components({s: set().union(*opts) for s, opts in alive.items()})
        cut = False
        for s, opts in alive.items():
            kept = [o for o in opts if all(component[t] == component[s] for t in o)]
            cut = cut or len(kept) != len(opts)
            alive[s] = kept
        if not cut:
            return True
    return False


def _components(edges: dict[int, set[int]]) -> dict[int, int]:
    """Strongly connected components (Tarjan's algorithm, iterative): state -> component number."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    component: dict[int, int] = {}
    found = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in edges:
                    continue
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(edges[succ])))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = found
                    if member == node:
                        break
                found += 1
    return component
