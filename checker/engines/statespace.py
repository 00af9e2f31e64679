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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from checker.engines.graph import CHANCE, RULES, CSRGraph
from checker.errors import ModellingError
from checker.lang.compile import CompiledModel


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
        take = getattr(self.states, "take", None)  # `PackedStates`, below
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

    In the bytecode interpreter (`explore_space_natively`, the same loop state for state) when numba
    is installed: no Python successor code is generated for the configuration. The Python loop
    runs without numba, at a modelling error (it says where) and for a model the interpreter
    cannot run."""
    from checker.engines.native import unavailable_reason

    started = time.perf_counter()
    if unavailable_reason() is None:
        from checker.engines.native import engine

        try:
            return explore_space_natively(compiled, max_states, timeout)
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


# -- the same exploration in the bytecode interpreter ------------------------------------------
# `loops.py`'s `seed_space` and `expand_space` run the loop above state for state, numbering
# states, storing moves and stopping at the budget as it does; `explore_space_natively` turns the
# arrays into the same `StateSpace` (Python arrays, packed integers), so the analyses that read it
# do not know which loop made it. The conformance suite's `space` pair holds the two to the same spaces.

CHUNK = 1 << 14  # states expanded between two looks at the clock
COMPLETE, PAST_BUDGET, FULL = 1, 2, 4


def explore_space_natively(compiled: CompiledModel, max_states: int, timeout: float) -> StateSpace:
    """`statespace.explore_space_natively`, natively. Raises `engine.NativeDeferred` at a modelling error
    (the Python loop then stops there with its words) and `engine.NativeUnsupported` for a
    model the interpreter cannot assemble."""
    from checker.engines.native import engine

    started = time.perf_counter()
    deadline = started + timeout
    source, module, ctx, ni, initial, states, table = engine.vm_loop(compiled, max_states)
    capacity = states.shape[0]
    parent = np.empty(capacity, np.int32)
    term = np.zeros(capacity, np.uint8)
    starts = np.zeros(capacity + 1, np.int32)
    columns = [np.empty(1 << 16, dtype) for dtype in (np.int32, np.int32, np.int32, np.int64)]  # targets, instances, movers, weights
    python_ids = np.array(source.python_ids or [-1], np.int32)
    meta = np.zeros(8, np.int64)
    meta[5] = max_states
    space = StateSpace(compiled)
    code = 0
    try:
        with engine.compiling(module.__name__, "space"):  # the first calls compile: the loop's with no state to expand
            module.seed_space(meta, states, parent, table, initial, term, ctx)
            module.expand_space(meta, states, parent, table, starts, *columns, term, python_ids, ctx, 0)
        space.initial = list(range(int(meta[0])))  # the distinct initial states, numbered first
        while True:
            code = module.expand_space(meta, states, parent, table, starts, *columns, term, python_ids, ctx, CHUNK)
            if code == FULL:
                n, m = int(meta[0]), int(meta[2])
                if n + ni > states.shape[0]:
                    states, parent, term = engine._grown(states, n), engine._grown(parent, n), engine._grown(term, n)
                    starts = engine._grown(starts, int(meta[1]) + 1)
                table = engine.fitted_table(table, n + ni)
                if m + ni > columns[0].shape[0]:
                    columns = [engine._grown(column, m, m + ni) for column in columns]
                continue
            if code in (COMPLETE, PAST_BUDGET):
                break
            if time.perf_counter() > deadline:
                space.stopped_by = f"timeout after {timeout:g} s"
                break
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    n, i, m = int(meta[0]), int(meta[1]), int(meta[2])
    space.states = PackedStates(states[:n])
    space.parent = _array("i", parent[:n])
    space.starts = _array("i", starts[: i + 1])
    space.targets, space.instances, space.movers = (_array("i", column[:m]) for column in columns[:3])
    space.weights = _array("q", columns[3][:m])
    space.terminal = bytearray(term[:n].tobytes())
    space.depth = int(meta[3])
    if code == PAST_BUDGET:
        space.stopped_by = f"state budget of {max_states:,} reached"
    space.complete = code == COMPLETE
    if space.complete and i and int(meta[4]) != n:
        space.depth += 1
    space.seconds = time.perf_counter() - started
    return space


class PackedStates(Sequence[int]):
    """The explored rows as the Python engine's packed integers, each packed when it is read
    (an analysis reads the terminal states' and a trace's; packing all 478,340 of SMS's took
    0.2 s per exploration)."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return self.rows.shape[0]

    @overload
    def __getitem__(self, node: int) -> int: ...

    @overload
    def __getitem__(self, node: slice) -> list[int]: ...

    def __getitem__(self, node: int | slice) -> int | list[int]:
        if isinstance(node, slice):
            return _packed(self.rows[node])
        return _packed(self.rows[node : node + 1 if node != -1 else None])[0]

    def take(self, nodes: list[int]) -> list[int]:
        """The packed states of `nodes`, in their order."""
        return _packed(self.rows[np.asarray(nodes, dtype=np.int64)]) if nodes else []

    def __iter__(self) -> Iterator[int]:
        return iter(_packed(self.rows))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # compared by content, as a list is


def _packed(rows: np.ndarray) -> list[int]:
    """The rows of 64-bit words as the Python engine's packed integers (the low word first:
    a row's little-endian bytes; summing shifted words per state was a quarter of SMS's
    native `explore_space_natively`)."""
    if rows.shape[1] == 1:
        return rows[:, 0].view(np.uint64).tolist()
    data = np.ascontiguousarray(rows).astype("<i8", copy=False).tobytes()
    size = 8 * rows.shape[1]
    return [int.from_bytes(data[k : k + size], "little") for k in range(0, len(data), size)]


def _array(typecode: str, values: np.ndarray) -> array:
    out = array(typecode)
    out.frombytes(values.astype({"i": np.int32, "q": np.int64}[typecode]).tobytes())
    return out
