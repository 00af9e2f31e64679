"""The explicit state graph of one configuration, with what the impact analysis needs per move.

The explicit engine stores only edge targets (4 bytes an edge), which is all its properties
need. Outcome probabilities and forced wins also need, for every move, who makes it (chance,
the rules, or which player) and a chance move's weight, so this module explores again and keeps
those in parallel `array`s (compressed sparse rows: node i's moves are positions
starts[i]..starts[i+1] of `targets`, `instances`, `movers` and `weights`).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from checker.engines.graph import CSRGraph
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel

CHANCE = -1
RULES = -2


@dataclass
class StateSpace:
    compiled: CompiledModel
    states: Sequence[int] = field(default_factory=list)  # packed states by node (the native loop's: packed when read)
    parent: array = field(default_factory=lambda: array("i"))
    starts: array = field(default_factory=lambda: array("i", [0]))
    targets: array = field(default_factory=lambda: array("i"))
    instances: array = field(default_factory=lambda: array("i"))
    movers: array = field(default_factory=lambda: array("i"))  # CHANCE, RULES, or the player's member index
    weights: array = field(default_factory=lambda: array("q"))
    terminal: bytearray = field(default_factory=bytearray)
    depth: int = 0
    complete: bool = False
    stopped_by: str = ""
    error: tuple[int, str] | None = None  # (node, message): a modelling error stops the exploration
    seconds: float = 0.0
    initial: list[int] | None = None  # the initial states' nodes, when the exploration numbered them first
    _index: dict[int, int] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return len(self.states)

    @property
    def index(self) -> dict[int, int]:
        """Node by packed state (made on first use from `states` when the native loop explored:
        most analyses never look a state up)."""
        if self._index is None:
            self._index = dict(zip(self.states, range(len(self.states))))
        return self._index

    def states_at(self, nodes: list[int]) -> list[int]:
        """The packed states of `nodes`, in their order (the native loop's rows packed together,
        not one call per node)."""
        take = getattr(self.states, "take", None)  # `statespace_native.PackedStates`
        return take(nodes) if take is not None else [self.states[node] for node in nodes]

    @property
    def expanded(self) -> int:
        """Nodes whose moves are stored (all of them when the exploration is complete)."""
        return len(self.starts) - 1

    def moves(self, node: int) -> range:
        return range(self.starts[node], self.starts[node + 1])

    def path_to(self, node: int) -> list[int]:
        path = [node]
        while self.parent[path[-1]] >= 0:
            path.append(self.parent[path[-1]])
        return path[::-1]

    def initial_nodes(self) -> list[int]:
        if self.initial is not None:
            return self.initial
        return sorted({self.index[s] for s in self.compiled.initial if s in self.index})

    def graph(self) -> CSRGraph:
        """The targets as the engine's CSRGraph (shared arrays, no copy of the edges)."""
        graph = CSRGraph()
        graph.starts, graph.edges = self.starts, self.targets
        return graph

    def bound_text(self) -> str:
        if self.complete:
            return f"exhaustive: {self.size:,} states"
        return f"{self.stopped_by or 'stopped'}: {self.size:,} states to depth {self.depth}"


def mover_functions(compiled: CompiledModel) -> list[Callable[[int], int] | int]:
    """Per instance: CHANCE, RULES, or a function of the state giving the player's member index."""
    out: list[Callable[[int], int] | int] = []
    for inst in compiled.instances:
        action = inst.action
        if action.by == "chance":
            out.append(CHANCE)
        elif action.by == "rules":
            out.append(RULES)
        else:
            assert action.actor is not None, "a player's action has its actor (build)"
            out.append(compiled.function(action.actor, compiled.encoded_params(inst)))
    return out


def weight_functions(compiled: CompiledModel) -> list[Callable[[int], int] | None]:
    return [compiled.function(i.action.weight, compiled.encoded_params(i)) if i.action.weight is not None else None for i in compiled.instances]


def explore_space(compiled: CompiledModel, max_states: int = 500_000, timeout: float = 300.0) -> StateSpace:
    """Breadth-first exploration storing every move with its mover and weight.

    In the bytecode interpreter (`statespace_native`, the same loop state for state) when numba
    is installed: no Python successor code is generated for the configuration. The Python loop
    runs without numba, at a modelling error (it says where) and for a model the interpreter
    cannot run."""
    from checker.engines.native import unavailable_reason

    started = time.perf_counter()
    if unavailable_reason() is None:
        from checker.analysis import statespace_native
        from checker.engines.native import engine

        try:
            return statespace_native.explore_space(compiled, max_states, timeout)
        except (engine.NativeDeferred, engine.NativeUnsupported):
            pass  # a modelling error (the Python loop reports where) or a model it cannot run
    return explore_space_in_python(compiled, max_states, max(timeout - (time.perf_counter() - started), 0.1))


def explore_space_in_python(compiled: CompiledModel, max_states: int = 500_000, timeout: float = 300.0) -> StateSpace:
    """`explore_space` in the Python engine: the reference the bytecode interpreter's loop is held to."""
    space = StateSpace(compiled)
    started = time.perf_counter()
    deadline = started + timeout
    states: list[int] = []
    index: dict[int, int] = {}
    space.states, space._index, parent = states, index, space.parent
    movers_of = mover_functions(compiled)
    weights_of = weight_functions(compiled)
    successors, terminal = compiled.successors, compiled.terminal
    # The columns' appends bound once: this loop runs for every move of every state (about 3 %
    # less CPU on SMS's support model, the same arrays).
    add_target, add_instance, add_mover, add_weight = space.targets.append, space.instances.append, space.movers.append, space.weights.append
    add_state, add_parent, add_terminal, close = states.append, parent.append, space.terminal.append, space.starts.append
    is_terminal = space.terminal
    for s in compiled.initial:
        if s not in index:
            index[s] = len(states)
            add_state(s)
            add_parent(-1)
            add_terminal(1 if terminal(s) else 0)
    layer_end = len(states)
    i = 0
    while i < len(states):
        if i == layer_end:
            space.depth += 1
            layer_end = len(states)
        if (i & 1023) == 0 and time.perf_counter() > deadline:
            space.stopped_by = f"timeout after {timeout:g} s"
            break
        s = states[i]
        if is_terminal[i]:
            close(len(space.targets))
            i += 1
            continue
        try:
            moves = successors(s)
            if moves and len(states) + len(moves) > max_states and any(t not in index for _, t in moves):
                space.stopped_by = f"state budget of {max_states:,} reached"
                break
            for inst_id, t in moves:
                node = index.get(t)
                if node is None:
                    node = len(states)
                    index[t] = node
                    add_state(t)
                    add_parent(i)
                    add_terminal(1 if terminal(t) else 0)
                mover = movers_of[inst_id]
                weight = weights_of[inst_id]
                add_target(node)
                add_instance(inst_id)
                add_mover(mover if isinstance(mover, int) else mover(s))
                add_weight(weight(s) if weight is not None else 1)
        except ModellingError as exc:
            keep = space.starts[-1]  # drop the half-stored moves of the failing state
            for column in (space.targets, space.instances, space.movers, space.weights):
                del column[keep:]
            space.error = (i, exc.message)
            space.stopped_by = f"modelling error: {exc.message}"
            break
        close(len(space.targets))
        i += 1
    else:
        space.complete = True
    if space.complete and i and layer_end != len(states):
        space.depth += 1
    space.seconds = time.perf_counter() - started
    return space
