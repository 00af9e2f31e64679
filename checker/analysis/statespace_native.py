"""`statespace.explore_space` in the bytecode interpreter: the same state space, natively.

The impact analysis explores every reading option's whole game storing each move's mover and
weight (`checker.analysis.statespace`). `loops.py`'s `seed_space` and `expand_space`
run that loop state for state, numbering states, storing moves and stopping at the budget as
it does; this module turns the arrays into the same `StateSpace` (Python arrays, packed
integers), so the analyses that read it do not know which loop made it.
`tests/test_statespace_native.py` holds the two to the same spaces.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from checker.analysis.statespace import StateSpace
from checker.engines.native import engine
from checker.lang.compile import CompiledModel

CHUNK = 1 << 14  # states expanded between two looks at the clock
COMPLETE, PAST_BUDGET, FULL = 1, 2, 4


def explore_space(compiled: CompiledModel, max_states: int, timeout: float) -> StateSpace:
    """`statespace.explore_space`, natively. Raises `engine.NativeDeferred` at a modelling error
    (the Python loop then stops there with its words) and `engine.NativeUnsupported` for a
    model the interpreter cannot assemble."""
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
    native `explore_space`)."""
    if rows.shape[1] == 1:
        return rows[:, 0].view(np.uint64).tolist()
    data = np.ascontiguousarray(rows).astype("<i8", copy=False).tobytes()
    size = 8 * rows.shape[1]
    return [int.from_bytes(data[k : k + size], "little") for k in range(0, len(data), size)]


def _array(typecode: str, values: np.ndarray) -> array:
    out = array(typecode)
    out.frombytes(values.astype({"i": np.int32, "q": np.int64}[typecode]).tobytes())
    return out
