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
probability 1 (end components of Markov decision processes; only whether one exists is asked,
which needs no decomposition into the maximal ones: `_has_end_component`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from checker.lang.compile import CompiledModel

if TYPE_CHECKING:
    from checker.engines.native.space_store import StoredSpace
    from checker.engines.statespace import StateSpace

Options = dict[int, list[frozenset[int]]]


GRAPH_FACTOR = 4  # the interpreter explores up to this many times the bound before the walk below


def ends_surely(compiled: CompiledModel, max_states: int) -> bool | None:
    """True when the game ends with probability 1 from every initial state whatever the
    players (and the order of movers) do; False when some strategy keeps it going, or a state
    is stuck, with positive probability; None when the reachable graph has more than
    `max_states` states (nothing is claimed then).

    The walk steps through the game's graph; when numba is installed the graph is explored
    first in the bytecode interpreter (no call from Python per state) and the same walk, and
    the end-component search, run compiled over its arrays (`_on_graph`). Where that
    exploration stops short (past `GRAPH_FACTOR` times the bound, or at a modelling error), the
    walk steps through the game itself, so the answer, and any error, is the same either way."""
    chance = {inst.id for inst in compiled.instances if inst.action.by == "chance"}
    graph = _whole_graph(compiled, max_states)
    if graph is None:
        return _walk(list(dict.fromkeys(compiled.initial)), compiled.terminal, compiled.successors, chance, max_states)
    return _on_graph(graph, graph.initial_nodes(), chance, max_states)


def _on_graph(space: StateSpace | StoredSpace, initial: list[int], chance: set[int], max_states: int) -> bool | None:
    """`_walk` and `_has_end_component` over a whole explored graph, compiled
    (`engines.native.end_components`): the same visit, so the same answer."""
    import numpy as np

    from checker.engines.native import end_components
    from checker.engines.native.compile_lock import compiling

    starts = np.frombuffer(space.starts, np.int32)
    targets = np.frombuffer(space.targets, np.int32)
    terminal = np.frombuffer(space.terminal, np.uint8)
    expanded = np.zeros(space.size, np.uint8)
    with compiling("end_components", "walk"):  # two workers reaching it at once compiled it twice
        walked = end_components.walk(starts, targets, terminal, np.array(initial, np.int32), max_states, expanded)
    if walked != end_components.WALKED:
        return None if walked == end_components.PAST_BOUND else False
    instances = np.frombuffer(space.instances, np.int32)
    is_chance = np.zeros(int(instances.max(initial=0)) + 1, np.uint8)
    is_chance[[i for i in chance if i < is_chance.size]] = 1
    with compiling("end_components", "has_end_component"):
        return not end_components.has_end_component(starts, targets, is_chance[instances], expanded)


def _whole_graph(compiled: CompiledModel, max_states: int) -> StateSpace | StoredSpace | None:
    """The configuration's whole reachable graph, explored in the interpreter, or the one this
    process's check just read from the run's store (`space_store.recent`, what that exploration
    gives); None without numba, past `GRAPH_FACTOR * max_states` states or at a modelling error."""
    from checker.engines.native import space_store, unavailable_reason
    from checker.engines.statespace import explore_space

    if unavailable_reason() is not None:
        return None
    stored = space_store.recent(compiled, GRAPH_FACTOR * max_states)
    if stored is not None:
        return stored
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
    """Whether some set of the non-terminal states (the keys of `options`) is an end component.
    Options that leave the candidate set are dropped, and states left with no option, until
    nothing changes; an end component exists exactly when states remain. Every remaining state
    keeps an option inside the set, so choosing one each (chance drawing among its outcomes)
    is a finite Markov chain that never leaves the set, and its bottom strongly connected
    component is an end component; an end component's own options never leave it, so none of
    its states is dropped."""
    alive = {s: list(opts) for s, opts in options.items()}
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
    return bool(alive)
