"""`divergence.find_divergence`'s search in the bytecode interpreter: the same states, natively.

The impact analysis asks, for every reading option, where it first parts ways with the
baseline. The Python search needs each configuration's generated successor code, and generating
it was most of the search's cost (two configurations a question). The interpreter runs one
program for every reading combination, so the two configurations are one program with two
reading inputs. `loops.py`'s `seed_divergence` and `expand_divergence` run the Python
loop state for state: the same order, the same comparison (terminal, outcome, a modelling error
under one side only, the enabled moves, their results), the same budget; this module turns the
state it stops at into the same play, which `divergence` then replays and confirms in the
reference interpreter as it does the Python search's. `tests/test_divergence_native.py` holds the
two searches to the same results.
"""

from __future__ import annotations

import time

import numpy as np

from checker.analysis.divergence import Search
from checker.engines.native import engine
from checker.lang.compile import CompiledModel

CHUNK = 1 << 14  # states compared between two looks at the clock
COMPLETE, PAST_BUDGET, FOUND, FULL = 1, 2, 3, 4
KINDS = {1: "terminal", 2: "outcome", 3: "error", 4: "moves", 5: "result"}  # loops.py's DIVERGES codes


def search(a: CompiledModel, b: CompiledModel, with_actor: bool, max_states: int, timeout: float) -> Search:
    """The search of `find_divergence` between two reading combinations of one model and its
    constants (the initial states are the same under both). Raises `engine.NativeDeferred` at a
    modelling error the Python search raises too (an outcome that cannot be evaluated) and
    `engine.NativeUnsupported` for a model the interpreter cannot assemble."""
    deadline = time.perf_counter() + timeout
    module, ctx_a, ni, initial, states, table = engine.vm_loop(a, max_states)[1:]
    _, _, ctx_b = engine.build_vm(b, [], checks=False)  # the same program, with b's readings
    parent = np.empty(states.shape[0], np.int32)
    depth = np.empty(states.shape[0], np.int32)
    meta = np.zeros(6, np.int64)
    meta[3] = max_states
    stopped_by = ""
    try:
        with engine.compiling(module.__name__, "divergence"):  # the first calls compile: the loop's with no state to expand
            module.seed_divergence(meta, states, parent, depth, table, initial)
            module.expand_divergence(meta, states, parent, depth, table, ctx_a, ctx_b, with_actor, 0)
        while True:
            code = module.expand_divergence(meta, states, parent, depth, table, ctx_a, ctx_b, with_actor, CHUNK)
            if code == FULL:
                n = int(meta[0])
                if n + ni > states.shape[0]:
                    states, parent, depth = engine._grown(states, n), engine._grown(parent, n), engine._grown(depth, n)
                table = engine.fitted_table(table, n + ni)
                continue
            if code in (COMPLETE, PAST_BUDGET, FOUND):
                break
            if time.perf_counter() > deadline:
                stopped_by = f"timeout after {timeout:g} s"
                break
    except engine.RUNTIME_ERRORS as exc:
        raise engine.NativeDeferred(str(exc)) from exc
    if code == PAST_BUDGET:
        stopped_by = f"state budget of {max_states:,} reached"
    path: list[int] = []
    if code == FOUND:
        node = int(meta[4])
        while node >= 0:
            path.append(engine.from_words(states[node]))
            node = int(parent[node])
        path.reverse()
    return Search(KINDS.get(int(meta[5]), ""), path, int(meta[0]), int(meta[2]), code == COMPLETE, stopped_by)
